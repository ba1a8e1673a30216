import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { AuditSealer } from '../../../src/infrastructure/persistence/typeorm/audit/audit-sealer';
import { StandaloneTypeOrmAuditTrail } from '../../../src/infrastructure/persistence/typeorm/audit/typeorm-audit-trail';
import { SqliteWriteQueue } from '../../../src/infrastructure/persistence/typeorm/sqlite-write-queue';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { runCli } from '../../../src/interfaces/cli/cli';

/** `npm run audit:verify` (the CLI's `audit-verify`): exit 0 on an intact trail, 1 naming the entry that breaks. */
describe('the audit-verify command', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ac-audit-cli-'));
  const file = path.join(dir, 'db.sqlite');
  const saved = { ...process.env };

  afterAll(() => {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (): Promise<{ code: number; out: string }> => {
    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
    try {
      process.env = { ...saved, DATABASE_URL: `sqlite:${file}`, DATA_DIR: dir, LOG_LEVEL: 'silent' };
      return { code: await runCli(['audit-verify']), out };
    } finally {
      write.mockRestore();
    }
  };

  it('verifies the trail, then names the entry edited straight in the database', async () => {
    const dataSource = createDataSource({ kind: 'sqlite', path: file });
    await dataSource.initialize();
    await runMigrations(dataSource);
    const sqliteWriteQueue = new SqliteWriteQueue({ dataSource });
    const ids = new UuidV7IdGenerator();
    const entries = [0, 1, 2].map((i) => ({
      id: ids.next(),
      occurredAt: Date.now() + i,
      action: 'user.role_changed' as const,
      outcome: 'success' as const,
      code: null,
      actor: { type: 'user' as const, id: 'actor', name: 'root' },
      target: { type: 'user' as const, id: `user-${i}`, snapshot: `user ${i}` },
      source: { address: null, userAgent: null },
      requestId: null,
      changes: [{ field: 'role', before: 'member', after: 'admin' }],
    }));
    await new StandaloneTypeOrmAuditTrail({ manager: dataSource.manager, sqliteWriteQueue }).record(entries);
    await new AuditSealer({ dataSource, sqliteWriteQueue }).sealAll();
    await dataSource.destroy();

    expect(await run()).toEqual({ code: 0, out: 'audit trail verified: 3 entries in the chain, 0 not sealed yet\n' });

    const tamper = createDataSource({ kind: 'sqlite', path: file });
    await tamper.initialize();
    await tamper.query("UPDATE audit_events SET actor_name = 'someone else' WHERE id = ?", [entries[1]!.id]);
    await tamper.destroy();

    const broken = await run();
    expect(broken.code).toBe(1);
    expect(broken.out).toContain(`BROKEN at #2 (${entries[1]!.id})`);
  });
});
