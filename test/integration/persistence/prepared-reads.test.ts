import { preparedReads } from '../../../src/infrastructure/persistence/typeorm/prepared-reads';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { joinedUser } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const ids = new UuidV7IdGenerator();

/**
 * The hottest reads run as prepared statements on MySQL and MariaDB (prepared-reads.ts): the rows they answer
 * must be the ones `query` answers, value for value and type for type, inside a transaction and out of one,
 * and a text is prepared once on a connection, then only executed.
 */
describe.each(ALL_TARGETS)('prepared reads on $name', (target) => {
  const db = migratedDatabase(target);
  const server = !target.name.startsWith('SQLite');

  it("answers a user's row as `query` does: the same columns, values and types (dates, numbers, nulls)", async () => {
    const user = joinedUser(`prep-${ids.next().slice(-8)}`, `prep-${ids.next()}@example.com`);
    await db.adapters.users().add(user);
    const sql = 'SELECT u.*, (SELECT SUM(revision) FROM user_list_revision) AS list_revision FROM users u WHERE u.id >= ? ORDER BY u.id LIMIT ? OFFSET ?';
    const read = preparedReads(db.dataSource);
    const prepared = await read(db.dataSource.manager, sql, [user.id, 5, 0]);
    const queried = (await db.dataSource.manager.query(sql, [user.id, 5, 0])) as Record<string, unknown>[];
    expect(prepared.length).toBeGreaterThan(0);
    expect(prepared).toEqual(queried);
    expect(prepared[0]!.invited_at).toEqual(queried[0]!.invited_at);
    expect(typeof prepared[0]!.token_version).toBe(typeof queried[0]!.token_version);
  });

  it('prepares a text once on a connection and then only executes it, in a transaction on its own connection', async () => {
    const read = preparedReads(db.dataSource);
    const runner = db.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const status = async () => {
        if (!server) return { prepare: 0, execute: 0 };
        const rows = (await runner.query("SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_execute')")) as { Variable_name: string; Value: string }[];
        const of = (name: string) => Number(rows.find((row) => row.Variable_name === name)?.Value ?? NaN);
        return { prepare: of('Com_stmt_prepare'), execute: of('Com_stmt_execute') };
      };
      // A text this connection has not prepared yet: the test's own.
      const sql = `SELECT ? AS asked, COUNT(*) AS n FROM users WHERE id <> '${ids.next()}'`;
      const before = await status();
      const first = await read(runner.manager, sql, ['one']);
      const second = await read(runner.manager, sql, ['two']);
      const after = await status();
      expect([first[0]!.asked, second[0]!.asked]).toEqual(['one', 'two']);
      if (server) {
        expect(after.prepare - before.prepare).toBe(1);
        expect(after.execute - before.execute).toBe(2);
      }
      // The transaction's own write is seen by its reads, and not by a read outside it (another connection).
      const revisionSql = 'SELECT revision FROM user_list_revision WHERE id = ?';
      const [committed] = await read(db.dataSource.manager, revisionSql, [1]);
      await runner.query('UPDATE user_list_revision SET revision = revision + 1000 WHERE id = 1');
      const [inside] = await read(runner.manager, revisionSql, [1]);
      expect(Number(inside!.revision)).toBe(Number(committed!.revision) + 1000);
      if (server) expect(Number((await read(db.dataSource.manager, revisionSql, [1]))[0]!.revision)).toBe(Number(committed!.revision));
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it("refuses a read on a released transaction's manager, as `query` does, instead of reading outside it", async () => {
    const read = preparedReads(db.dataSource);
    const runner = db.dataSource.createQueryRunner();
    await runner.connect();
    await runner.release();
    const sql = 'SELECT COUNT(*) AS n FROM users';
    const outcome = (reading: Promise<unknown>) => reading.then(() => 'answered', (error: Error) => `refused: ${error.message}`);
    const byQuery = await outcome(runner.manager.query(sql));
    // The servers' runners refuse once released; SQLite's one connection has nothing to release, and answers alike.
    if (server) expect(byQuery).toMatch(/^refused: .*released/i);
    expect(await outcome(read(runner.manager, sql, []))).toBe(byQuery);
  });
});
