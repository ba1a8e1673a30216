import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { consoleBundleDirectory, loadConsoleBundle } from '../../../src/interfaces/http/console/console-bundle';
import { assertSameOrigin, CONSOLE_SESSION_PATH, sessionCookie, sessionCookieValue } from '../../../src/interfaces/http/console/session-cookie';
import { CONSOLE_CSP, consoleRoutes } from '../../../src/interfaces/http/routes/console.routes';

describe('the console’s files at /console (#25)', () => {
  let dir: string;
  let app: FastifyInstance;
  let base: string;
  /** Over a loopback socket (light-my-request's inject needs an ES-module-only `cookie` jest cannot load here). */
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${url}`, { headers });
    const body = await response.text();
    return { statusCode: response.status, headers: Object.fromEntries(response.headers), body, json: () => JSON.parse(body) };
  };
  const page = '<!doctype html><link rel="stylesheet" href="/console/assets/main-AB12.css"><script type="module" src="/console/assets/main-CD34.js"></script>';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ac-console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), page);
    writeFileSync(path.join(dir, 'assets', 'main-CD34.js'), 'console.log("the console")');
    writeFileSync(path.join(dir, 'assets', 'main-AB12.css'), 'body{margin:0}');
    writeFileSync(path.join(dir, 'assets', 'notes.txt'), 'not served');
    app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    await app.register(consoleRoutes({ bundle: loadConsoleBundle(dir) }));
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the page at /console and at every console path, revalidated each time, under the console’s CSP', async () => {
    for (const url of ['/console', '/console/', '/console/users', '/console/users/0190-abc?q=ada']) {
      const answer = await get(url);
      expect([answer.statusCode, answer.headers['content-type'], answer.body]).toEqual([200, 'text/html; charset=utf-8', page]);
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers['content-security-policy']).toBe(CONSOLE_CSP);
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
  });

  it('answers the hashed assets cached for good, gzipped when the client takes it', async () => {
    const plain = await get('/console/assets/main-CD34.js', { 'accept-encoding': 'identity' });
    expect([plain.statusCode, plain.headers['content-type'], plain.body]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log("the console")']);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // fetch takes gzip, and unzips it.
    const zipped = await get('/console/assets/main-AB12.css');
    expect([zipped.headers['content-encoding'], zipped.headers.vary, zipped.body]).toEqual(['gzip', 'accept-encoding', 'body{margin:0}']);
  });

  it('answers 404 problems for an asset it does not have, and a file of another kind', async () => {
    for (const url of ['/console/assets/main-0000.js', '/console/assets/notes.txt']) {
      const answer = await get(url);
      expect([answer.statusCode, answer.headers['content-type'], answer.json().code]).toEqual([404, 'application/problem+json; charset=utf-8', 'NOT_FOUND']);
    }
  });

  it('says to build when the tree has no console', async () => {
    const bare = Fastify();
    await bare.register(consoleRoutes({ bundle: loadConsoleBundle(path.join(dir, 'missing')) }));
    const response = await fetch(`${await bare.listen({ host: '127.0.0.1', port: 0 })}/console`);
    expect([response.status, ((await response.json()) as { detail: string }).detail]).toEqual([404, 'The console was not built with this installation: run npm run build']);
    await bare.close();
  });

  it('finds dist/console of the installation, from the sources as from the build', () => {
    const root = path.resolve(__dirname, '../../..');
    expect(consoleBundleDirectory(path.join(root, 'src/interfaces/http/console'))).toBe(path.join(root, 'dist', 'console'));
    expect(consoleBundleDirectory(path.join(root, 'dist/src/interfaces/http/console'))).toBe(path.join(root, 'dist', 'console'));
  });
});

describe('the console session’s cookie and CSRF check (#25)', () => {
  const request = (headers: Record<string, string>, protocol: 'http' | 'https' = 'http') => ({ headers, protocol, host: 'ac.example:3000' }) as unknown as FastifyRequest;

  it('writes an HttpOnly, SameSite=Strict cookie of one path, Secure over https', () => {
    expect(sessionCookie('tok', { secure: false, maxAgeSeconds: 60 })).toBe(`ac_console_session=tok; Path=${CONSOLE_SESSION_PATH}; Max-Age=60; HttpOnly; SameSite=Strict`);
    expect(sessionCookie('tok', { secure: true, maxAgeSeconds: 60 })).toMatch(/; Secure$/);
  });

  it('reads the token among other cookies, and nothing from a malformed one', () => {
    expect(sessionCookieValue('a=1; ac_console_session=abc_DEF-123; b=2')).toBe('abc_DEF-123');
    expect(sessionCookieValue('ac_console_session=not a token')).toBeNull();
    expect(sessionCookieValue('xac_console_session=abc')).toBeNull();
    expect(sessionCookieValue(undefined)).toBeNull();
  });

  it('lets through this origin, PUBLIC_URL’s, and a client that names none; refuses any other', () => {
    const publicUrl = 'https://ac.example.com';
    expect(() => assertSameOrigin(request({}), publicUrl)).not.toThrow();
    expect(() => assertSameOrigin(request({ origin: 'http://ac.example:3000', 'sec-fetch-site': 'same-origin' }), publicUrl)).not.toThrow();
    expect(() => assertSameOrigin(request({ origin: 'https://ac.example.com' }), publicUrl)).not.toThrow();
    expect(() => assertSameOrigin(request({ origin: 'https://evil.example' }), publicUrl)).toThrow(expect.objectContaining({ code: 'CROSS_SITE_REQUEST' }));
    expect(() => assertSameOrigin(request({ 'sec-fetch-site': 'same-site' }), publicUrl)).toThrow(expect.objectContaining({ code: 'CROSS_SITE_REQUEST' }));
    expect(() => assertSameOrigin(request({ origin: 'null' }), publicUrl)).toThrow(expect.objectContaining({ code: 'CROSS_SITE_REQUEST' }));
  });
});
