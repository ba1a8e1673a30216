import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { Username } from '../../../src/domain/users/username';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { type AppContainer, buildContainer } from '../../../src/infrastructure/container';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { httpInterface, httpServerOptions } from '../../../src/interfaces/http/app';
import { prepareDatabase } from '../../../src/interfaces/process-runtime';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';

const LIMIT = 3;
const ADMIN_ROLE = { id: SEEDED_ROLES.admin, name: 'admin', permissions: ['users:read', 'users:invite', 'permissions:read'] };

type JsonSchema = { type?: string; required?: string[]; properties?: Record<string, JsonSchema>; minLength?: number };

/** The smallest input a schema takes: the per-inviter limit runs after validation, so a refused body never reaches it. */
function sample(schema: JsonSchema): unknown {
  if (schema.type === 'object') return Object.fromEntries((schema.required ?? []).map((name) => [name, sample(schema.properties?.[name] ?? {})]));
  if (schema.type === 'string') return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  throw new Error(`no sample input for a schema of type ${String(schema.type)}: extend sample()`);
}

const labelOf = (route: RouteOptions) => `${String(route.method)} ${route.url}`;

/**
 * A route's limit and its metrics outcome are declared in its own `config`, not in a table keyed by
 * its URL. The app is built on an instance that records every route as it is declared, so the test
 * reads the declarations the service really registered.
 */
