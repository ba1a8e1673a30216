import { randomBytes } from 'node:crypto';
import { mfaPeople } from '../support/mfa-people';
import { oathtoolTotp } from '../support/oathtool';
import { eventuallyDefined } from '../support/eventually-logged';
import { startTestApp, type TestApp } from '../support/test-app';

/** A replica of `app`'s database with its own MFA key, and the lines it logs. */
async function replica(app: TestApp, key: string): Promise<{ replica: TestApp; logged: () => { level: number; msg: string; sampled?: number; unreadable?: number }[] }> {
  const lines: string[] = [];
  const started = await startTestApp({ MFA_ENCRYPTION_KEY: key, LOG_LEVEL: 'info' }, {}, app.database, { write: (line) => lines.push(line) });
  return { replica: started, logged: () => lines.map((line) => JSON.parse(line)) };
}

const aboutTheKey = (line: { msg: string }) => line.msg.includes('MFA key');

/**
 * Replicas of one database given different MFA_ENCRYPTION_KEYs refuse each other's authenticator apps: a code of an
 * app enrolled through one is refused as wrong by the other. A replica says so when it starts, from the newest
 * secrets it cannot open, instead of leaving it to the first user refused.
 */
describe('the MFA key checked at start against the stored secrets', () => {
  const [keyA, keyB] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
  let a: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ MFA_ENCRYPTION_KEY: keyA });
  });
  afterAll(async () => a.close());

  it('says so when the key opens them all, errs when it opens none of them, and warns when it opens some', async () => {
    const throughA = await mfaPeople(() => a, 'key-a').enrolled();

    const same = await replica(a, keyA);
    try {
      const info = await eventuallyDefined(() => same.logged().find(aboutTheKey));
      expect(info).toMatchObject({ level: 30, sampled: 1, unreadable: 0, msg: expect.stringContaining('opens the 1 newest') });
    } finally {
      await same.replica.api.close();
    }

    const b = await replica(a, keyB);
    try {
      const error = await eventuallyDefined(() => b.logged().find(aboutTheKey));
      expect(error).toMatchObject({ level: 50, sampled: 1, unreadable: 1, msg: expect.stringContaining('opens none of the 1 newest') });
      expect(error.msg).toContain('MFA_ENCRYPTION_KEY');
      // What the line warns of: B refuses a right code of the app enrolled through A.
      const signedIn = await b.replica.request('POST', '/v1/auth/signin', { json: { username: throughA.username, password: throughA.password } });
      const step = await b.replica.request('POST', '/v1/auth/signin/mfa', { json: { mfa_token: signedIn.body.mfa_token, code: oathtoolTotp(throughA.secret, 1) } });
      expect({ status: step.status, code: step.body.code }).toEqual({ status: 400, code: 'INVALID_MFA_CODE' });
      // An app enrolled through B: the database now holds secrets sealed with either key.
      await mfaPeople(() => b.replica, 'key-b').enrolled();
    } finally {
      await b.replica.api.close();
    }

    const mixed = await replica(a, keyA);
    try {
      const warning = await eventuallyDefined(() => mixed.logged().find(aboutTheKey));
      expect(warning).toMatchObject({ level: 40, sampled: 2, unreadable: 1, msg: expect.stringContaining('1 of the 2 newest') });
    } finally {
      await mixed.replica.api.close();
    }

  });
});
