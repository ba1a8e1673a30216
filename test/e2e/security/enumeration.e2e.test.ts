import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { User } from '../../../src/domain/users/user';
import { startTestApp, type TestApp } from '../../support/test-app';

/** Tries per kind in the timing comparison (issue 6 asks for 1,000 each); ENUMERATION_TRIES lowers it for a quick local run. */
const TRIES = Number(process.env.ENUMERATION_TRIES ?? 1000);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Account enumeration through sign-in, with argon2id at its real parameters (the service's own hasher). */
describe('sign-in gives nothing away about which usernames exist', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '3', ADDRESS_RATE_LIMIT: '0' });
    const member = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
    await app.addJoinedUser({ username: 'known', password: 'known-password-1', email: 'known@example.com', role: member });
    await app.addJoinedUser({ username: 'locked', password: 'locked-password-1', email: 'locked@example.com', role: member });
    const { userRepository, passwordHasher } = app.api.container.cradle;
    // A not-yet-joined user that has a username and a hash (joinedAt unset): never signs in.
    await userRepository.add(
      User.restore({ id: '01a1fc99-0000-7000-8000-00000000aaaa', email: 'pending@example.com', username: 'pending', passwordHash: await passwordHasher.hash('pending-password'), roleId: member.id, invitedAt: new Date() }),
    );
    for (let i = 0; i < 3; i += 1) await signIn('locked', 'wrong-password-x');
  });
  afterAll(async () => app.close());

  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });

  it('answers unknown user, wrong password, locked account (even with its right password) and not-yet-joined user with byte-identical 401s', async () => {
    const answers = [
      await signIn('nobody-here', 'some-password-1'),
      await signIn('known', 'wrong-password-1'),
      await signIn('locked', 'locked-password-1'),
      await signIn('pending', 'pending-password'),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0].body.code).toBe('INVALID_CREDENTIALS');
    const headerSets = answers.map((a) => [...a.headers.entries()].filter(([k]) => !['date', 'x-request-id', 'keep-alive'].includes(k)).sort());
    for (const headers of headerSets) expect(headers).toEqual(headerSets[0]);
  });
});

describe('sign-in time does not tell known from unknown usernames (argon2id at real parameters)', () => {
  let app: TestApp;

  beforeAll(async () => {
    // A threshold the run cannot reach, so the known user is evaluated every time rather than locked.
    app = await startTestApp({ LOCKOUT_THRESHOLD: '1000000', ADDRESS_RATE_LIMIT: '0' });
    await app.addJoinedUser({ username: 'known', password: 'known-password-1', email: 'known@example.com', role: { id: SEEDED_ROLES.member, name: 'member', permissions: [] } });
  });
  afterAll(async () => app.close());

  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });

  it(`keeps the median time of an unknown and a known username within 5 ms (${TRIES} tries each, interleaved)`, async () => {
    const unknown: number[] = [];
    const known: number[] = [];
    const timed = async (username: string, into: number[]) => {
      const start = process.hrtime.bigint();
      const response = await signIn(username, 'wrong-password-2');
      into.push(Number(process.hrtime.bigint() - start) / 1e6);
      expect(response.status).toBe(401);
    };
    for (let i = 0; i < TRIES; i += 1) {
      await Promise.all([timed(`nobody-${i}`, unknown), timed('known', known)]);
    }
    const gap = Math.abs(median(known) - median(unknown));
    // Shown in the report: the figure asserted.
    process.stdout.write(`enumeration timing: median known ${median(known).toFixed(2)} ms, unknown ${median(unknown).toFixed(2)} ms, gap ${gap.toFixed(2)} ms over ${TRIES} each\n`);
    expect(gap).toBeLessThan(5);
  }, 300_000);
});
