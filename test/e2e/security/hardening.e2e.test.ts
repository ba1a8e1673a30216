import { generateKeyPairSync } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { asValue } from 'awilix';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { CapturingMailer } from '../../support/capturing-mailer';
import { ADMIN, startTestApp, type TestApp } from '../../support/test-app';
import { decodeJwt, signJwt } from '../../support/tokens';

const pem = (key: { export(o: object): string | Buffer }, type: 'pkcs8' | 'spki') => key.export({ format: 'pem', type }).toString();

/** Sign-out, signing-key rotation, header limits, common passwords, throttling: each over HTTP on MariaDB. */
describe('security hardening', () => {
  const retired = generateKeyPairSync('ed25519');
  const mailer = new CapturingMailer();
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(
      {
        JWT_PREVIOUS_PUBLIC_KEYS: pem(retired.publicKey, 'spki'),
        ADDRESS_RATE_LIMIT: '1000',
        INVITE_RATE_LIMIT: '5',
      },
      { mailer: asValue(mailer) },
    );
  });
  afterAll(async () => app.close());

  describe('sign-out', () => {
    it('ends every token of the user at once (204, then 401 for both), and a new sign-in works', async () => {
      const user = await app.addJoinedUser({ username: 'leaver', password: 'leaver-password-1', email: 'leaver@example.com', role: { id: SEEDED_ROLES.admin, name: 'admin', permissions: ['users:read', 'users:invite', 'permissions:read'] } });
      const first = await app.signIn('leaver', 'leaver-password-1');
      const second = await app.signIn('leaver', 'leaver-password-1');
      expect((await app.request('GET', '/v1/users', { token: first })).status).toBe(200);
      expect(decodeJwt(first).payload.ver).toBe(0);

      const out = await app.request('POST', '/v1/auth/signout', { token: first });
      expect(out.status).toBe(204);
      expect(out.text).toBe('');

      for (const token of [first, second]) {
        const refused = await app.request('GET', '/v1/users', { token });
        expect(refused.status).toBe(401);
        expect(refused.body.code).toBe('UNAUTHENTICATED');
      }
      expect((await app.request('POST', '/v1/auth/signout', { token: first })).status).toBe(401);
      const again = await app.signIn('leaver', 'leaver-password-1');
      expect(decodeJwt(again).payload.ver).toBe(1);
      expect((await app.request('GET', '/v1/users', { token: again })).status).toBe(200);
      expect((await app.api.container.cradle.userRepository.findById(user.id))!.tokenVersion).toBe(1);
    });

    it('needs a token', async () => {
      expect((await app.request('POST', '/v1/auth/signout')).status).toBe(401);
    });
  });

  describe('signing-key rotation', () => {
    it('publishes the current key first and the retired one after it in the JWKS, each with its own algorithm', async () => {
      const jwks = await app.request('GET', '/.well-known/jwks.json');
      expect(jwks.body.keys.map((k: { alg: string; kty: string }) => `${k.alg}/${k.kty}`)).toEqual(['ES256/EC', 'EdDSA/OKP']);
      const kids = jwks.body.keys.map((k: { kid: string }) => k.kid);
      expect(kids).toHaveLength(2);
      expect(kids[0]).toBe(app.api.container.cradle.signingKey.kid);
      expect(jwks.body.keys[1].x).toBe((retired.publicKey.export({ format: 'jwk' }) as { x: string }).x);
    });

    it('accepts a token of the retired EdDSA key under its kid beside the current ES256 key, refuses it under another kid or an unknown kid', async () => {
      const fresh = await app.signIn();
      const { payload } = decodeJwt(fresh);
      const retiredKid = (await app.request('GET', '/.well-known/jwks.json')).body.keys[1].kid as string;
      const old = signJwt(pem(retired.privateKey, 'pkcs8'), payload, { kid: retiredKid });
      expect((await app.request('GET', '/v1/users', { token: old })).status).toBe(200);

      const underCurrentKid = signJwt(pem(retired.privateKey, 'pkcs8'), payload, { kid: app.api.container.cradle.signingKey.kid });
      expect((await app.request('GET', '/v1/users', { token: underCurrentKid })).status).toBe(401);
      const unknownKid = signJwt(pem(retired.privateKey, 'pkcs8'), payload, { kid: 'no-such-key' });
      expect((await app.request('GET', '/v1/users', { token: unknownKid })).status).toBe(401);
    });
  });

  describe('limits', () => {
    it('answers 431 problem+json with a request id to a request head over 16 KiB, and serves a 15 KiB header', async () => {
      const send = (size: number) =>
        new Promise<{ status: number; type: string | undefined; id: string | undefined; body: string }>((resolve, reject) => {
          const url = new URL(`${app.url}/healthz`);
          const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers: { 'x-padding': 'a'.repeat(size) } }, (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], id: res.headers['x-request-id'] as string | undefined, body }));
          });
          req.on('error', reject);
          req.end();
        });
      expect((await send(15 * 1024)).status).toBe(200);
      const refused = await send(17 * 1024);
      expect(refused.status).toBe(431);
      expect(refused.type).toBe('application/problem+json; charset=utf-8');
      expect(refused.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(refused.body)).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE', type: 'urn:problem:access-control:headers-too-large' });
    });

    it('answers 417 problem+json with a request id to an Expect other than 100-continue, and still serves 100-continue', async () => {
      const send = (expect: string) =>
        new Promise<{ status: number; type: string | undefined; id: string | undefined; body: string }>((resolve, reject) => {
          const url = new URL(`${app.url}/v1/auth/signin`);
          const req = httpRequest(
            { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { expect, 'content-type': 'application/json' } },
            (res) => {
              let body = '';
              res.on('data', (chunk: Buffer) => (body += chunk.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], id: res.headers['x-request-id'] as string | undefined, body }));
            },
          );
          req.on('continue', () => req.end(JSON.stringify({ username: 'nobody-here', password: 'not the password' })));
          req.on('error', reject);
          if (expect !== '100-continue') req.end();
        });
      const refused = await send('something-else');
      expect(refused.status).toBe(417);
      expect(refused.type).toBe('application/problem+json; charset=utf-8');
      expect(refused.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(refused.body)).toMatchObject({ status: 417, code: 'EXPECTATION_FAILED', type: 'urn:problem:access-control:expectation-failed' });
      // 100-continue within BODY_LIMIT: the body follows and the route runs (an unknown user: 401).
      expect((await send('100-continue')).status).toBe(401);
    });

    it('answers 413 at once to 100-continue with a declared length over BODY_LIMIT, so the body is never sent', async () => {
      const url = new URL(`${app.url}/v1/auth/signin`);
      let continued = false;
      const answer = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { expect: '100-continue', 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) } },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
          },
        );
        req.on('continue', () => {
          continued = true;
          req.destroy();
        });
        req.on('error', reject);
        req.flushHeaders();
      });
      expect(continued).toBe(false);
      expect(answer.status).toBe(413);
      expect(answer.type).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    });

    it('answers 405 with Allow to a known path asked with another method, before authentication; an unknown /v1 path stays 401', async () => {
      const cases: [string, string, string][] = [
        ['DELETE', '/v1/auth/signin', 'POST'],
        // DELETE /v1/users/invite is no longer a wrong method: it is DELETE /v1/users/{id} with the id "invite" (401, then 400).
        ['PUT', '/v1/users/01a20948-a570-73ae-96fd-28d72d8a18e9', 'DELETE, GET, HEAD, PATCH'],
        ['PUT', '/v1/users', 'GET, HEAD'],
        ['GET', '/v1/users/01a20948-a570-73ae-96fd-28d72d8a18e9/invitation/resend', 'POST'],
        ['POST', '/healthz', 'GET, HEAD'],
        ['PATCH', '/v1/users/?page=2', 'GET, HEAD'],
        // Discovery is no OAuth endpoint: its wrong method stays problem+json (the OAuth endpoints' is OAuth's JSON).
        ['POST', '/.well-known/openid-configuration', 'GET, HEAD, OPTIONS'],
      ];
      for (const [method, path, allow] of cases) {
        const response = await app.request(method, path);
        expect({ method, path, status: response.status, allow: response.headers.get('allow'), code: response.body?.code }).toEqual({ method, path, status: 405, allow, code: 'METHOD_NOT_ALLOWED' });
        expect(response.headers.get('x-request-id')).toBeTruthy();
      }
      expect((await app.request('GET', '/v1/no-such-thing')).status).toBe(401);
      expect((await app.request('GET', '/no-such-thing')).status).toBe(404);
    });

    it('answers 415 problem+json to a text/plain body on a JSON route, as to any other non-JSON body', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const response = await app.request('POST', '/v1/auth/signin', { body: 'username=a&password=b', headers: { 'content-type': type } });
        expect({ type, status: response.status, code: response.body?.code }).toEqual({ type, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    });
  });

  describe('empty JSON bodies', () => {
    it('takes an empty body sent as application/json as no body: a route that needs none answers, one that needs one names the body', async () => {
      const token = await app.signIn();
      const json = { 'content-type': 'application/json' };
      // POST /v1/auth/signout takes no body: clients that set the JSON type on every request are served.
      const out = await app.request('POST', '/v1/auth/signout', { token, body: '', headers: json });
      expect(out.status).toBe(204);
      const signIn = await app.request('POST', '/v1/auth/signin', { body: '', headers: json });
      expect({ status: signIn.status, code: signIn.body.code, field: signIn.body.errors?.[0]?.field }).toEqual({ status: 400, code: 'VALIDATION_FAILED', field: 'body' });
      // Anything but empty is still read as JSON: a cut body is MALFORMED_JSON, a __proto__ key refused naming it.
      expect((await app.request('POST', '/v1/auth/signin', { body: ' ', headers: json })).body.code).toBe('MALFORMED_JSON');
      const proto = await app.request('POST', '/v1/auth/signin', { body: '{"__proto__": {"x": 1}}', headers: json });
      expect({ code: proto.body.code, field: proto.body.errors?.[0]?.field }).toEqual({ code: 'VALIDATION_FAILED', field: '__proto__' });
    });
  });

  describe('passwords', () => {
    it('refuses a common password when an invitation is accepted: 400 with field password', async () => {
      const token = await app.signIn();
      expect((await app.request('POST', '/v1/users/invite', { token, json: { email: 'common@example.com' } })).status).toBe(201);
      const deadline = Date.now() + 10_000;
      while (!mailer.sent.some((m) => m.to === 'common@example.com') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const secret = CapturingMailer.tokenOf(mailer.lastTo('common@example.com'));

      const refused = await app.request('POST', '/v1/invitations/accept', {
        json: { token: secret, name: 'Common', username: 'common', password: 'Password1234' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ field: 'password', message: expect.stringMatching(/common/) }]);

      // Its own username or the invited address: refused alike, and the link still works.
      for (const [username, password] of [['common.user.name', 'Common.User.Name'], ['common', 'COMMON@example.com']]) {
        const own = await app.request('POST', '/v1/invitations/accept', { json: { token: secret, name: 'Common', username, password } });
        expect({ password, status: own.status, errors: own.body.errors }).toEqual({
          password,
          status: 400,
          errors: [{ field: 'password', message: 'must not be your username or e-mail address' }],
        });
      }

      const accepted = await app.request('POST', '/v1/invitations/accept', {
        json: { token: secret, name: 'Common', username: 'common', password: 'violet cactus under a tin roof' },
      });
      expect(accepted.status).toBe(200);
    });
  });

  describe('per-inviter rate limit (INVITE_RATE_LIMIT=5)', () => {
    it('lets 5 invites and resends through in a minute, then answers 429 problem+json with Retry-After', async () => {
      const inviter = await app.addJoinedUser({ username: 'busy', password: 'busy-inviter-pw', email: 'busy@example.com', role: { id: SEEDED_ROLES.admin, name: 'admin', permissions: ['users:read', 'users:invite', 'permissions:read'] } });
      expect(inviter.id).toBeDefined();
      const token = await app.signIn('busy', 'busy-inviter-pw');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        statuses.push((await app.request('POST', '/v1/users/invite', { token, json: { email: `burst${i}@example.com` } })).status);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201]);
      const limited = await app.request('POST', '/v1/users/invite', { token, json: { email: 'burst5@example.com' } });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(limited.body.code).toBe('TOO_MANY_REQUESTS');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Resends share the inviter's budget; another inviter is not affected.
      const users = (await app.request('GET', '/v1/users?page_size=100', { token })).body.users as { _id: string; email: string }[];
      const pending = users.find((u) => u.email === 'burst0@example.com')!;
      expect((await app.request('POST', `/v1/users/${pending._id}/invitation/resend`, { token })).status).toBe(429);
      const admin = await app.signIn();
      expect((await app.request('POST', `/v1/users/${pending._id}/invitation/resend`, { token: admin })).status).toBe(202);
    });
  });
});

