import { mfaPeople } from '../support/mfa-people';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The second step raced on one ticket (#24, review I): two recovery codes sent at once on one `mfa_token` complete it
 * once, and the request refused uses nothing up. Against MariaDB the loser's code was spent every time.
 */
describe('second factor: requests racing on one ticket', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ LOCKOUT_THRESHOLD: '50' });
  });
  afterAll(async () => app?.close());

  const { signIn, enrolled } = mfaPeople(() => app, 'mfa-race');
  const secondStep = (json: unknown) => app.request('POST', '/v1/auth/signin/mfa', { json });

  it('two recovery codes at once on one ticket: one signs in, and only its code is used up', async () => {
    const p = await enrolled();
    let used = 0;
    for (let round = 0; round < 4; round++) {
      const [a, b] = p.recoveryCodes.slice(2 * round, 2 * round + 2);
      const mfaToken = (await signIn(p.username, p.password)).body.mfa_token as string;
      const answers = await Promise.all([secondStep({ mfa_token: mfaToken, recovery_code: a }), secondStep({ mfa_token: mfaToken, recovery_code: b })]);
      const won = answers.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      expect(answers.map((r) => r.body.code ?? null).sort()).toEqual([null, 'INVALID_MFA_TOKEN'].sort());
      used += 1;
      const factors = await app.request('GET', '/v1/me/mfa', { token: won[0]!.body.accessToken });
      expect({ round, remaining: factors.body.recovery_codes_remaining }).toEqual({ round, remaining: 10 - used });
      // The refused request's code still signs in.
      const loser = answers[0]!.status === 200 ? b : a;
      const retried = await secondStep({ mfa_token: (await signIn(p.username, p.password)).body.mfa_token, recovery_code: loser });
      expect(retried.status).toBe(200);
      used += 1;
      expect(retried.body.recovery_codes_remaining).toBe(10 - used);
    }
  });
});
