import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { asValue } from 'awilix';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { AdjustableClock } from '../../support/adjustable-clock';
import { CapturingMailer } from '../../support/capturing-mailer';
import { CuttableProxy } from '../../support/cuttable-proxy';
import { ADMIN, startTestApp, type TestApp, type TestResponse } from '../../support/test-app';
import { createTestDatabase } from '../../support/test-database';

const LIMIT = 4;
const ADMIN_ROLE = { id: SEEDED_ROLES.admin, name: 'admin', permissions: ['users:read', 'users:invite', 'permissions:read'] };

/** The client address, as the trusted proxy in front of both replicas (127.0.0.1) reports it. */
const from = (address: string) => ({ 'x-forwarded-for': address });
const notThrottled = (responses: TestResponse[]) => responses.filter((r) => r.status !== 429);

/**
 * Two replicas of the service on one database, as a Deployment runs them: ADDRESS_RATE_LIMIT and
 * INVITE_RATE_LIMIT are budgets of the whole service, whichever replica a request reaches.
 */
describe('rate limits shared by two replicas on one database', () => {
  const clock = new AdjustableClock();
  let replicas: [TestApp, TestApp];

  beforeAll(async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const env = {
      // Tokens one replica signs are accepted by the other, as every replica of a deployment shares the key.
      JWT_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      JWT_PUBLIC_KEY: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      ADDRESS_RATE_LIMIT: String(LIMIT),
      INVITE_RATE_LIMIT: String(LIMIT),
      TRUSTED_PROXIES: '127.0.0.1',
    };
    const overrides = { clock: asValue(clock), mailer: asValue(new CapturingMailer()) };
    const first = await startTestApp(env, overrides);
    const second = await startTestApp(env, overrides, first.database);
    replicas = [first, second];
  });
  afterAll(async () => {
    await replicas?.[1].api.close();
    await replicas?.[0].close();
  });

  const replica = (i: number) => replicas[i % 2]!;
  const signInFrom = (on: TestApp, address: string, username = `nobody-${randomUUID().slice(0, 8)}`, password = 'whatever-password') =>
    on.request('POST', '/v1/auth/signin', { json: { username, password }, headers: from(address) });
  const tokenOf = async (on: TestApp, address: string, username: string, password: string) => {
    const response = await signInFrom(on, address, username, password);
    expect(response.status).toBe(200);
    return response.body.accessToken as string;
  };

  describe(`ADDRESS_RATE_LIMIT=${LIMIT}`, () => {
    it(`lets exactly ${LIMIT} of ${2 * LIMIT} sign-ins from one address through, alternating between the replicas`, async () => {
      const responses: TestResponse[] = [];
      for (let i = 0; i < 2 * LIMIT; i++) responses.push(await signInFrom(replica(i), '203.0.113.10'));
      expect(notThrottled(responses)).toHaveLength(LIMIT);
      expect(responses.map((r) => r.status)).toEqual([...Array<number>(LIMIT).fill(401), ...Array<number>(LIMIT).fill(429)]);
      for (const refused of responses.slice(LIMIT)) {
        expect(refused.body.code).toBe('TOO_MANY_REQUESTS');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      }
      // Accepting an invitation spends the same budget, on either replica; another address has its own.
      for (const on of replicas) {
        const accept = await on.request('POST', '/v1/invitations/accept', {
          json: { token: 'x'.repeat(43), name: 'X', username: 'someone', password: 'a long passphrase' },
          headers: from('203.0.113.10'),
        });
        expect(accept.status).toBe(429);
        expect((await signInFrom(on, '203.0.113.20')).status).toBe(401);
      }
    });

    it(`lets exactly ${LIMIT} of ${2 * LIMIT} parallel sign-ins from one address through, spread over both replicas`, async () => {
      const responses = await Promise.all(Array.from({ length: 2 * LIMIT }, (_, i) => signInFrom(replica(i), '203.0.113.11')));
      expect(notThrottled(responses).map((r) => r.status)).toEqual(Array<number>(LIMIT).fill(401));
    });
  });

  describe(`INVITE_RATE_LIMIT=${LIMIT}`, () => {
    it(`lets exactly ${LIMIT} of ${2 * LIMIT} invites of one inviter through, alternating between the replicas; resends share that budget`, async () => {
      await replicas[0].addJoinedUser({ username: 'busy', password: 'busy-inviter-pw', email: 'busy@example.com', role: ADMIN_ROLE });
      const token = await tokenOf(replicas[0], '198.51.100.1', 'busy', 'busy-inviter-pw');
      const responses: TestResponse[] = [];
      for (let i = 0; i < 2 * LIMIT; i++) {
        responses.push(await replica(i).request('POST', '/v1/users/invite', { token, json: { email: `burst${i}@example.com` } }));
      }
      expect(notThrottled(responses)).toHaveLength(LIMIT);
      expect(responses.map((r) => r.status)).toEqual([...Array<number>(LIMIT).fill(201), ...Array<number>(LIMIT).fill(429)]);

      const users = (await replicas[1].request('GET', '/v1/users?page_size=100', { token })).body.users as { _id: string; email: string }[];
      const pending = users.find((u) => u.email === 'burst0@example.com')!;
      for (const on of replicas) expect((await on.request('POST', `/v1/users/${pending._id}/invitation/resend`, { token })).status).toBe(429);
      // Another inviter has a budget of its own, on either replica.
      const admin = await tokenOf(replicas[1], '198.51.100.2', ADMIN.username, ADMIN.password);
      for (const on of replicas) expect((await on.request('POST', `/v1/users/${pending._id}/invitation/resend`, { token: admin })).status).toBe(202);
    });

    it(`lets exactly ${LIMIT} of ${2 * LIMIT} parallel invites of one inviter through, spread over both replicas`, async () => {
      await replicas[1].addJoinedUser({ username: 'eager', password: 'eager-inviter-pw', email: 'eager@example.com', role: ADMIN_ROLE });
      const token = await tokenOf(replicas[1], '198.51.100.3', 'eager', 'eager-inviter-pw');
      const responses = await Promise.all(
        Array.from({ length: 2 * LIMIT }, (_, i) => replica(i).request('POST', '/v1/users/invite', { token, json: { email: `eager${i}@example.com` } })),
      );
      expect(notThrottled(responses).map((r) => r.status)).toEqual(Array<number>(LIMIT).fill(201));
    });
  });

  // Last: the clock moved forward stays moved for the tokens of later tests.
  it('gives a new budget once the window is over, on both replicas (the injected clock moved, no sleep)', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await signInFrom(replica(i), '203.0.113.12')).status).toBe(401);
    for (const on of replicas) expect((await signInFrom(on, '203.0.113.12')).status).toBe(429);
    clock.advance(60_000);
    const responses: TestResponse[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) responses.push(await signInFrom(replica(i + 1), '203.0.113.12'));
    expect(responses.map((r) => r.status)).toEqual([...Array<number>(LIMIT).fill(401), ...Array<number>(LIMIT).fill(429)]);
  });
});

