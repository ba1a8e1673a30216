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
