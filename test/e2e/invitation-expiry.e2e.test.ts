import { asValue } from 'awilix';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp } from '../support/test-app';

/** A pending user's answer says when the invitation link expires (#25: the console's pending invitations). */
describe('GET /v1/users/{id}: the invitation’s expiry', () => {
  let app: TestApp;
  let token: string;
  const mailer = new CapturingMailer();

  beforeAll(async () => {
    app = await startTestApp({ INVITATION_TTL: '2d' }, { mailer: asValue(mailer) });
    token = await app.signIn();
  });
  afterAll(async () => app?.close());

  it('is the mailed link’s expiry while pending, moves with a resend, and is gone once joined', async () => {
    let before = mailer.sent.length;
    const invited = await app.request('POST', '/v1/users/invite', { token, json: { email: 'expiry@example.com' } });
    const path = invited.headers.get('location')!;
    await mailer.tokenSentTo('expiry@example.com', before);
    const first = await app.request('GET', path, { token });
    expect(first.body.invitation_expires_date).toBe(mailer.sent.at(-1)!.expiresAt.toISOString());
    const left = Date.parse(first.body.invitation_expires_date) - Date.now();
    expect(left).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect(left).toBeLessThanOrEqual(2 * 86_400_000);

    before = mailer.sent.length;
    expect((await app.request('POST', `${path}/invitation/resend`, { token })).status).toBe(202);
    const secret = await mailer.tokenSentTo('expiry@example.com', before);
    expect((await app.request('GET', path, { token })).body.invitation_expires_date).toBe(mailer.sent.at(-1)!.expiresAt.toISOString());

    expect((await app.request('POST', '/v1/invitations/accept', { json: { token: secret, name: 'Expiry', username: 'expiry', password: 'a long enough passphrase' } })).status).toBe(200);
    expect((await app.request('GET', path, { token })).body).not.toHaveProperty('invitation_expires_date');
    // Never in the list, whose pages stay one statement.
    expect((await app.request('GET', '/v1/users', { token })).body.users.every((u: object) => !('invitation_expires_date' in u))).toBe(true);
  });
});
