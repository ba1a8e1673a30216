import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { SEARCH_SLOTS } from '../../src/infrastructure/persistence/typeorm/connection-turns';
import { startTestApp, type TestApp } from '../support/test-app';

/** Searches one caller (a script) has waiting in the line when another caller searches once. */
const QUEUED = 12;

/**
 * The search turn (SEARCH_SLOTS prefix searches of a process at once) is shared out between callers: an admin's one
 * search, sent after a script's many, waits for one of the script's, not for all of them (first come first served
 * made it wait for every search the script had sent, past the wait's limit once they were slow). Run on MariaDB (the
 * integration project) and passed on MySQL 8 too; not on SQLite, whose one connection serializes every statement, so
 * a search held at the gate would hold every other request's reads and no line would form (nor a pool to protect).
 */
describe('prefix searches of two callers at once', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
    await app.addJoinedUser({ username: 'script', password: 'script-password-123', email: 'script@example.com', role: { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] } });
  });
  afterAll(async () => app.close());

  it('serves one caller’s search after one of another caller’s waiting searches, not after all of them', async () => {
    const [admin, script] = [await app.signIn(), await app.signIn('script', 'script-password-123')];
    const turns = app.api.container.cradle.connectionTurns;
    // The searches' work held until every search has asked for its turn, so the line is what the test built.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const inTurn = turns.inTurn.bind(turns);
    const spy = jest.spyOn(turns, 'inTurn').mockImplementation((turn, work, party) =>
      inTurn(turn, async () => {
        if (turn === 'search') await gate;
        return work();
      }, party),
    );
    try {
      const finished: string[] = [];
      const search = (who: string, token: string, q: string) =>
        app.request('GET', `/v1/users?q=${q}`, { token }).then((answer) => {
          finished.push(who);
          return answer;
        });
      // Distinct prefixes: no two searches share a statement.
      const scripted = Array.from({ length: SEARCH_SLOTS + QUEUED }, (_, i) => search(`script-${i}`, script, `nobody${i}x`));
      await until(() => turns.waiting('search') === QUEUED);
      const own = search('admin', admin, 'adm');
      await until(() => turns.waiting('search') === QUEUED + 1);
      open();
      const answers = await Promise.all([...scripted, own]);
      expect(answers.map((answer) => answer.status)).toEqual(Array(SEARCH_SLOTS + QUEUED + 1).fill(200));
      expect(answers.at(-1)!.body.users.map((user: { username: string }) => user.username)).toEqual(['admin']);
      // It runs fifth: after the searches running when it asked and one waiting of the script's. Answers may come back
      // in another order than their runs began, so only the first half of the script's are allowed ahead of it; first
      // come first served put all of them ahead (15 of 15).
      expect(finished.indexOf('admin')).toBeLessThan(SEARCH_SLOTS + QUEUED / 2);
    } finally {
      spy.mockRestore();
    }
  }, 60_000);
});

async function until(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 10_000; !condition(); ) {
    if (Date.now() > deadline) throw new Error('the searches did not reach the line');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
