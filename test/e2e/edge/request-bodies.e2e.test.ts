/**
 * Request bodies the service cannot read as sent: a content-coding, bytes that are not UTF-8 (review of the HTTP edge,
 * items 2 and 3). Each answer is checked against the OpenAPI document too (TestApp.request).
 */
import { gzipSync } from 'node:zlib';
import { useEdgeApp } from './edge-app';

const SIGN_IN = JSON.stringify({ username: 'nobody', password: 'not-the-password-1' });

describe('a content-coded request body', () => {
  const app = useEdgeApp();

  it.each([
    ['gzip', gzipSync(SIGN_IN)],
    ['br', Buffer.from(SIGN_IN)],
    ['identity, gzip', gzipSync(SIGN_IN)],
  ])('is 415 UNSUPPORTED_MEDIA_TYPE with Accept-Encoding: identity (Content-Encoding: %s)', async (coding, body) => {
    const response = await fetch(`${app().url}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': coding },
      body,
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-encoding')).toBe('identity');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('is read as usual with Content-Encoding: identity', async () => {
    const response = await app().request('POST', '/v1/auth/signin', { body: SIGN_IN, headers: { 'content-type': 'application/json', 'content-encoding': 'identity' } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('INVALID_CREDENTIALS');
  });
});

describe('a body that is not UTF-8', () => {
  const app = useEdgeApp();
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  const post = (path: string, contentType: string, body: Buffer, token?: string) =>
    fetch(`${app().url}${path}`, { method: 'POST', headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });

  it('is 400 MALFORMED_JSON as JSON, and nothing is stored; UTF-8 beyond ASCII is taken', async () => {
    const token = await app().signIn();
    const bad = await post('/v1/users/invite', 'application/json', bytes('{"email":"bad@example.com","name":"bad', [0xff, 0xfe], ' name"}'), token);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'MALFORMED_JSON' });
    const listed = await app().request('GET', '/v1/users', { token });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain('bad@example.com');

    const good = await post('/v1/users/invite', 'application/json', Buffer.from('{"email":"zoe@example.com","name":"Zoë 名前"}'), token);
    expect(good.status).toBe(201);
  });

  it('is 400 VALIDATION_FAILED naming body as a form, raw or percent-encoded; invalid_request at the OAuth endpoints', async () => {
    for (const body of [bytes('token=abc', [0xff], '&name=x'), bytes('token=abc%FF%FE&name=x')]) {
      const page = await post('/invitations/accept', 'application/x-www-form-urlencoded', body);
      expect(page.status).toBe(400);
      expect(await page.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'body' }] });
    }
    const oauth = await post('/oauth/token', 'application/x-www-form-urlencoded', bytes('grant_type=refresh_token&refresh_token=%FF%FE'));
    expect(oauth.status).toBe(400);
    expect(await oauth.json()).toMatchObject({ error: 'invalid_request' });
  });
});