describe('throttles and outcomes declared on the routes', () => {
  const routes: RouteOptions[] = [];
  let database: TestDatabase;
  let dataDir: string;
  let container: AppContainer;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    database = await createTestDatabase('ac_throttled_routes');
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-throttled-'));
    const config = loadConfig({
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      PORT: '0',
      ADDRESS_RATE_LIMIT: String(LIMIT),
      INVITE_RATE_LIMIT: String(LIMIT),
      // Each route gets a client address of its own, named by X-Forwarded-For.
      TRUSTED_PROXIES: '127.0.0.1',
    });
    container = buildContainer(config, createLogger('silent'));
    await prepareDatabase(container, { migrate: true });
    app = Fastify(httpServerOptions(config, container.cradle.logger));
    app.addHook('onRoute', (route) => {
      routes.push(route);
    });
    await app.register(httpInterface, { container });
    // Over a socket: app.inject() needs light-my-request's ESM-only `cookie`, which jest cannot load.
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await container?.dispose();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A client of its own per route (address and user), so no route spends another's budget. */
  async function clientFor(index: number): Promise<{ address: string; token: string }> {
    const { passwordHasher, idGenerator, clock, userRepository, tokenIssuer } = container.cradle;
    const user = User.createJoined({
      id: idGenerator.next(),
      email: Email.parse(`throttled${index}@example.com`),
      name: `throttled${index}`,
      username: Username.parse(`throttled${index}`),
      passwordHash: await passwordHasher.hash(`throttled-${index}-password`),
      role: ADMIN_ROLE,
      now: clock.now(),
    });
    await userRepository.add(user);
    const { token } = await tokenIssuer.issue(user.id, user.tokenVersion);
    return { address: `192.0.2.${index + 1}`, token };
  }

  async function send(route: RouteOptions, client: { address: string; token: string }): Promise<{ status: number; body: unknown }> {
    const schema = (route.schema ?? {}) as { body?: JsonSchema; params?: JsonSchema; consumes?: string[] };
    const params = (schema.params ? sample(schema.params) : {}) as Record<string, string>;
    const target = route.url.replace(/:(\w+)/g, (_, name: string) => params[name] ?? 'x');
    const headers: Record<string, string> = { authorization: `Bearer ${client.token}`, 'x-forwarded-for': client.address };
    // A body in the one media type the route reads: JSON, or the invitation page's form.
    const media = schema.consumes?.[0] ?? 'application/json';
    if (schema.body) headers['content-type'] = media;
    const input = schema.body ? (sample(schema.body) as Record<string, string>) : undefined;
    const response = await fetch(`${url}${target}`, {
      method: String(route.method),
      headers,
      body: input === undefined ? undefined : media === 'application/json' ? JSON.stringify(input) : new URLSearchParams(input).toString(),
    });
    const text = await response.text();
    // The form's answers are pages; only JSON is parsed.
    const json = /json/.test(response.headers.get('content-type') ?? '');
    return { status: response.status, body: text && json ? JSON.parse(text) : text || undefined };
  }

  it('has sign-in and accept (the API and the page’s form) spend the per-address budget, invite and resend the per-inviter one', () => {
    const declared = Object.fromEntries(routes.filter((r) => r.config?.throttle).map((r) => [labelOf(r), r.config?.throttle]));
    expect(declared).toMatchObject({
      'POST /v1/auth/signin': 'address',
      'POST /v1/invitations/accept': 'address',
      'POST /invitations/accept': 'address',
      'POST /v1/users/invite': 'inviter',
      'POST /v1/users/:id/invitation/resend': 'inviter',
      // Password reset (#10): the request spends both its budgets; the confirmation and its form the per-address one.
      'POST /v1/auth/password-reset': ['address', 'reset-email'],
      'POST /v1/auth/password-reset/confirm': 'address',
      'POST /password-reset': 'address',
      // A refresh spends only when refused: its success proves a token nobody guesses (review Q). The OAuth token
      // endpoint (#21) counts with POST /v1/auth/refresh for a refresh token, whose exchange it is; nothing for client
      // credentials, whose failures CLIENT_AUTH_RATE_LIMIT counts (review N).
      'POST /v1/auth/refresh': 'address-failures',
      'POST /v1/auth/console-session/refresh': 'address-failures',
      'POST /oauth/token': 'address-failures-unless-client',
      // Revocation (#21): anyone holding a token may call it, so it spends the per-address budget too.
      'POST /oauth/revoke': 'address',
      // Every change to one's factors is audited, a rename too: none writes the trail without bound.
      'PATCH /v1/me/mfa/webauthn/:id': 'address',
    });
  });

  it(`refuses the ${LIMIT + 1}th request of a minute on every route whose config names a throttle`, async () => {
    const throttled = routes.filter((r) => r.config?.throttle);
    expect(throttled.length).toBeGreaterThanOrEqual(5);
    for (const [index, route] of throttled.entries()) {
      const client = await clientFor(index);
      const responses = [];
      for (let n = 0; n <= LIMIT; n++) responses.push(await send(route, client));
      const statuses = responses.map((r) => r.status);
      // The statuses on both sides: a failure's diff shows what the route answered.
      expect({ route: labelOf(route), refused: statuses.map((s) => s === 429), statuses }).toEqual({
        route: labelOf(route),
        refused: [...Array<boolean>(LIMIT).fill(false), true],
        statuses,
      });
      // The OAuth token endpoint (#21) says it in OAuth's format (RFC 6749 §5.2), as its every refusal.
      expect(responses[LIMIT]!.body).toMatchObject(route.url.startsWith('/oauth/') ? { error: 'invalid_request' } : { code: 'TOO_MANY_REQUESTS' });
    }
  });

  it('declares what sign-in, invite and accept count', () => {
    expect(routes.filter((r) => r.config?.outcome).map(labelOf)).toEqual(
      expect.arrayContaining(['POST /v1/auth/signin', 'POST /v1/users/invite', 'POST /v1/invitations/accept', 'POST /invitations/accept']),
    );
  });

  it('counts a sign-in refused by the throttle (a hook answered, not the handler) as throttled', async () => {
    const signIns = async () => {
      const metric = container.cradle.metrics.registry.getSingleMetric('access_control_sign_ins_total');
      const { values } = await metric!.get();
      const of = (outcome: string) => values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
      return { failure: of('failure'), throttled: of('throttled') };
    };
    const before = await signIns();
    for (let n = 0; n <= LIMIT; n++) {
      await fetch(`${url}/v1/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7' },
        body: JSON.stringify({ username: 'nobody', password: 'whatever-password' }),
      });
    }
    expect(await signIns()).toEqual({ failure: before.failure + LIMIT, throttled: before.throttled + 1 });
  });

  describe('a refresh spends the per-address budget only when refused (review Q)', () => {
    const post = (path: string, address: string, json: unknown) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(json) });
    /** A refresh token of a new user's sign-in from `address` (which spends one sign-in of that address's budget). */
    const signedIn = async (index: number, address: string) => {
      await clientFor(index);
      const response = await post('/v1/auth/signin', address, { username: `throttled${index}`, password: `throttled-${index}-password` });
      expect(response.status).toBe(200);
      return ((await response.json()) as { refreshToken: string }).refreshToken;
    };

    it('lets a session renew past the budget, and after the sign-ins of its address spent theirs', async () => {
      const address = '198.51.100.21';
      let refreshToken = await signedIn(100, address);
      // Spend the rest of the address's sign-ins: the next is refused.
      for (let n = 1; n < LIMIT; n++) await post('/v1/auth/signin', address, { username: 'nobody', password: 'whatever-password' });
      expect((await post('/v1/auth/signin', address, { username: 'nobody', password: 'whatever-password' })).status).toBe(429);
      const statuses = [];
      for (let n = 0; n < 2 * LIMIT; n++) {
        const response = await post('/v1/auth/refresh', address, { refreshToken });
        statuses.push(response.status);
        if (response.status === 200) refreshToken = ((await response.json()) as { refreshToken: string }).refreshToken;
      }
      expect(statuses).toEqual(Array<number>(2 * LIMIT).fill(200));
    });

    it(`refuses every refresh of an address once ${LIMIT} were refused in the minute, a good one too, and leaves its sign-ins alone`, async () => {
      const address = '198.51.100.22';
      const refreshToken = await signedIn(101, address);
      const refused = [];
      for (let n = 0; n < LIMIT; n++) refused.push((await post('/v1/auth/refresh', address, { refreshToken: `guess${n}` })).status);
      expect(refused).toEqual(Array<number>(LIMIT).fill(401));
      const good = await post('/v1/auth/refresh', address, { refreshToken });
      expect(good.status).toBe(429);
      expect(Number(good.headers.get('retry-after'))).toBeGreaterThan(0);
      // The token endpoint's refresh grant counts with it; another address is not affected; sign-ins have their own budget.
      const form = (body: string) => fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address }, body });
      expect((await form(`grant_type=refresh_token&refresh_token=${refreshToken}`)).status).toBe(429);
      expect((await post('/v1/auth/refresh', '198.51.100.23', { refreshToken })).status).toBe(200);
      expect((await post('/v1/auth/signin', address, { username: 'throttled101', password: 'throttled-101-password' })).status).toBe(200);
    });

    it('does not count the console’s renewal without a session cookie (every first load of the console makes one)', async () => {
      const address = '198.51.100.24';
      const firstLoad = () => fetch(`${url}/v1/auth/console-session/refresh`, { method: 'POST', headers: { 'x-console-session': '1', 'x-forwarded-for': address } });
      const statuses = [];
      for (let n = 0; n < 2 * LIMIT; n++) statuses.push((await firstLoad()).status);
      expect(statuses).toEqual(Array<number>(2 * LIMIT).fill(401));
      // The address's refused refreshes are all still there to spend; a stale cookie is a refusal that counts.
      const refreshToken = await signedIn(102, address);
      const stale = () =>
        fetch(`${url}/v1/auth/console-session/refresh`, { method: 'POST', headers: { 'x-console-session': '1', 'x-forwarded-for': address, cookie: 'ac_console_session=stale' } });
      for (let n = 0; n < LIMIT; n++) expect((await stale()).status).toBe(401);
      expect((await stale()).status).toBe(429);
      expect((await post('/v1/auth/refresh', address, { refreshToken })).status).toBe(429);
    });
  });
});
