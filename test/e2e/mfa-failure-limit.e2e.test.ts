import { oathtoolTotp } from '../support/oathtool';
import { mfaPeople } from '../support/mfa-people';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * MFA_MAX_FAILURES (#24, review of 2026-12-06): a lock's wait gives its allowance back, so someone who has the password
 * could guess codes for ever; after this many codes refused on right-password tickets since the account's last success,
 * the second step refuses every code, the right one too, until the account succeeds again (a password reset, or an
 * admin's reset of its factors and a sign-in). Codes from oathtool.
 */
describe('the second step closes after MFA_MAX_FAILURES refused codes (#24)', () => {
  let app: TestApp;
  let admin: string;

  beforeAll(async () => {
    // A lockout that does not come first: the limit decides here.
    app = await startTestApp({ LOCKOUT_THRESHOLD: '50', MFA_MAX_FAILURES: '3' });
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

  it('refuses the right code and an unused recovery code as a wrong code once the limit is reached, until an admin’s reset and a sign-in', async () => {
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

    // The owner's way back: an admin resets the factors, the password alone signs in (the account's success), and a
    // new app works.
    expect((await app.request('DELETE', `/v1/users/${p.id}/mfa`, { token: admin })).status).toBe(204);
    const signedIn = await signIn(p.username, p.password);
    expect(signedIn.status).toBe(200);
    const again = await app.request('POST', '/v1/me/mfa/totp', { token: signedIn.body.accessToken, json: { password: p.password } });
    const confirmedAt = new Date();
    expect((await app.request('POST', '/v1/me/mfa/totp/confirm', { token: signedIn.body.accessToken, json: { code: oathtoolTotp(again.body.secret, 0, confirmedAt) } })).status).toBe(200);
    const completed = await secondStep({ mfa_token: await ticket(p), code: oathtoolTotp(again.body.secret, 1, confirmedAt) });
    expect(completed.status).toBe(200);
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
