import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { mfaPeople } from '../support/mfa-people';
import { oathtoolTotp } from '../support/oathtool';
import { startTestApp, type TestApp } from '../support/test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

/**
 * A second factor (#24): enrolling an authenticator app, signing in with it, recovery codes, and an admin's
 * reset. Codes come from oathtool, not from the library the service uses.
 */
describe('second factor: TOTP and recovery codes (#24)', () => {
  let app: TestApp;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '6' });
    admin = await app.signIn();
  });
  afterAll(async () => app?.close());

  const { signIn, person, enrolled } = mfaPeople(() => app, 'mfa');
  const secondStep = (json: unknown) => app.request('POST', '/v1/auth/signin/mfa', { json });

  it('a user without a factor signs in exactly as before', async () => {
    const p = await person();
    const response = await signIn(p.username, p.password);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'email', 'name', 'refreshToken', 'role', 'username']);
  });

  it('enrolls: secret, otpauth URI and QR code, pending until a current code confirms it; ten recovery codes once', async () => {
    const p = await person();
    const started = await app.request('POST', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    expect(started.status).toBe(201);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.body.otpauth_uri).toMatch(new RegExp(`^otpauth://totp/[^?]*${p.username}\\?.*secret=${started.body.secret}`));
    expect(started.body.qr_code).toMatch(/^data:image\/png;base64,/);

    let listed = await app.request('GET', '/v1/me/mfa', { token: p.token });
    expect(listed.body).toMatchObject({ factors: [{ type: 'totp', confirmed: false }], recovery_codes_remaining: 0 });
    expect(listed.body.factors[0].last_used_date).toBeUndefined();
    expect(listed.text).not.toContain(started.body.secret);
    // Pending: the password alone still signs in.
    expect((await signIn(p.username, p.password)).status).toBe(200);

    const wrong = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(started.body.secret, -20) } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_MFA_CODE');
    // The detail names only what this route takes: a current code (never a recovery code, which it refuses).
    expect(wrong.body.detail).toBe('The code is not valid: use the current code of your authenticator app');
    const malformed = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: 'abc' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_FAILED');

    const confirmed = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(started.body.secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.recovery_codes).size).toBe(10);

    listed = await app.request('GET', '/v1/me/mfa', { token: p.token });
    expect(listed.body).toMatchObject({ factors: [{ type: 'totp', confirmed: true }], recovery_codes_remaining: 10 });
    // The confirming code was its first use: its 30-second step's start, never before the app was made nor ahead of now.
    const lastUsed = Date.parse(listed.body.factors[0].last_used_date);
    expect(lastUsed).toBeGreaterThanOrEqual(Date.parse(listed.body.factors[0].created_date));
    expect(lastUsed).toBeLessThanOrEqual(Date.now());
    expect(Date.now() - lastUsed).toBeLessThan(61_000);
    const again = await app.request('POST', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('MFA_ALREADY_ENABLED');
  });

  it('signs in with the password, then the next code; the same code is refused a second time', async () => {
    const p = await enrolled();
    const first = await signIn(p.username, p.password);
    expect(first.status).toBe(401);
    expect(first.body).toMatchObject({ code: 'MFA_REQUIRED', methods: ['totp', 'recovery_code'], expires_in: 300 });
    expect(first.body.accessToken).toBeUndefined();
    const mfaToken = first.body.mfa_token as string;

    // The confirming code's step is used: a replay of it is refused.
    const replayedConfirm = await secondStep({ mfa_token: mfaToken, code: oathtoolTotp(p.secret, 0, p.confirmedAt) });
    expect(replayedConfirm.status).toBe(400);
    expect(replayedConfirm.body.code).toBe('INVALID_MFA_CODE');

    const code = oathtoolTotp(p.secret, 1, p.confirmedAt);
    // As the apps show it, three digits, a space and three: the same code.
    const done = await secondStep({ mfa_token: mfaToken, code: `${code.slice(0, 3)} ${code.slice(3)}` });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ username: p.username, role: { name: 'member' } });
    expect(typeof done.body.accessToken).toBe('string');
    expect(typeof done.body.refreshToken).toBe('string');
    expect((await app.request('GET', '/v1/me', { token: done.body.accessToken })).status).toBe(200);

    // The ticket worked once; a fresh ticket with the code just used: refused (a replay within its window).
    expect((await secondStep({ mfa_token: mfaToken, code })).status).toBe(401);
    const second = await signIn(p.username, p.password);
    const replay = await secondStep({ mfa_token: second.body.mfa_token, code });
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('INVALID_MFA_CODE');
  });

  it('a wrong password answers as the right one for a user with a factor, and as before for a user without', async () => {
    const withFactor = await enrolled();
    const without = await person();
    const wrong = await signIn(withFactor.username, 'not-the-password-at-all');
    const right = await signIn(withFactor.username, withFactor.password);
    expect([wrong.status, right.status]).toEqual([401, 401]);
    const token = (answer: typeof wrong) => answer.text.replace(answer.body.mfa_token, '<mfa_token>');
    expect(token(wrong)).toBe(token(right));
    expect(wrong.body).toMatchObject({ code: 'MFA_REQUIRED', methods: ['totp', 'recovery_code'], expires_in: 300, mfa_token: expect.stringMatching(/^t1\.[A-Za-z0-9_-]{100,}$/) });
    expect(wrong.body.mfa_token).toHaveLength(right.body.mfa_token.length);
    const plain = await signIn(without.username, 'not-the-password-at-all');
    expect([plain.status, plain.body.code]).toEqual([401, 'INVALID_CREDENTIALS']);
  });

  it('a wrong password’s ticket never completes: a current code (oathtool’s) or an unused recovery code is refused as a wrong code, and left unused', async () => {
    const p = await enrolled();
    const decoy = (await signIn(p.username, 'not-the-password-at-all')).body.mfa_token as string;
    const realTicket = (await signIn(p.username, p.password)).body.mfa_token as string;
    const wrongCode = await secondStep({ mfa_token: realTicket, code: oathtoolTotp(p.secret, -20) });
    const code = oathtoolTotp(p.secret, 1);
    // Five evaluations so far, of the six the lockout allows (LOCKOUT_THRESHOLD 6); the sixth succeeds below.
    const onDecoy = [await secondStep({ mfa_token: decoy, code }), await secondStep({ mfa_token: decoy, recovery_code: p.recoveryCodes[0] })];
    for (const refused of onDecoy) {
      expect(refused.status).toBe(400);
      expect(refused.text).toBe(wrongCode.text);
      expect(refused.body.accessToken).toBeUndefined();
    }
    expect((await app.request('POST', '/v1/auth/signin/mfa/webauthn-options', { json: { mfa_token: decoy } })).status).toBe(409);
    // Neither the code's step nor the recovery code was used up: both complete the right password's tickets.
    expect((await secondStep({ mfa_token: realTicket, code })).status).toBe(200);
    const recovered = await secondStep({ mfa_token: (await signIn(p.username, p.password)).body.mfa_token, recovery_code: p.recoveryCodes[0] });
    expect([recovered.status, recovered.body.recovery_codes_remaining]).toEqual([200, 9]);
  });

  it('a wrong password counts toward the lockout as before, and each code on its ticket as a wrong code, right code or not', async () => {
    const p = await enrolled();
    // Threshold 6: three wrong passwords and three current codes on their tickets lock the account.
    for (let i = 0; i < 3; i++) {
      const first = await signIn(p.username, `not-the-password-${i}`);
      expect(first.body.code).toBe('MFA_REQUIRED');
      expect((await secondStep({ mfa_token: first.body.mfa_token, code: oathtoolTotp(p.secret) })).status).toBe(400);
    }
    // Locked: the right password answers as a wrong one does (PRODUCT.md: a locked account answers exactly like a wrong
    // password), with a ticket on which the current code is refused as a wrong code.
    const locked = await signIn(p.username, p.password);
    const wrong = await signIn(p.username, 'not-the-password-3');
    const blank = (answer: typeof wrong) => answer.text.replace(answer.body.mfa_token, '<t>');
    expect([locked.status, blank(locked)]).toEqual([wrong.status, blank(wrong)]);
    expect(locked.body.code).toBe('MFA_REQUIRED');
    const refused = await secondStep({ mfa_token: locked.body.mfa_token, code: oathtoolTotp(p.secret) });
    expect([refused.status, refused.body.code, refused.body.accessToken]).toEqual([400, 'INVALID_MFA_CODE', undefined]);
    let entries: { action: string; code: string | null }[] = [];
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      entries = (await app.request('GET', `/v1/audit-events?target=${p.id}&page_size=100`, { token: admin })).body.audit_events;
      if (entries.some((e) => e.action === 'auth.locked_out')) break;
    }
    const seen = entries.map((e) => `${e.action} ${e.code}`);
    expect(seen.filter((e) => e === 'auth.signin_failed wrong_password')).toHaveLength(3);
    expect(seen.filter((e) => e === 'auth.mfa_failed wrong_password')).toHaveLength(3);
    expect(seen).toContain('auth.locked_out threshold_reached');
    expect(seen).toContain('auth.signin_failed locked');
    expect(seen).not.toContain('auth.mfa_required null');
  });

  it('a recovery code signs in once and tells how many remain; regenerating kills the old ones', async () => {
    const p = await enrolled();
    const ticket = async () => (await signIn(p.username, p.password)).body.mfa_token as string;
    const used = await secondStep({ mfa_token: await ticket(), recovery_code: p.recoveryCodes[0].toUpperCase() });
    expect(used.status).toBe(200);
    expect(used.body.recovery_codes_remaining).toBe(9);
    const again = await secondStep({ mfa_token: await ticket(), recovery_code: p.recoveryCodes[0] });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_MFA_CODE');

    const regenerated = await app.request('POST', '/v1/me/mfa/recovery-codes', { token: used.body.accessToken, json: { password: p.password } });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.recovery_codes).toHaveLength(10);
    expect((await secondStep({ mfa_token: await ticket(), recovery_code: p.recoveryCodes[1] })).status).toBe(400);
    const fresh = await secondStep({ mfa_token: await ticket(), recovery_code: regenerated.body.recovery_codes[0] });
    expect(fresh.status).toBe(200);
    expect(fresh.body.recovery_codes_remaining).toBe(9);
  });

  it('bad input to the second step is a 400, never a 500; an unknown ticket a 401', async () => {
    for (const json of [{}, { mfa_token: 'x' }, { mfa_token: 'x', code: '12345' }, { mfa_token: 'x', code: '12 3456' }, { mfa_token: 'x', code: '1234567' }, { mfa_token: 'x', code: '123  456' }, { mfa_token: 'x', code: '123456', recovery_code: 'a' }, { mfa_token: 'x', code: 123456 }, { mfa_token: '', code: '123456' }]) {
      const response = await secondStep(json);
      expect({ json, status: response.status, code: response.body.code }).toEqual({ json, status: 400, code: 'VALIDATION_FAILED' });
    }
    const unknown = await secondStep({ mfa_token: 'no-such-ticket', code: '123456' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('INVALID_MFA_TOKEN');
  });

  it('wrong codes count toward the account lockout; locked, even the right password and code are refused as wrong ones', async () => {
    const p = await enrolled();
    // Threshold 6: each round is two evaluations, the password step and its wrong code.
    for (let i = 0; i < 3; i++) {
      const first = await signIn(p.username, p.password);
      expect(first.body.code).toBe('MFA_REQUIRED');
      const wrong = await secondStep({ mfa_token: first.body.mfa_token, code: oathtoolTotp(p.secret, -40) });
      expect(wrong.status).toBe(400);
    }
    const locked = await signIn(p.username, p.password);
    expect([locked.status, locked.body.code]).toEqual([401, 'MFA_REQUIRED']);
    const refused = await secondStep({ mfa_token: locked.body.mfa_token, code: oathtoolTotp(p.secret) });
    expect([refused.status, refused.body.code, refused.body.accessToken]).toEqual([400, 'INVALID_MFA_CODE', undefined]);
  });

  it('removing one’s own factor needs the password; then the password alone signs in', async () => {
    const p = await enrolled();
    const session = await secondStep({ mfa_token: (await signIn(p.username, p.password)).body.mfa_token, code: oathtoolTotp(p.secret, 1) });
    const token = session.body.accessToken as string;
    const wrong = await app.request('DELETE', '/v1/me/mfa/totp', { token, json: { password: 'not-the-password-at-all' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('WRONG_CURRENT_PASSWORD');
    // The detail names the field the route takes (`password`; changing the password takes `current_password`).
    expect(wrong.body.detail).toBe('password is not your current password');
    const removed = await app.request('DELETE', '/v1/me/mfa/totp', { token, json: { password: p.password } });
    expect(removed.status).toBe(204);
    expect((await app.request('GET', '/v1/me/mfa', { token })).body).toEqual({ factors: [], recovery_codes_remaining: 0 });
    expect((await signIn(p.username, p.password)).status).toBe(200);
  });

  it('an admin resets another user’s factors, which ends that user’s sessions', async () => {
    const p = await enrolled();
    const session = await secondStep({ mfa_token: (await signIn(p.username, p.password)).body.mfa_token, code: oathtoolTotp(p.secret, 1) });
    const token = session.body.accessToken as string;
    expect((await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token })).status).toBe(403);

    const reset = await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin });
    expect(reset.status).toBe(204);
    expect((await app.request('GET', '/v1/me', { token })).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: session.body.refreshToken } })).status).toBe(401);
    expect((await signIn(p.username, p.password)).status).toBe(200);

    const none = await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('MFA_NOT_ENABLED');
    expect((await app.request('DELETE', '/v1/users/no-such-user/mfa', { token: admin })).status).toBe(404);
  });

  it('audits enrollment, sign-in success and failure, and removal, with no secret in any entry', async () => {
    const p = await enrolled();
    const first = await signIn(p.username, p.password);
    await secondStep({ mfa_token: first.body.mfa_token, code: oathtoolTotp(p.secret, -30) });
    const done = await secondStep({ mfa_token: first.body.mfa_token, recovery_code: p.recoveryCodes[0] });
    expect(done.status).toBe(200);
    await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin });

    let entries: { action: string; outcome: string; code: string | null }[] = [];
    let text = '';
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      const page = await app.request('GET', `/v1/audit-events?target=${p.id}&page_size=100`, { token: admin });
      text = page.text;
      entries = page.body.audit_events;
      if (entries.some((e) => e.action === 'mfa.removed')) break;
    }
    const seen = entries.map((e) => `${e.action} ${e.outcome} ${e.code}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        'mfa.enrollment_started success totp',
        'mfa.enrolled success totp',
        'auth.mfa_required success null',
        'auth.mfa_failed failure wrong_totp',
        'auth.signin_succeeded success recovery_code',
        'mfa.recovery_code_used success null',
        'mfa.removed success null',
      ]),
    );
    for (const secret of [p.secret, ...p.recoveryCodes, first.body.mfa_token]) expect(text).not.toContain(secret);
    // The admin's reset names the kinds of factor that went.
    const removed = (entries as { action: string; changes?: unknown }[]).find((e) => e.action === 'mfa.removed');
    expect(removed?.changes).toEqual([{ field: 'second_factors', before: ['totp'], after: [] }]);
  });

  it('audits the owner’s own removal with what went: the app, and the recovery codes with the last factor (review O)', async () => {
    const p = await enrolled();
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } })).status).toBe(204);
    const page = await app.request('GET', `/v1/audit-events?target=${p.id}&action=mfa.removed&page_size=5`, { token: admin });
    expect(page.body.audit_events.map((e: { outcome: string; changes: unknown }) => [e.outcome, e.changes])).toEqual([
      [
        'success',
        [
          { field: 'second_factors', before: ['totp'], after: [] },
          { field: 'recovery_codes_remaining', before: 10, after: 0 },
        ],
      ],
    ]);
  });

  it('a password change since the password step ends its ticket, as it ends the user’s tokens', async () => {
    const p = await enrolled();
    const challenged = await signIn(p.username, p.password);
    expect(challenged.body.code).toBe('MFA_REQUIRED');
    // The owner, signed in elsewhere, changes the password meanwhile.
    const changed = await app.request('POST', '/v1/me/password', { token: p.token, json: { current_password: p.password, new_password: `${p.password}-changed` } });
    expect(changed.status).toBe(200);
    for (const json of [{ code: oathtoolTotp(p.secret, 1, p.confirmedAt) }, { recovery_code: p.recoveryCodes[0] }]) {
      const refused = await secondStep({ mfa_token: challenged.body.mfa_token, ...json });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'INVALID_MFA_TOKEN' });
    }
    // The recovery code was not used up by the refusal: the new password's ticket takes it.
    const again = await signIn(p.username, `${p.password}-changed`);
    expect((await secondStep({ mfa_token: again.body.mfa_token, recovery_code: p.recoveryCodes[0] })).status).toBe(200);
  });

  it('a replica whose MFA_ENCRYPTION_KEY opens no secret refuses codes as wrong (400, counted), never a 500; recovery codes still work', async () => {
    const p = await enrolled();
    // Its own DATA_DIR, so its own generated key: the factor's secret was sealed with another.
    const rotated = await startTestApp({ LOCKOUT_THRESHOLD: '6' }, {}, app.database);
    try {
      const challenged = await rotated.request('POST', '/v1/auth/signin', { json: { username: p.username, password: p.password } });
      expect(challenged.body.code).toBe('MFA_REQUIRED');
      for (const code of [oathtoolTotp(p.secret, 1, p.confirmedAt), '000000']) {
        const refused = await rotated.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: challenged.body.mfa_token, code } });
        expect({ code, status: refused.status, problem: refused.body.code }).toEqual({ code, status: 400, problem: 'INVALID_MFA_CODE' });
      }
      const recovered = await rotated.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: challenged.body.mfa_token, recovery_code: p.recoveryCodes[0] } });
      expect(recovered.status).toBe(200);
      // Removing the factor with a code is refused the same way (the password still works).
      const removal = await rotated.request('DELETE', '/v1/me/mfa/totp', { token: recovered.body.accessToken, json: { code: oathtoolTotp(p.secret, 1, p.confirmedAt) } });
      expect({ status: removal.status, code: removal.body.code }).toEqual({ status: 400, code: 'INVALID_MFA_CODE' });
    } finally {
      await rotated.api.close();
    }
  });

  it('an admin’s reset of a user with only a pending enrollment is 409 MFA_NOT_ENABLED, and the user stays signed in', async () => {
    const p = await person();
    expect((await app.request('POST', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } })).status).toBe(201);
    const reset = await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin });
    expect({ status: reset.status, code: reset.body.code }).toEqual({ status: 409, code: 'MFA_NOT_ENABLED' });
    expect((await app.request('GET', '/v1/me', { token: p.token })).status).toBe(200);
    const own = await app.request('DELETE', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    expect({ status: own.status, code: own.body.code }).toEqual({ status: 409, code: 'MFA_NOT_ENABLED' });
  });

  it('a password reset does not bypass the factor: the new password still asks for a code', async () => {
    const p = await enrolled();
    const { passwordHasher, userRepository, clock } = app.api.container.cradle;
    const user = (await userRepository.findById(p.id))!;
    user.changePassword({ passwordHash: await passwordHasher.hash('a brand new long password'), now: clock.now() });
    await userRepository.update(user);
    const response = await signIn(p.username, 'a brand new long password');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('MFA_REQUIRED');
  });
});

describe('MFA_REQUIRED_PERMISSIONS: enroll before anything else (#24)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ MFA_REQUIRED_PERMISSIONS: 'users:delete' });
  });
  afterAll(async () => app?.close());

  it('an admin without a factor gets a token that only enrolls; after enrolling, the next sign-in asks for a code and is whole', async () => {
    const first = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
    expect(first.status).toBe(200);
    const limited = first.body.accessToken as string;
    const refused = await app.request('GET', '/v1/users', { token: limited });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('MFA_ENROLLMENT_REQUIRED');
    expect((await app.request('GET', '/v1/me', { token: limited })).status).toBe(200);

    const started = await app.request('POST', '/v1/me/mfa/totp', { token: limited, json: { password: 'admin-password-123' } });
    expect(started.status).toBe(201);
    const confirmed = await app.request('POST', '/v1/me/mfa/totp/confirm', { token: limited, json: { code: oathtoolTotp(started.body.secret) } });
    expect(confirmed.status).toBe(200);
    // The enrollment-only token stays so; the refresh of its session, decided again, is whole.
    expect((await app.request('GET', '/v1/users', { token: limited })).status).toBe(403);
    const refreshed = await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: first.body.refreshToken } });
    expect((await app.request('GET', '/v1/users', { token: refreshed.body.accessToken })).status).toBe(200);

    const challenged = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'admin-password-123' } });
    expect(challenged.body.code).toBe('MFA_REQUIRED');
    const done = await app.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: challenged.body.mfa_token, code: oathtoolTotp(started.body.secret, 1) } });
    expect(done.status).toBe(200);
    expect((await app.request('GET', '/v1/users', { token: done.body.accessToken })).status).toBe(200);
  });

  const admin: Role = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };
  let people = 0;
  /** A user of a role the policy covers, with an authenticator app (enrolled with its enrollment-only token) and a whole session. */
  const guardedUser = async () => {
    people += 1;
    const username = `guarded-${people}`;
    const password = `${username}-long-password`;
    await app.addJoinedUser({ username, password, email: `${username}@example.com`, role: admin });
    const limited = await app.request('POST', '/v1/auth/signin', { json: { username, password } });
    const started = await app.request('POST', '/v1/me/mfa/totp', { token: limited.body.accessToken, json: { password } });
    const confirmedAt = new Date();
    expect((await app.request('POST', '/v1/me/mfa/totp/confirm', { token: limited.body.accessToken, json: { code: oathtoolTotp(started.body.secret, 0, confirmedAt) } })).status).toBe(200);
    const challenged = await app.request('POST', '/v1/auth/signin', { json: { username, password } });
    const whole = await app.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: challenged.body.mfa_token, code: oathtoolTotp(started.body.secret, 1, confirmedAt) } });
    expect(whole.status).toBe(200);
    return { username, password, token: whole.body.accessToken as string };
  };

  it('a password change issues its new session by the policy: a whole token does not renew itself once its last factor is gone', async () => {
    const user = await guardedUser();
    expect((await app.request('GET', '/v1/users', { token: user.token })).status).toBe(200);
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: user.token, json: { password: user.password } })).status).toBe(204);
    // The token in hand keeps working to its expiry (as after any role change); the session a password change starts is enrollment-only.
    const changed = await app.request('POST', '/v1/me/password', { token: user.token, json: { current_password: user.password, new_password: `${user.password}-2` } });
    expect(changed.status).toBe(200);
    const renewed = await app.request('GET', '/v1/users', { token: changed.body.accessToken });
    expect({ status: renewed.status, code: renewed.body.code }).toEqual({ status: 403, code: 'MFA_ENROLLMENT_REQUIRED' });
    const refreshed = await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: changed.body.refreshToken } });
    expect((await app.request('GET', '/v1/users', { token: refreshed.body.accessToken })).status).toBe(403);
  });

  it('introspection answers an enrollment-only token with no scope and mfa_enrollment', async () => {
    const user = await guardedUser();
    const role = `introspector${people}`;
    expect((await app.request('POST', '/v1/roles', { token: user.token, json: { name: role, permissions: ['tokens:introspect'] } })).status).toBe(201);
    const service = await app.request('POST', '/v1/service-accounts', { token: user.token, json: { name: `introspector-${people}`, role } });
    expect(service.status).toBe(201);
    const introspect = (token: string) =>
      app.request('POST', '/oauth/introspect', {
        body: new URLSearchParams({ token, client_id: service.body.client_id, client_secret: service.body.client_secret }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    // A whole token: the role's permissions.
    const whole = await introspect(user.token);
    expect(whole.body).toMatchObject({ active: true, scope: expect.stringContaining('users:delete') });
    expect(whole.body).not.toHaveProperty('mfa_enrollment');
    expect((await app.request('DELETE', '/v1/me/mfa/totp', { token: user.token, json: { password: user.password } })).status).toBe(204);
    const limited = await app.request('POST', '/v1/auth/signin', { json: { username: user.username, password: user.password } });
    const answer = await introspect(limited.body.accessToken);
    expect({ status: answer.status, active: answer.body.active, scope: answer.body.scope, mfa: answer.body.mfa_enrollment }).toEqual({ status: 200, active: true, scope: '', mfa: true });
  });

  it('an enrollment-only token may sign out, which ends its session', async () => {
    await app.addJoinedUser({ username: 'leaver', password: 'leaver-long-password', email: 'leaver@example.com', role: admin });
    const limited = await app.request('POST', '/v1/auth/signin', { json: { username: 'leaver', password: 'leaver-long-password' } });
    expect((await app.request('GET', '/v1/users', { token: limited.body.accessToken })).status).toBe(403);
    expect((await app.request('POST', '/v1/auth/signout', { token: limited.body.accessToken })).status).toBe(204);
    expect((await app.request('GET', '/v1/me', { token: limited.body.accessToken })).status).toBe(401);
    expect((await app.request('POST', '/v1/auth/refresh', { json: { refreshToken: limited.body.refreshToken } })).status).toBe(401);
  });

  it('a role outside the policy signs in as before', async () => {
    await app.addJoinedUser({ username: 'plain', password: 'plain-long-password', email: 'plain@example.com', role: member });
    const token = await app.signIn('plain', 'plain-long-password');
    expect((await app.request('POST', '/v1/auth/signout', { token })).status).toBe(204);
  });
});

