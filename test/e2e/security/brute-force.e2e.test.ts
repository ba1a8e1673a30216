import { hash, verify } from '@node-rs/argon2';
import { asValue } from 'awilix';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher.port';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { AdjustableClock } from '../../support/adjustable-clock';
import { startTestApp, type TestApp } from '../../support/test-app';

const CHEAP = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

/** Real argon2id at cheap parameters (this test is about counting, not timing), counting evaluations against a real hash. */
class CountingHasher implements PasswordHasher {
  evaluations = 0;
  dummies = 0;
  private readonly dummy = hash('dummy-password-x', CHEAP);
  async hash(plain: string): Promise<string> {
    return hash(plain, CHEAP);
  }
  async verify(plain: string, stored: string | undefined): Promise<boolean> {
    if (stored === undefined) {
      this.dummies += 1;
      await verify(await this.dummy, plain);
      return false;
    }
    this.evaluations += 1;
    return verify(stored, plain);
  }
}

const THRESHOLD = 30;

describe(`brute force: 1,000 wrong passwords from parallel clients against one account (LOCKOUT_THRESHOLD=${THRESHOLD})`, () => {
  const hasher = new CountingHasher();
  const clock = new AdjustableClock();
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(
      { LOCKOUT_THRESHOLD: String(THRESHOLD), LOCKOUT_BASE_WAIT: '1s', LOCKOUT_MAX_WAIT: '4s', ADDRESS_RATE_LIMIT: '0' },
      { passwordHasher: asValue(hasher), clock: asValue(clock) },
    );
    await app.addJoinedUser({
      username: 'target',
      password: 'the-real-password',
      email: 'target@example.com',
      role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] },
    });
  });
  afterAll(async () => app.close());

  const attempt = (password: string) => app.request('POST', '/v1/auth/signin', { json: { username: 'TARGET', password } });

  it('evaluates exactly 30 of them (no lost counter update), answers all 1,000 with the same 401, and lets the owner in after the wait', async () => {
    const before = hasher.evaluations;
    // The clock stands still during the burst, so the 1 s lock cannot expire in the middle of it.
    clock.freeze();
    const bodies = new Set<string>();
    const statuses = new Set<number>();
    const clients = 16;
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < 1000) {
          next += 1;
          const response = await attempt(`wrong-password-${next}`);
          statuses.add(response.status);
          bodies.add(response.text);
        }
      }),
    );

    expect(hasher.evaluations - before).toBe(THRESHOLD);
    expect([...statuses]).toEqual([401]);
    expect(bodies.size).toBe(1);
    const [row] = await app.api.container.cradle.dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [app.api.container.cradle.loginAttemptKeys.of('target')]);
    expect(Number(row.lockouts)).toBe(1);

    // Locked: even the right password is refused, with the same body, and not evaluated.
    const locked = await attempt('the-real-password');
    expect(locked.status).toBe(401);
    expect(bodies.has(locked.text)).toBe(true);
    expect(hasher.evaluations - before).toBe(THRESHOLD);

    clock.advance(1001);
    const owner = await attempt('the-real-password');
    expect(owner.status).toBe(200);
    const [reset] = await app.api.container.cradle.dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [app.api.container.cradle.loginAttemptKeys.of('target')]);
    expect([Number(reset.failures), Number(reset.lockouts), reset.locked_until]).toEqual([0, 0, null]);
  });
});