describe('per-address throttling (ADDRESS_RATE_LIMIT=5)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ADDRESS_RATE_LIMIT: '5' });
  });
  afterAll(async () => app.close());

  it('answers the 6th sign-in of a minute from one address with 429 and Retry-After, before any password work', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await app.request('POST', '/v1/auth/signin', { json: { username: 'nobody', password: 'whatever-password' } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = await app.request('POST', '/v1/invitations/accept', { json: { token: 'x', name: 'x', username: 'x', password: 'x' } });
    expect([404, 400, 429]).toContain(limited.status);
    const sixth = await app.request('POST', '/v1/auth/signin', { json: { username: 'nobody', password: 'whatever-password' } });
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('ignores X-Forwarded-For from a client that is not a trusted proxy', async () => {
    const spoofed = await app.request('POST', '/v1/auth/signin', {
      json: { username: 'nobody', password: 'whatever-password' },
      headers: { 'x-forwarded-for': '203.0.113.99' },
    });
    expect(spoofed.status).toBe(429);
  });
});

describe('sign-out across replicas', () => {
  it('ends the token at once on another replica sharing the database and keys', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keys = {
      JWT_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      JWT_PUBLIC_KEY: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    };
    const first = await startTestApp(keys);
    const second = await startTestApp(keys, {}, first.database);
    try {
      const token = await first.signIn();
      // The second replica has just used (and could have cached) this token's user.
      expect((await second.request('GET', '/v1/users', { token })).status).toBe(200);
      expect((await first.request('POST', '/v1/auth/signout', { token })).status).toBe(204);
      expect((await second.request('GET', '/v1/users', { token })).status).toBe(401);
      expect((await first.request('GET', '/v1/users', { token })).status).toBe(401);
      // A fresh sign-in works on either.
      expect((await second.request('GET', '/v1/users', { token: await first.signIn() })).status).toBe(200);
    } finally {
      await second.api.close();
      await first.close();
    }
  });

  it('serves a known token without reading its user while the revocation signal is trusted, and reads it again once the signal is lost', async () => {
    // A window wide enough that a loaded test machine's slow poll does not make the signal lapse (it would read afresh).
    const app = await startTestApp({ REVOCATION_WINDOW: '3s' });
    try {
      const { dataSource, revocationWatch } = app.api.container.cradle;
      // The signal trusted when a request comes: on a loaded machine the last poll may be near the window's end (or
      // still running), and the replica then rightly reads the user afresh (fail closed), which is not this case.
      // Both requests below need it: the first keeps the user on the signal's word, the second is served from it.
      const trusted = async () => {
        await revocationWatch.poll();
        await until(async () => revocationWatch.current() !== null);
      };
      const token = await app.signIn();
      await trusted();
      expect((await app.request('GET', '/v1/roles', { token })).status).toBe(200);
      // An operator's edit straight in the table moves no epoch: a replica trusting its signal does not see it...
      await dataSource.query("UPDATE users SET status = 'deactivated' WHERE username_key = ?", [ADMIN.username.toLowerCase()]);
      await trusted();
      expect((await app.request('GET', '/v1/roles', { token })).status).toBe(200);
      // ...until the user's shard moves on, as every change through the service moves it: then at the next request.
      await dataSource.query('UPDATE revocation_epochs SET epoch = epoch + 1');
      await until(() => app.request('GET', '/v1/roles', { token }).then((r) => r.status === 401));
      await dataSource.query("UPDATE users SET status = 'active' WHERE username_key = ?", [ADMIN.username.toLowerCase()]);
      await dataSource.query('UPDATE revocation_epochs SET epoch = epoch + 1');
      await until(() => app.request('GET', '/v1/roles', { token }).then((r) => r.status === 200));
      // The signal lost (its poll stopped): within the window every request reads its user again (fail closed).
      revocationWatch.stop();
      await new Promise((resolve) => setTimeout(resolve, app.api.container.cradle.config.revocationWindowSeconds * 1000 + 50));
      await dataSource.query("UPDATE users SET status = 'deactivated' WHERE username_key = ?", [ADMIN.username.toLowerCase()]);
      expect((await app.request('GET', '/v1/roles', { token })).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

/** Polls `check` until it holds, for at most 5 s (a few polls of a 3 s window). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
