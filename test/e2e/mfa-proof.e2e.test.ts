import { MfaFactorSchema } from '../../src/infrastructure/persistence/typeorm/mfa-records';
import { mfaPeople } from '../support/mfa-people';
import { oathtoolTotp } from '../support/oathtool';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { startTestApp, type TestApp, type TestResponse } from '../support/test-app';

const ORIGIN = 'https://id.example.test';

/**
 * Adding a second factor, or new recovery codes, on the owner's proof (ASVS V7.5.1): the password or a current code
 * of the authenticator app, checked as a sign-in checks it, as removing a factor is. A bare access token (a stolen
 * one) adds nothing: no pending secret, no passkey challenge, no new recovery codes.
 */
describe('adding a second factor needs the password or a current code (#24, ASVS V7.5.1)', () => {
  let app: TestApp;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '5', PUBLIC_URL: ORIGIN });
    admin = await app.signIn();
  });
  afterAll(async () => app?.close());

  const { signIn, person, enrolled } = mfaPeople(() => app, 'proof');

  const secondStep = (json: unknown) => app.request('POST', '/v1/auth/signin/mfa', { json });
  const startTotp = (token: string, json?: unknown) => app.request('POST', '/v1/me/mfa/totp', { token, ...(json === undefined ? {} : { json }) });
  const passkeyOptions = (token: string, json?: unknown) => app.request('POST', '/v1/me/mfa/webauthn/registration-options', { token, ...(json === undefined ? {} : { json }) });
  const newRecoveryCodes = (token: string, json?: unknown) => app.request('POST', '/v1/me/mfa/recovery-codes', { token, ...(json === undefined ? {} : { json }) });
  const problem = (answer: TestResponse) => ({ status: answer.status, code: answer.body?.code, type: answer.headers.get('content-type') });
  const refusedAs = (code: string) => ({ status: 400, code, type: expect.stringMatching(/^application\/problem\+json/) });

  const challengesOf = async (userId: string): Promise<number> => {
    const rows: { n: number | string }[] = await app.api.container.cradle.dataSource.query('SELECT COUNT(*) AS n FROM webauthn_challenges WHERE user_id = ?', [userId]);
    return Number(rows[0]!.n);
  };

  /** The user's audit entries as `action outcome code`, once `until` is among them (they are written after the answer). */
  const auditOf = async (userId: string, until: string): Promise<string[]> => {
    let seen: string[] = [];
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const page = await app.request('GET', `/v1/audit-events?target=${userId}&page_size=100`, { token: admin });
      seen = (page.body.audit_events as { action: string; outcome: string; code: string | null }[]).map((e) => `${e.action} ${e.outcome} ${e.code}`);
      if (seen.includes(until)) break;
    }
    return seen;
  };

  it('a bare token starts no enrollment: no body, an empty or a double one (400 VALIDATION_FAILED), a wrong password or code; no pending secret', async () => {
    const p = await person();
    for (const json of [undefined, {}, { password: '' }, { password: p.password, code: '123456' }, { code: '12345' }, { password: p.password, extra: 1 }]) {
      expect({ json, ...problem(await startTotp(p.token, json)) }).toEqual({ json, ...refusedAs('VALIDATION_FAILED') });
    }
    expect(problem(await startTotp(p.token, { password: 'not-the-password-at-all' }))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    // No app is active: no code proves anything.
    expect(problem(await startTotp(p.token, { code: '123456' }))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body).toEqual({ factors: [], recovery_codes_remaining: 0 });
    const confirm = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: '123456' } });
    expect({ status: confirm.status, code: confirm.body.code }).toEqual({ status: 409, code: 'MFA_ENROLLMENT_NOT_STARTED' });
    // The password starts it (and the refusals before it did not lock the account).
    const started = await startTotp(p.token, { password: p.password });
    expect(started.status).toBe(201);
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body).toMatchObject({ factors: [{ type: 'totp', confirmed: false }] });
  });

  it('a bare token gets no passkey registration options: no challenge is stored, nothing registers', async () => {
    const p = await enrolled();
    const authenticator = new SoftAuthenticator(ORIGIN);
    for (const json of [undefined, {}, { password: p.password, code: '123456' }]) {
      expect({ json, ...problem(await passkeyOptions(p.token, json)) }).toEqual({ json, ...refusedAs('VALIDATION_FAILED') });
    }
    const wrongPassword = await passkeyOptions(p.token, { password: 'not-the-password-at-all' });
    expect(problem(wrongPassword)).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    const wrongCode = await passkeyOptions(p.token, { code: oathtoolTotp(p.secret, -20, p.confirmedAt) });
    expect(problem(wrongCode)).toEqual(refusedAs('INVALID_MFA_CODE'));
    for (const refused of [wrongPassword, wrongCode]) expect(refused.body.challenge).toBeUndefined();
    expect(await challengesOf(p.id)).toBe(0);
    // Options the service never handed out register nothing.
    const forged = authenticator.create({ challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZQ', rp: { id: 'id.example.test' }, user: { id: 'dQ' } });
    const registered = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: forged } });
    expect({ status: registered.status, code: registered.body.code }).toEqual({ status: 400, code: 'INVALID_WEBAUTHN_RESPONSE' });
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body.factors).toEqual([expect.objectContaining({ type: 'totp' })]);
  });

  it('a bare token gets no new recovery codes: the old ones stay and still sign in', async () => {
    const p = await enrolled();
    for (const json of [undefined, {}, { code: 'abcdef' }]) {
      expect({ json, ...problem(await newRecoveryCodes(p.token, json)) }).toEqual({ json, ...refusedAs('VALIDATION_FAILED') });
    }
    const refusals = [await newRecoveryCodes(p.token, { password: 'not-the-password-at-all' }), await newRecoveryCodes(p.token, { code: oathtoolTotp(p.secret, -20, p.confirmedAt) })];
    expect(refusals.map(problem)).toEqual([refusedAs('WRONG_CURRENT_PASSWORD'), refusedAs('INVALID_MFA_CODE')]);
    for (const refused of refusals) expect(refused.body.recovery_codes).toBeUndefined();
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body.recovery_codes_remaining).toBe(10);
    const recovered = await secondStep({ mfa_token: (await signIn(p.username, p.password)).body.mfa_token, recovery_code: p.recoveryCodes[0] });
    expect([recovered.status, recovered.body.recovery_codes_remaining]).toEqual([200, 9]);
  });

  it('the password, or a current code, adds: a code used as proof is used up, for the next proof and for a sign-in', async () => {
    const p = await enrolled();
    const code = oathtoolTotp(p.secret, 1, p.confirmedAt);
    const options = await passkeyOptions(p.token, { code });
    expect(options.status).toBe(200);
    expect(await challengesOf(p.id)).toBe(1);
    const authenticator = new SoftAuthenticator(ORIGIN);
    const registered = await app.request('POST', '/v1/me/mfa/webauthn', { token: p.token, json: { response: authenticator.create(options.body) } });
    expect(registered.status).toBe(201);
    // The same code again: used.
    expect(problem(await newRecoveryCodes(p.token, { code }))).toEqual(refusedAs('INVALID_MFA_CODE'));
    // The password: ten new codes, and every old one dies.
    const regenerated = await newRecoveryCodes(p.token, { password: p.password });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.recovery_codes).toHaveLength(10);
    const ticket = (await signIn(p.username, p.password)).body.mfa_token as string;
    expect(problem(await secondStep({ mfa_token: ticket, code }))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect(problem(await secondStep({ mfa_token: ticket, recovery_code: p.recoveryCodes[0] }))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect((await secondStep({ mfa_token: ticket, recovery_code: regenerated.body.recovery_codes[0] })).status).toBe(200);
  });

  it('nothing to add costs no attempt: an active app (409) and no factor to regenerate codes for (409), whatever the proof', async () => {
    const p = await enrolled();
    for (let i = 0; i < 5; i++) {
      const again = await startTotp(p.token, { password: 'not-the-password-at-all' });
      expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'MFA_ALREADY_ENABLED' });
    }
    const plain = await person();
    for (let i = 0; i < 5; i++) {
      const none = await newRecoveryCodes(plain.token, { password: 'not-the-password-at-all' });
      expect({ status: none.status, code: none.body.code }).toEqual({ status: 409, code: 'MFA_NOT_ENABLED' });
    }
    // Threshold 5: neither account was locked by them.
    expect((await signIn(plain.username, plain.password)).status).toBe(200);
    expect((await secondStep({ mfa_token: (await signIn(p.username, p.password)).body.mfa_token, code: oathtoolTotp(p.secret, 1, p.confirmedAt) })).status).toBe(200);
  });

  it('each wrong proof counts toward the lockout and is audited under its route’s action; locked, even the right password is refused', async () => {
    // Threshold 5. Without a factor: five wrong passwords at the enrollment's start.
    const plain = await person();
    for (let i = 0; i < 5; i++) expect(problem(await startTotp(plain.token, { password: `not-the-password-${i}` }))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    expect(problem(await startTotp(plain.token, { password: plain.password }))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    const lockedOut = await signIn(plain.username, plain.password);
    expect({ status: lockedOut.status, code: lockedOut.body.code }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
    expect((await app.request('GET', '/v1/me/mfa', { token: plain.token })).body.factors).toEqual([]);
    const plainSeen = await auditOf(plain.id, 'mfa.enrollment_started failure locked');
    expect(plainSeen.filter((e) => e === 'mfa.enrollment_started failure wrong_password')).toHaveLength(5);
    expect(plainSeen).toEqual(expect.arrayContaining(['auth.locked_out success threshold_reached', 'mfa.enrollment_started failure locked']));
    expect(plainSeen).not.toContain('mfa.enrollment_started success totp');

    // With an app: wrong passwords and codes for passkey options and for recovery codes.
    const p = await enrolled();
    const wrongCode = () => ({ code: oathtoolTotp(p.secret, -20, p.confirmedAt) });
    const wrongPassword = { password: 'not-the-password-at-all' };
    expect(problem(await passkeyOptions(p.token, wrongPassword))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    expect(problem(await passkeyOptions(p.token, wrongCode()))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect(problem(await newRecoveryCodes(p.token, wrongCode()))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect(problem(await newRecoveryCodes(p.token, wrongPassword))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    expect(problem(await newRecoveryCodes(p.token, wrongPassword))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    // Locked: the right password and a current code are refused, and left unused.
    expect(problem(await newRecoveryCodes(p.token, { password: p.password }))).toEqual(refusedAs('WRONG_CURRENT_PASSWORD'));
    expect(problem(await passkeyOptions(p.token, { code: oathtoolTotp(p.secret, 1, p.confirmedAt) }))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect(await challengesOf(p.id)).toBe(0);
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body.recovery_codes_remaining).toBe(10);
    const seen = await auditOf(p.id, 'auth.locked_out success threshold_reached');
    expect(seen).toEqual(
      expect.arrayContaining([
        'mfa.enrollment_started failure wrong_password',
        'mfa.enrollment_started failure wrong_totp',
        'mfa.recovery_codes_regenerated failure wrong_totp',
        'mfa.recovery_codes_regenerated failure wrong_password',
        'auth.locked_out success threshold_reached',
      ]),
    );
    expect(seen).not.toContain('mfa.recovery_codes_regenerated success null');
    expect(seen).not.toContain('mfa.enrollment_started success webauthn');
  });

  it('a pending app’s wrong codes count toward the lockout too: locked, its right code confirms nothing', async () => {
    const p = await person();
    const started = await startTotp(p.token, { password: p.password });
    expect(started.status).toBe(201);
    const confirm = (code: string) => app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code } });
    for (let i = 0; i < 5; i++) expect(problem(await confirm(oathtoolTotp(started.body.secret, -20 - i)))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect(problem(await confirm(oathtoolTotp(started.body.secret)))).toEqual(refusedAs('INVALID_MFA_CODE'));
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body).toMatchObject({ factors: [{ type: 'totp', confirmed: false }], recovery_codes_remaining: 0 });
    const lockedOut = await signIn(p.username, p.password);
    expect({ status: lockedOut.status, code: lockedOut.body.code }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
    const seen = await auditOf(p.id, 'mfa.enrolled failure locked');
    expect(seen.filter((e) => e === 'mfa.enrolled failure invalid_code')).toHaveLength(5);
    expect(seen).toContain('auth.locked_out success threshold_reached');
  });

  it('a pending app confirms only within 10 minutes of its start: an older one (or one left from before proofs) is started again', async () => {
    const p = await person();
    const started = await startTotp(p.token, { password: p.password });
    expect(started.status).toBe(201);
    // As if started 11 minutes ago, e.g. by a bare token before proofs were asked.
    await app.api.container.cradle.dataSource.getRepository(MfaFactorSchema).update({ userId: p.id }, { createdAt: new Date(Date.now() - 11 * 60_000) });
    const late = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(started.body.secret) } });
    expect({ status: late.status, code: late.body.code, detail: late.body.detail }).toEqual({
      status: 409,
      code: 'MFA_ENROLLMENT_NOT_STARTED',
      detail: 'The enrollment was started more than 10 minutes ago: start again at POST /v1/me/mfa/totp',
    });
    expect((await app.request('GET', '/v1/me/mfa', { token: p.token })).body.recovery_codes_remaining).toBe(0);
    // Started again (on the password), it confirms.
    const again = await startTotp(p.token, { password: p.password });
    const confirmed = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(again.body.secret) } });
    expect(confirmed.status).toBe(200);
  });
});
