/** What the test uses of the console's Session (console/src/session/session.ts). */
interface ConsoleSession {
  current(): unknown;
  endLocally(notice?: string): void;
  subscribe(listener: (state: unknown) => void): () => void;
}

/**
 * The module's path as a value: the root type-check (no DOM library, no generated API types) does not follow it;
 * the console's own (`node scripts/build-console.js --check`) checks the session.
 */
const SESSION_MODULE = '../../../console/src/session/session';

/**
 * The console renders its first screen from `current()` and subscribes after the first paint (a Preact effect):
 * a state reached in between, such as a restore that ended before the subscription, must still reach the screen.
 */
describe('the console session’s subscription', () => {
  let Session: new () => ConsoleSession;

  beforeAll(async () => {
    // The session's plain API client reads the page's origin when it is made.
    (globalThis as { location?: unknown }).location = { origin: 'http://console.test' };
    ({ Session } = (await import(SESSION_MODULE)) as { Session: new () => ConsoleSession });
  });

  afterAll(() => {
    delete (globalThis as { location?: unknown }).location;
  });

  it('tells a new subscriber the state at once, so a change made before it subscribed is not lost', () => {
    const session = new Session();
    expect(session.current()).toEqual({ status: 'restoring' });
    session.endLocally('Your session has ended. Sign in again.');
    const told: unknown[] = [];
    const unsubscribe = session.subscribe((state) => told.push(state));
    expect(told).toEqual([{ status: 'signed-out', notice: 'Your session has ended. Sign in again.' }]);
    session.endLocally();
    expect(told.at(-1)).toEqual({ status: 'signed-out' });
    unsubscribe();
    session.endLocally('again');
    expect(told).toHaveLength(2);
  });
});
