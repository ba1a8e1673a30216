import { randomBytes } from 'node:crypto';
import { SealedSignInTickets } from '../../../src/infrastructure/crypto/sealed-sign-in-tickets';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { oathtoolTotp } from '../../support/oathtool';
import { SoftAuthenticator } from '../../support/soft-authenticator';
import { startTestApp, type TestApp, type TestResponse } from '../../support/test-app';

const ORIGIN = 'https://id.example.test';
const member = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

/**
 * The second step against forged, expired, replayed and borrowed tickets, codes and assertions, and malformed or
 * oversized bodies (#24): each a clear problem+json with its stable code, never a 500, never a session.
 */
describe('the second step refuses forged, expired, replayed and malformed input', () => {
  let app: TestApp;
  const people: Record<'ada' | 'bob', { id: string; username: string; password: string; secret: string; authenticator: SoftAuthenticator }> = {} as never;

  beforeAll(async () => {
    app = await startTestApp({ PUBLIC_URL: ORIGIN, LOCKOUT_THRESHOLD: '1000' });
    for (const username of ['ada', 'bob'] as const) {
      const password = `${username}-long-password`;
      const user = await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
      const token = await app.signIn(username, password);
      const started = await app.request('POST', '/v1/me/mfa/totp', { token, json: { password } });
      await app.request('POST', '/v1/me/mfa/totp/confirm', { token, json: { code: oathtoolTotp(started.body.secret) } });
      const authenticator = new SoftAuthenticator(ORIGIN);
      const options = (await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token, json: { password } })).body;
      expect((await app.request('POST', '/v1/me/mfa/webauthn', { token, json: { response: authenticator.create(options) } })).status).toBe(201);
      people[username] = { id: user.id, username, password, secret: started.body.secret, authenticator };
    }
  });
  afterAll(async () => app?.close());

  const ticket = async (who: 'ada' | 'bob') => {
    const answer = await app.request('POST', '/v1/auth/signin', { json: { username: people[who].username, password: people[who].password } });
    expect(answer.body.code).toBe('MFA_REQUIRED');
    return { token: answer.body.mfa_token as string, options: answer.body.webauthn_options };
  };
  const secondStep = (json: unknown) => app.request('POST', '/v1/auth/signin/mfa', { json });
  const refused = (answer: TestResponse, status: number, code: string) => {
    expect({ status: answer.status, code: answer.body?.code, type: answer.headers.get('content-type') }).toEqual({ status, code, type: expect.stringMatching(/^application\/problem\+json/) });
    expect(answer.body.accessToken).toBeUndefined();
  };

  it('refuses forged mfa_tokens: random ones, changed, sealed with another key, naming another user, and an expired or used ticket even with a right code', async () => {
    refused(await secondStep({ mfa_token: 'A'.repeat(43), code: oathtoolTotp(people.ada.secret) }), 401, 'INVALID_MFA_TOKEN');
    const { signInTickets, clock } = app.api.container.cradle;
    const real = await ticket('ada');
    // One character of the sealed body changed (not the last, whose low bits base64url may not carry).
    const flipped = `${real.token.slice(0, 10)}${real.token[10] === 'A' ? 'B' : 'A'}${real.token.slice(11)}`;
    refused(await secondStep({ mfa_token: flipped, code: oathtoolTotp(people.ada.secret) }), 401, 'INVALID_MFA_TOKEN');
    const claims = { userId: people.ada.id, accountKey: 'ada', issuedAtMicros: clock.now().getTime() * 1000, passwordMatched: true, tokenVersion: 0 };
    refused(await secondStep({ mfa_token: new SealedSignInTickets(randomBytes(32)).issue(claims), code: oathtoolTotp(people.ada.secret) }), 401, 'INVALID_MFA_TOKEN');
    // A ticket of ours naming ada's id under bob's name (no password step hands that out): the name must be the holder's.
    refused(await secondStep({ mfa_token: signInTickets.issue({ ...claims, accountKey: 'bob' }), code: oathtoolTotp(people.ada.secret) }), 401, 'INVALID_MFA_TOKEN');
    const expired = signInTickets.issue({ ...claims, issuedAtMicros: (clock.now().getTime() - 300_001) * 1000 });
    refused(await secondStep({ mfa_token: expired, code: oathtoolTotp(people.ada.secret, 1) }), 401, 'INVALID_MFA_TOKEN');
    const done = await secondStep({ mfa_token: real.token, webauthn: people.ada.authenticator.get(real.options) });
    expect(done.status).toBe(200);
    refused(await secondStep({ mfa_token: real.token, webauthn: people.ada.authenticator.get(real.options) }), 401, 'INVALID_MFA_TOKEN');
    refused(await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: real.token } }), 401, 'INVALID_MFA_TOKEN');
  });

  it('refuses another user’s factor on a ticket: bob’s code, bob’s passkey, bob’s challenge', async () => {
    const ada = await ticket('ada');
    const bob = await ticket('bob');
    refused(await secondStep({ mfa_token: ada.token, code: oathtoolTotp(people.bob.secret, 1) }), 400, 'INVALID_MFA_CODE');
    refused(await secondStep({ mfa_token: ada.token, webauthn: people.bob.authenticator.get(bob.options) }), 400, 'INVALID_MFA_CODE');
    // Ada's passkey signing over a challenge handed to bob's sign-in.
    refused(await secondStep({ mfa_token: ada.token, webauthn: people.ada.authenticator.get({ ...bob.options, allowCredentials: [] }) }), 400, 'INVALID_MFA_CODE');
  });

  it('refuses tampered assertions: another challenge, another origin, a registration challenge, a changed signature or client data', async () => {
    // Ada's session first: a completed sign-in ends the tickets of her account issued before it.
    const session = await sessionOf('ada');
    const t = await ticket('ada');
    const a = people.ada.authenticator;
    refused(await secondStep({ mfa_token: t.token, webauthn: a.get({ ...t.options, challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZQ' }) }), 400, 'INVALID_MFA_CODE');
    refused(await secondStep({ mfa_token: t.token, webauthn: a.get(t.options, { origin: 'https://phish.example.test' }) }), 400, 'INVALID_MFA_CODE');
    const fresh = async () => (await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: t.token } })).body;
    const registration = (await app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token: session, json: { password: people.ada.password } })).body;
    refused(await secondStep({ mfa_token: t.token, webauthn: a.get({ ...(await fresh()), challenge: registration.challenge }) }), 400, 'INVALID_MFA_CODE');
    const signed = a.get(await fresh());
    const flipped = Buffer.from(signed.response.signature, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    refused(await secondStep({ mfa_token: t.token, webauthn: { ...signed, response: { ...signed.response, signature: flipped.toString('base64url') } } }), 400, 'INVALID_MFA_CODE');
    const other = a.get(await fresh());
    const data = JSON.parse(Buffer.from(other.response.clientDataJSON, 'base64url').toString());
    const rewritten = Buffer.from(JSON.stringify({ ...data, origin: ORIGIN, crossOrigin: true })).toString('base64url');
    refused(await secondStep({ mfa_token: t.token, webauthn: { ...other, response: { ...other.response, clientDataJSON: rewritten } } }), 400, 'INVALID_MFA_CODE');
    // The ticket survived every refusal: a right assertion still completes it.
    expect((await secondStep({ mfa_token: t.token, webauthn: a.get(await fresh()) })).status).toBe(200);
  });

  it('answers malformed codes and assertions with 400 VALIDATION_FAILED, and an oversized body with 413', async () => {
    const { token } = await ticket('ada');
    const valid = people.ada.authenticator.get((await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: token } })).body);
    const malformed: unknown[] = [
      { mfa_token: token, code: '12345a' },
      { mfa_token: token, code: '1234567' },
      { mfa_token: token, code: '١٢٣٤٥٦' },
      { mfa_token: token, code: ['123456'] },
      { mfa_token: token, recovery_code: '' },
      { mfa_token: token, webauthn: {} },
      { mfa_token: token, webauthn: 'assertion' },
      { mfa_token: token, webauthn: { ...valid, type: 'password' } },
      { mfa_token: token, webauthn: { ...valid, id: 'not base64url!' } },
      { mfa_token: token, webauthn: { ...valid, response: { ...valid.response, signature: 7 } } },
      { mfa_token: token, webauthn: { ...valid, response: { ...valid.response, clientDataJSON: 'x'.repeat(5000) } } },
      { mfa_token: token, webauthn: { ...valid, extra: true } },
      { mfa_token: token, webauthn: valid, code: '123456' },
      { mfa_token: token, webauthn: { ...valid, response: { clientDataJSON: valid.response.clientDataJSON } } },
    ];
    for (const json of malformed) refused(await secondStep(json), 400, 'VALIDATION_FAILED');
    // No form at all: told once that one is needed, not that each form's field is missing.
    expect((await secondStep({ mfa_token: token })).body.errors).toEqual([
      { field: 'body', message: 'must hold exactly one of the forms this request takes (see its schema at /docs)' },
    ]);
    // Well-formed but not WebAuthn: client data that is no JSON, an empty authenticator data.
    refused(await secondStep({ mfa_token: token, webauthn: { ...valid, response: { ...valid.response, clientDataJSON: 'bm90LWpzb24' } } }), 400, 'INVALID_MFA_CODE');
    refused(await secondStep({ mfa_token: token, webauthn: { ...valid, response: { ...valid.response, authenticatorData: 'AA' } } }), 400, 'INVALID_MFA_CODE');
    refused(await app.request('POST', '/v1/auth/signin/mfa', { body: JSON.stringify({ mfa_token: token, recovery_code: 'x'.repeat(20_000) }), headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    refused(await app.request('POST', '/v1/auth/signin/mfa', { body: '{"mfa_token": ', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    const fresh = (await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: token } })).body;
    expect((await secondStep({ mfa_token: token, webauthn: people.ada.authenticator.get(fresh) })).status).toBe(200);
  });

  /** A whole session of the user's, through both steps with the authenticator app. */
  async function sessionOf(who: 'ada' | 'bob'): Promise<string> {
    const t = await ticket(who);
    for (const offset of [1, 2]) {
      const answer = await secondStep({ mfa_token: t.token, code: oathtoolTotp(people[who].secret, offset) });
      if (answer.status === 200) return answer.body.accessToken as string;
    }
    throw new Error(`no session for ${who}`);
  }
});
