import type { DataSource } from 'typeorm';
import type { RefreshToken } from '../../../src/application/ports/refresh-token-store.port';
import { createDataSource } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { TypeOrmRefreshTokenStore } from '../../../src/infrastructure/persistence/typeorm/typeorm-refresh-token.store';
import { joinedUser, newId, tokenHash } from '../../contract/contract-kit';
import { CuttableProxy } from '../../support/cuttable-proxy';
import { createTestDatabase, mysqlServerUrl, serverUrl } from '../../support/test-database';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';

const AT = new Date('2026-02-01T10:00:00.123Z');

/**
 * An exchange of a refresh token whose connection goes with its commit (MySQL and MariaDB, through a proxy that loses
 * the COMMIT or its answer). Answered as a plain fault, an exchange the server did commit left the client holding a used
 * token: its retry was taken for a theft and the whole session family revoked. The store reads the outcome back.
 */
describe.each([
  ['MariaDB', serverUrl],
  ['MySQL 8', mysqlServerUrl],
])('a refresh token exchange whose commit goes unanswered, on %s', (_name, server) => {
  let direct: DataSource;
  let proxied: DataSource;
  let proxy: CuttableProxy;
  let drop: () => Promise<void>;
  let store: TypeOrmRefreshTokenStore;
  let check: TypeOrmRefreshTokenStore;
  let userId: string;

  beforeAll(async () => {
    const database = await createTestDatabase('ac_rotation', server());
    drop = database.drop;
    direct = createDataSource(database.config);
    await direct.initialize();
    await runMigrations(direct);
    const adapters = new TypeOrmAdapters(direct);
    const user = joinedUser();
    await adapters.users().add(user);
    userId = user.id;
    check = new TypeOrmRefreshTokenStore({ dataSource: direct, sqliteWriteQueue: adapters.services.sqliteWriteQueue });
    const viaProxy = await CuttableProxy.before(database);
    proxy = viaProxy.proxy;
    proxied = createDataSource(viaProxy.database.config);
    await proxied.initialize();
    store = new TypeOrmRefreshTokenStore({ dataSource: proxied, sqliteWriteQueue: new TypeOrmAdapters(proxied).services.sqliteWriteQueue });
  });

  afterAll(async () => {
    await proxied?.destroy();
    await proxy?.close();
    await direct?.destroy();
    await drop?.();
  });

  const token = (overrides: Partial<RefreshToken> = {}): RefreshToken => ({
    id: newId(),
    familyId: newId(),
    userId,
    tokenHash: tokenHash(),
    tokenVersion: 0,
    createdAt: AT,
    expiresAt: new Date(AT.getTime() + 86_400_000),
    idleExpiresAt: new Date(AT.getTime() + 3_600_000),
    usedAt: null,
    revokedAt: null,
    familyInToken: true,
    ...overrides,
  });
  const issued = async () => {
    const first = token();
    await check.add(first);
    return { first, successor: token({ familyId: first.familyId, createdAt: new Date(AT.getTime() + 1000) }) };
  };
  const usedAt = async (t: RefreshToken) => (await check.findByHash(t.tokenHash))?.usedAt ?? null;

  it('answers the exchange done when the server committed it and only its answer was lost, the database away 1.5 s', async () => {
    const { first, successor } = await issued();
    proxy.loseNextCommit({ forward: true, refuseMs: 1_500 });
    const started = Date.now();
    await expect(store.rotate(first.id, new Date(AT.getTime() + 1000), successor)).resolves.toBe(true);
    // The read-back waited for the database to come back, within the 5 s a request answers 503 in.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await usedAt(first)).not.toBeNull();
    expect(await check.findByHash(successor.tokenHash)).toMatchObject({ id: successor.id, usedAt: null });
  });

  it('answers the fault when the commit never reached the server: the token is still unused and exchanges once back', async () => {
    const { first, successor } = await issued();
    proxy.loseNextCommit({ forward: false, refuseMs: 500 });
    await expect(store.rotate(first.id, new Date(AT.getTime() + 1000), successor)).rejects.toThrow();
    expect(await usedAt(first)).toBeNull();
    expect(await check.findByHash(successor.tokenHash)).toBeNull();
    // The client's retry, as after a 503: the pool's connections cut with the rest fail once each, then it goes through.
    const deadline = Date.now() + 5_000;
    let exchanged: boolean | undefined;
    while (exchanged === undefined && Date.now() < deadline) {
      exchanged = await store.rotate(first.id, new Date(AT.getTime() + 2000), successor).catch(() => undefined);
      if (exchanged === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(exchanged).toBe(true);
  });

  it('answers the fault, not a wait, when the database is away before the exchange reaches its commit', async () => {
    const { first, successor } = await issued();
    proxy.cut();
    try {
      const started = Date.now();
      await expect(store.rotate(first.id, new Date(AT.getTime() + 1000), successor)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      proxy.restore();
    }
    expect(await usedAt(first)).toBeNull();
  });
});
