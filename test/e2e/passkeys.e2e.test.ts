import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { oathtoolTotp } from '../support/oathtool';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { startTestApp, type TestApp } from '../support/test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
const ORIGIN = 'https://id.example.test';

/**
 * Passkeys as a second factor (#24), over HTTP: registration, sign-in with an assertion, counters, single-use
 * challenges, rename and removal. Responses come from a software authenticator written from the WebAuthn text
 * (test/support/soft-authenticator.ts); the browser test drives Chromium's own.
 */
describe('second factor: passkeys (WebAuthn, #24)', () => {
  let app: TestApp;
  let admin: string;
  let counter = 0;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '6', PUBLIC_URL: ORIGIN });
    admin = await app.signIn();
  });
  afterAll(async () => app?.close());

  const signIn = (username: string, password: string) => app.request('POST', '/v1/auth/signin', { json: { username, password } });
  const secondStep = (json: unknown) => app.request('POST', '/v1/auth/signin/mfa', { json });
  /** Registration options, on the caller's password. */
  const options = async ({ token, password }: { token: string; password: string }) => {
    const answer = await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token, json: { password } });
    expect(answer.status).toBe(200);
    return answer.body;
  };

  const person = async () => {
    counter += 1;
    const username = `pk-${counter}`;
    const password = `${username}-long-password`;
    const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
    const token = (await signIn(username, password)).body.accessToken as string;
    return { id: user.id, username, password, token, authenticator: new SoftAuthenticator(ORIGIN) };
  };

  /** A user with one passkey registered through the API, and the recovery codes that came with it. */
  const withPasskey = async () => {
    const p = await person();
    const registered = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { name: 'Laptop', response: p.authenticator.create(await options(p)) } });
    expect(registered.status).toBe(201);
    return { ...p, passkeyId: registered.body.id as string, recoveryCodes: registered.body.recovery_codes as string[] };
  };

  it('registers passkeys: options for PUBLIC_URL’s relying party, several per user with names, recovery codes with the first only', async () => {
    const p = await person();
    const first = await options(p);
    expect(first).toMatchObject({ rp: { id: 'id.example.test' }, user: { name: p.username }, challenge: expect.any(String) });
    const registered = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { name: '  Laptop ', response: p.authenticator.create(first) } });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ name: 'Laptop', id: expect.any(String), created_date: expect.any(String) });
    expect(registered.body.recovery_codes).toHaveLength(10);

    const second = await options(p);
    expect(second.excludeCredentials).toEqual([expect.objectContaining({ id: p.authenticator.ids[0] })]);
    const another = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: p.authenticator.create(second) } });
    expect(another.status).toBe(201);
    expect(another.body.name).toBe('Passkey 2');
    expect(another.body.recovery_codes).toBeUndefined();

    const listed = await app.request('GET', '/v1/me/mfa', { token: p.token });
    expect(listed.body).toEqual({
      factors: [
        expect.objectContaining({ type: 'webauthn', id: registered.body.id, name: 'Laptop', confirmed: true }),
        expect.objectContaining({ type: 'webauthn', id: another.body.id, name: 'Passkey 2', confirmed: true }),
      ],
      recovery_codes_remaining: 10,
    });
    for (const id of p.authenticator.ids) expect(listed.text).not.toContain(id);
  });

  it('refuses a registration whose challenge is used, someone else’s, or for another origin', async () => {
    const p = await person();
    const other = await person();
    const given = await options(p);
    const response = p.authenticator.create(given);
    expect((await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response } })).status).toBe(201);
    const replayed = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response } });
    expect(replayed.status).toBe(400);
    expect(replayed.body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    const theirs = other.authenticator.create(await options(p));
    expect((await app.request('POST', '/v1/me/mfa/webauthn', { token: other.token, json: { response: theirs } })).body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    const phished = p.authenticator.create(await options(p), { origin: 'https://id.example.evil' });
    expect((await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: phished } })).body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    const wrongType = p.authenticator.create(await options(p), { type: 'webauthn.get' });
    expect((await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: wrongType } })).body.code).toBe('INVALID_WEBAUTHN_RESPONSE');
    const malformed = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: { id: 'x', rawId: 'x', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'e30', attestationObject: 'oA' } } } });
    expect(malformed.status).toBe(400);
  });

  it('refuses a key no assertion could verify, or one anyone could sign for: off the curve, a short modulus, a small-order Ed25519 point', async () => {
    const p = await person();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const octets = (value: string | undefined) => Buffer.from(value!, 'base64url');
    const refused = {
      'a point off the curve': new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, octets(ec.x)], [-3, Buffer.alloc(32, 7)]]),
      'a one-octet modulus': new Map<number, unknown>([[1, 3], [3, -257], [-1, Buffer.from([5])], [-2, octets(rsa.e)]]),
      'a 4096-octet modulus': new Map<number, unknown>([[1, 3], [3, -257], [-1, Buffer.concat([Buffer.from([0x80]), randomBytes(4095)])], [-2, octets(rsa.e)]]),
      'an exponent of 1': new Map<number, unknown>([[1, 3], [3, -257], [-1, octets(rsa.n)], [-2, Buffer.from([1])]]),
      'the Ed25519 identity point': new Map<number, unknown>([[1, 1], [3, -8], [-1, 6], [-2, Buffer.concat([Buffer.from([1]), Buffer.alloc(31)])]]),
    };
    for (const [what, coseKey] of Object.entries(refused)) {
      const answer = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: p.authenticator.create(await options(p), { coseKey }) } });
      expect([what, answer.status, answer.body.code]).toEqual([what, 400, 'INVALID_WEBAUTHN_RESPONSE']);
    }
    // The same shapes with sound numbers register.
    const sound = [
      new Map<number, unknown>([[1, 3], [3, -257], [-1, octets(rsa.n)], [-2, octets(rsa.e)]]),
      new Map<number, unknown>([[1, 1], [3, -8], [-1, 6], [-2, octets(ed.x)]]),
    ];
    for (const coseKey of sound) {
      expect((await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: p.authenticator.create(await options(p), { coseKey }) } })).status).toBe(201);
    }
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body.factors).toHaveLength(2);
  });

  it('signs in with the password, then an assertion: the MFA_REQUIRED problem offers its options; the seed’s result follows', async () => {
    const p = await withPasskey();
    const first = await signIn(p.username, p.password);
    expect(first.status).toBe(401);
    expect(first.body).toMatchObject({ code: 'MFA_REQUIRED', methods: ['webauthn', 'recovery_code'], webauthn_options: { rpId: 'id.example.test', allowCredentials: [{ id: p.authenticator.ids[0], type: 'public-key' }] } });
    const assertion = p.authenticator.get(first.body.webauthn_options);
    const done = await secondStep({ mfa_token: first.body.mfa_token, webauthn: assertion });
    expect(done.status).toBe(200);
    expect(Object.keys(done.body).sort()).toEqual(['accessToken', 'email', 'name', 'refreshToken', 'role', 'username']);
    expect((await app.request('GET', '/v1/me', { token: done.body.accessToken })).status).toBe(200);
    const listed = await app.request('GET', '/v1/me/mfa', { token: done.body.accessToken });
    expect(listed.body.factors[0].last_used_date).toEqual(expect.any(String));

    // The same assertion again, with a fresh ticket: its challenge is used.
    const again = await signIn(p.username, p.password);
    const replay = await secondStep({ mfa_token: again.body.mfa_token, webauthn: assertion });
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_MFA_CODE');
  });

  it('refuses a regressed counter, and new options for the ticket let the next assertion through', async () => {
    const p = await withPasskey();
    const first = await signIn(p.username, p.password);
    expect((await secondStep({ mfa_token: first.body.mfa_token, webauthn: p.authenticator.get(first.body.webauthn_options, { counter: 5 }) })).status).toBe(200);

    const second = await signIn(p.username, p.password);
    const cloned = await secondStep({ mfa_token: second.body.mfa_token, webauthn: p.authenticator.get(second.body.webauthn_options, { counter: 5 }) });
    expect(cloned.status).toBe(400);
    expect(cloned.body.code).toBe('INVALID_MFA_CODE');
    const fresh = await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: second.body.mfa_token } });
    expect(fresh.status).toBe(200);
    expect(fresh.body.challenge).not.toBe(second.body.webauthn_options.challenge);
    const done = await secondStep({ mfa_token: second.body.mfa_token, webauthn: p.authenticator.get(fresh.body, { counter: 6 }) });
    expect(done.status).toBe(200);
  });

  it('new assertion options need a good mfa_token of a user with a passkey', async () => {
    const unknown = await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: 'no-such-ticket' } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('INVALID_MFA_TOKEN');
    const p = await person();
    const started = await app.request('POST', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(started.body.secret) } });
    const ticket = (await signIn(p.username, p.password)).body.mfa_token;
    const none = await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: ticket } });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('MFA_NOT_ENABLED');
    expect((await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: {} })).status).toBe(400);
  });

  it('a wrong password answers the same options; a valid assertion on its ticket is refused as a forged one, the passkey untouched', async () => {
    const p = await withPasskey();
    const wrong = await signIn(p.username, 'not-the-password-at-all');
    const right = await signIn(p.username, p.password);
    const blank = (answer: typeof wrong) => answer.text.replace(answer.body.mfa_token, '<t>').replace(answer.body.webauthn_options.challenge, '<c>');
    expect([wrong.status, blank(wrong)]).toEqual([right.status, blank(right)]);
    expect(wrong.body.webauthn_options.allowCredentials).toEqual([expect.objectContaining({ id: p.authenticator.ids[0] })]);
    // New options for its ticket too, of the same shape; a valid assertion over them is refused as a forged one is.
    const fresh = await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: wrong.body.mfa_token } });
    expect(fresh.status).toBe(200);
    expect(Object.keys(fresh.body).sort()).toEqual(Object.keys(wrong.body.webauthn_options).sort());
    const refused = await secondStep({ mfa_token: wrong.body.mfa_token, webauthn: p.authenticator.get(fresh.body) });
    expect([refused.status, refused.body.code, refused.body.accessToken]).toEqual([400, 'INVALID_MFA_CODE', undefined]);
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body.factors[0].last_used_date).toBeUndefined();
    // The right password's ticket, with the same authenticator: signed in (the stored counter was left where it was).
    expect((await secondStep({ mfa_token: right.body.mfa_token, webauthn: p.authenticator.get(right.body.webauthn_options) })).status).toBe(200);
  });

  it('an assertion of another user’s passkey, or a forged signature, is refused and counts toward the lockout', async () => {
    const p = await withPasskey();
    const other = await withPasskey();
    // Threshold 6: each round is two evaluations, the password step and its forged assertion.
    for (let i = 0; i < 3; i++) {
      const first = await signIn(p.username, p.password);
      expect(first.body.code).toBe('MFA_REQUIRED');
      const options = first.body.webauthn_options;
      const forged = i % 2 === 0 ? other.authenticator.get({ ...options, allowCredentials: [] }) : { ...p.authenticator.get(options), response: { ...p.authenticator.get(options).response, signature: 'MEUCIQ' } };
      const refused = await secondStep({ mfa_token: first.body.mfa_token, webauthn: forged });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('INVALID_MFA_CODE');
    }
    // Locked: the right password answers as a wrong one does, and the owner's own passkey is refused on its ticket.
    const locked = await signIn(p.username, p.password);
    expect([locked.status, locked.body.code]).toEqual([401, 'MFA_REQUIRED']);
    const refused = await secondStep({ mfa_token: locked.body.mfa_token, webauthn: p.authenticator.get(locked.body.webauthn_options) });
    expect([refused.status, refused.body.code, refused.body.accessToken]).toEqual([400, 'INVALID_MFA_CODE', undefined]);
  });

  it('renames a passkey; removes it on the password or a current authenticator code; the recovery codes go with the last factor', async () => {
    const p = await withPasskey();
    const renamed = await app.request('PATCH', `/v1/me/mfa/webauthn/${p.passkeyId}`, { token: p.token, json: { name: 'Work laptop' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Work laptop');
    expect((await app.request('PATCH', '/v1/me/mfa/webauthn/no-such-passkey', { token: p.token, json: { name: 'x' } })).status).toBe(404);
    expect((await app.request('PATCH', `/v1/me/mfa/webauthn/${p.passkeyId}`, { token: admin, json: { name: 'x' } })).status).toBe(404);

    const started = await app.request('POST', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    // Every code below is oathtool's for this instant (a step boundary between two calls would shift "the next step").
    const at = new Date();
    const confirmed = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(started.body.secret, 0, at) } });
    expect(confirmed.status).toBe(200);
    const wrong = await app.request('DELETE', `/v1/me/mfa/webauthn/${p.passkeyId}`, { token: p.token, json: { password: 'not-the-password-at-all' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('WRONG_CURRENT_PASSWORD');
    const wrongCode = await app.request('DELETE', `/v1/me/mfa/webauthn/${p.passkeyId}`, { token: p.token, json: { code: oathtoolTotp(started.body.secret, -20, at) } });
    expect(wrongCode.status).toBe(400);
    expect(wrongCode.body.code).toBe('INVALID_MFA_CODE');
    expect((await app.request('DELETE', `/v1/me/mfa/webauthn/${p.passkeyId}`, { token: p.token, json: { code: oathtoolTotp(started.body.secret, 1, at) } })).status).toBe(204);
    expect((await app.request('DELETE', `/v1/me/mfa/webauthn/${p.passkeyId}`, { token: p.token, json: { password: p.password } })).status).toBe(404);
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body).toMatchObject({ factors: [{ type: 'totp' }], recovery_codes_remaining: 10 });

    // The authenticator app goes on a current code of its own too: the last factor, and the recovery codes with it.
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: p.token, json: { code: oathtoolTotp(started.body.secret, 1, at) } })).status).toBe(400);
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: p.token, json: { code: oathtoolTotp(started.body.secret, -1, at) } })).status).toBe(400);
    const removed = await app.request('DELETE', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    expect(removed.status).toBe(204);
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body).toEqual({ factors: [], recovery_codes_remaining: 0 });
    expect((await signIn(p.username, p.password)).status).toBe(200);
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password, code: '123456' } })).status).toBe(400);
    // Each removal says what is left (review H): the passkey went with the app still there, then the app, the last.
    const { dataSource } = app.api.container.cradle;
    const removals: { payload: string }[] = await dataSource.query("SELECT payload FROM outbox_events WHERE aggregate_id = ? AND type = 'UserMfaRemoved' ORDER BY occurred_at, id", [p.id]);
    expect(removals.map((e) => JSON.parse(e.payload)).map((d) => [d.factor_types, d.remaining_factor_types])).toEqual([
      [['webauthn'], ['totp']],
      [['totp'], []],
    ]);
  });

  it('an admin’s reset removes the passkeys with the rest; events and audit entries carry no key', async () => {
    const p = await withPasskey();
    const first = await signIn(p.username, p.password);
    expect((await secondStep({ mfa_token: first.body.mfa_token, webauthn: p.authenticator.get(first.body.webauthn_options) })).status).toBe(200);
    const second = await signIn(p.username, p.password);
    expect((await secondStep({ mfa_token: second.body.mfa_token, webauthn: p.authenticator.get(second.body.webauthn_options, { counter: 1 }) })).status).toBe(400);
    expect((await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin })).status).toBe(204);
    expect((await signIn(p.username, p.password)).status).toBe(200);

    const { dataSource } = app.api.container.cradle;
    const events: { type: string; payload: string }[] = await dataSource.query("SELECT type, payload FROM outbox_events WHERE aggregate_id = ? AND type LIKE 'UserMfa%' ORDER BY occurred_at, id", [p.id]);
    expect(events.map((e) => [e.type, JSON.parse(e.payload).factor_type ?? JSON.parse(e.payload).factor_types, JSON.parse(e.payload).remaining_factor_types])).toEqual([
      ['UserMfaEnrolled', 'webauthn', undefined],
      ['UserMfaRemoved', ['webauthn'], []],
    ]);
    let entries: { action: string; outcome: string; code: string | null }[] = [];
    let text = '';
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const page = await app.request('GET', `/v1/audit-events?target=${p.id}&page_size=100`, { token: admin });
      text = page.text;
      entries = page.body.audit_events;
      if (entries.some((e) => e.action === 'mfa.removed')) break;
    }
    expect(entries.map((e) => `${e.action} ${e.outcome} ${e.code}`)).toEqual(
      expect.arrayContaining([
        'mfa.enrollment_started success webauthn',
        'mfa.enrolled success webauthn',
        'auth.mfa_failed failure webauthn_counter_regressed',
        'auth.signin_succeeded success webauthn',
        'mfa.removed success null',
      ]),
    );
    for (const id of p.authenticator.ids) expect(text).not.toContain(id);
  });
});
