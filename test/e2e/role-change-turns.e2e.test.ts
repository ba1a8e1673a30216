import type { Connection } from 'mysql2/promise';
import { connectTo } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';

/** Role changes sent at once while the role catalogue's row is held elsewhere: more than the api's pool (10). */
const CHANGES = 12;
/** How long the row is held: longer than any sign-in takes, well inside the statement timeout. */
const HELD_MS = 3_000;

/**
 * Role changes take turns on the role catalogue's row. While another replica (here a connection of the test's) holds
 * it, this api's role changes wait in a line of the process, holding one connection of the pool between them, not
 * one each: its sign-ins go on meanwhile, and every change is made once the row is free (review of 2026-12-07, admin
 * work at scale: ten of them took the whole pool, and sign-ins waited until the statement timeout).
 */
describe('role changes waiting on the role catalogue (MariaDB: SQLite takes every transaction in turn already)', () => {
  let app: TestApp;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp({ DATABASE_QUERY_TIMEOUT: '10s', SEARCH_TIME_LIMIT: '1s' });
    admin = await app.signIn();
  });
  afterAll(async () => app?.close());

  it('hold one connection between them, so sign-ins are served meanwhile, and all are made once the row is free', async () => {
    const holder: Connection = await connectTo(app.database.url);
    try {
      await holder.query('BEGIN');
      await holder.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
      const stamp = Date.now().toString(36);
      const changes = Array.from({ length: CHANGES }, (_, i) =>
        app.request('POST', '/v1/roles', { token: admin, json: { name: `turns-${stamp}-${i}`, permissions: ['users:read'] } }),
      );
      const waitingOnRow = async () =>
        Number(((await holder.query("SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE 'UPDATE role_catalogue%' AND id <> CONNECTION_ID()")) as unknown as [{ n: number }[]])[0][0]!.n);
      // The first change reaches the row (on a slow machine this may take a while); then the others have had time to.
      const until = Date.now() + 5_000;
      while ((await waitingOnRow()) === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await waitingOnRow()).toBe(1);

      const started = Date.now();
      await app.signIn();
      const listed = await app.request('GET', '/v1/users?page_size=5', { token: admin });
      expect(listed.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(HELD_MS / 2);

      await new Promise((resolve) => setTimeout(resolve, Math.max(0, HELD_MS - (Date.now() - started))));
      await holder.query('ROLLBACK');
      const answers = await Promise.all(changes);
      expect(answers.map((answer) => answer.status)).toEqual(Array(CHANGES).fill(201));
    } finally {
      await holder.end();
    }
  }, 60_000);
});