describe('rate limits while the database is away', () => {
  it('answers a throttled request 503 with Retry-After (never 500), and counts again once the database is back', async () => {
    const { proxy, database } = await CuttableProxy.before(await createTestDatabase('ac_rate_faults'));
    const app = await startTestApp({ ADDRESS_RATE_LIMIT: '5' }, {}, database);
    try {
      const signIn = () => app.request('POST', '/v1/auth/signin', { json: { username: 'nobody', password: 'whatever-password' } });
      const before = await signIn();
      expect(before.status).toBe(401);
      expect(before.headers.get('x-ratelimit-remaining')).toBe('4');

      proxy.cut();
      const during = await Promise.all(Array.from({ length: 3 }, signIn));
      for (const response of during) {
        expect({ status: response.status, code: response.body?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(response.text).not.toMatch(/ECONN|ER_|SELECT|INSERT|rate_limit|\.ts:/);
      }

      proxy.restore();
      const deadline = Date.now() + 10_000;
      while ((await app.request('GET', '/readyz')).status !== 200) {
        if (Date.now() > deadline) throw new Error('the service did not become ready again within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const after = await signIn();
      expect(after.status).toBe(401);
      // The attempts refused while the database was away were not counted.
      expect(after.headers.get('x-ratelimit-remaining')).toBe('3');
    } finally {
      await app.close();
      await proxy.close();
    }
  });
});
