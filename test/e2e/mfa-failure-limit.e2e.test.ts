import { asValue } from 'awilix';
import { CapturingMailer } from '../support/capturing-mailer';
import { oathtoolTotp } from '../support/oathtool';
import { mfaPeople } from '../support/mfa-people';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * MFA_MAX_FAILURES (#24, review of 2026-12-06): a lock's wait gives its allowance back, so someone who has the password
 * could guess codes for ever; after this many codes refused on right-password tickets since the account's last success,
 * the second step refuses every code, the right one too, until the account succeeds again (a password reset; an admin's
 * reset of its factors is refused meanwhile, since it would let whoever has the password in). Codes from oathtool.
 */
describe('the second step closes after MFA_MAX_FAILURES refused codes (#24)', () => {
  let app: TestApp;
  let admin: string;
  const mailer = new CapturingMailer();

  beforeAll(async () => {
    // A lockout that does not come first: the limit decides here.
    app = await startTestApp({ LOCKOUT_THRESHOLD: '50', MFA_MAX_FAILURES: '3', PASSWORD_RESET_RATE_LIMIT: '0' }, { mailer: asValue(mailer) });
    admin = await app.signIn();
  });
  afterAll(async () => app?.close());

  const { signIn, enrolled } = mfaPeople(() => app, 'mfa-limit');
  const secondStep = (json: unknown) => app.request('POST', '/v1/auth/signin/mfa', { json });
  const ticket = async (p: { username: string; password: string }) => {
    const first = await signIn(p.username, p.password);
    expect(first.status).toBe(401);
    return first.body.mfa_token as string;
  };

  it('refuses the right code and an unused recovery code as a wrong code once the limit is reached, until the password is reset, an admin’s reset of the factors refused meanwhile', async () => {
    const p = await enrolled();
    const refusals = [];
    for (let i = 0; i < 3; i++) refusals.push(await secondStep({ mfa_token: await ticket(p), code: oathtoolTotp(p.secret, -20) }));
    const closedRight = await secondStep({ mfa_token: await ticket(p), code: oathtoolTotp(p.secret, 1, p.confirmedAt) });
    const closedRecovery = await secondStep({ mfa_token: await ticket(p), recovery_code: p.recoveryCodes[0] });

    for (const answer of [...refusals, closedRight, closedRecovery]) {
      expect({ status: answer.status, code: answer.body.code, detail: answer.body.detail }).toEqual({ status: 400, code: 'INVALID_MFA_CODE', detail: refusals[0]!.body.detail });
    }
    const trail = await app.request('GET', `/v1/audit-events?target=${p.id}&action=auth.mfa_failed&page_size=5`, { token: admin });
    expect(trail.body.audit_events.map((e: { code: string }) => e.code)).toEqual(['second_factor_closed', 'second_factor_closed', 'wrong_totp', 'wrong_totp', 'wrong_totp']);

    // Someone has the password: an admin's reset of the factors would let them in with it alone, so it is refused
    // while the step is closed (review O).
    const reset = await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin });
    expect({ status: reset.status, code: reset.body.code }).toEqual({ status: 409, code: 'SECOND_FACTOR_CLOSED' });

    // The owner's way back: a password reset by mail (the account's success), then the app's code signs in again; an
    // admin's reset works once the step is open.
    const before = mailer.sent.length;
    expect((await app.request('POST', '/v1/auth/password-reset', { json: { email: `${p.username}@example.com` } })).status).toBe(202);
    const token = await mailer.tokenSentTo(`${p.username}@example.com`, before);
    const newPassword = `${p.password}-renewed`;
    expect((await app.request('POST', '/v1/auth/password-reset/confirm', { json: { token, password: newPassword } })).status).toBe(204);
    const completed = await secondStep({ mfa_token: await ticket({ username: p.username, password: newPassword }), code: oathtoolTotp(p.secret, 1, p.confirmedAt) });
    expect(completed.status).toBe(200);
    expect((await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin })).status).toBe(204);
    expect((await signIn(p.username, newPassword)).status).toBe(200);
  });

  it('counts codes guessed as the proof of a factor change (a stolen session) alike, and closes that proof with the step (review O)', async () => {
    const p = await enrolled();
    // Whoever holds the session's access token, without the password, guesses codes where a code proves the owner.
    const prove = (code: string) => app.request('POST', '/v1/me/mfa/recovery-codes', { token: p.token, json: { code } });
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await prove(oathtoolTotp(p.secret, -20 - i)));
    expect(guesses.map((answer) => [answer.status, answer.body.code])).toEqual(Array.from({ length: 3 }, () => [400, 'INVALID_MFA_CODE']));

    // The step is closed: the right code proves nothing here, and signs in nowhere.
    expect((await prove(oathtoolTotp(p.secret, 1, p.confirmedAt))).status).toBe(400);
    const closedRight = await secondStep({ mfa_token: await ticket(p), code: oathtoolTotp(p.secret, 2, p.confirmedAt) });
    expect({ status: closedRight.status, code: closedRight.body.code }).toEqual({ status: 400, code: 'INVALID_MFA_CODE' });
    const trail = await app.request('GET', `/v1/audit-events?target=${p.id}&action=mfa.&page_size=10`, { token: admin });
    expect(trail.body.audit_events.filter((e: { outcome: string }) => e.outcome === 'failure').map((e: { code: string }) => e.code)).toEqual([
      'second_factor_closed',
      'wrong_totp',
      'wrong_totp',
      'wrong_totp',
    ]);
  });
});
