/**
 * What the HTTP edge answers to requests no route takes: unknown and odd paths, methods, heads (review of the HTTP
 * edge, items 4 to 7). Every answer is problem+json; nothing a client sent that may be secret comes back.
 */
import http from 'node:http';
import { closedWithin, openRaw } from '../../support/raw-connection';
import { useEdgeApp } from './edge-app';

describe('odd requests', () => {
  const app = useEdgeApp();

  describe('a path no route serves', () => {
    it('is 404 NOT_FOUND showing the path without its query', async () => {
      const response = await app().request('GET', '/invitations/acceptx?token=SECRET-TOKEN-123');
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND', detail: 'No route GET /invitations/acceptx' });
      expect(response.text).not.toContain('SECRET');

      const token = await app().signIn();
      const v1 = await app().request('GET', '/v1/nothing-here?api_key=SECRET-KEY', { token });
      expect(v1.status).toBe(404);
      expect(v1.body.detail).toBe('No route GET /v1/nothing-here');
    });

    it('shows at most 200 characters of a long path', async () => {
      const path = `/${'a'.repeat(10_000)}`;
      const response = await app().request('GET', `${path}?q=1`);
      expect(response.status).toBe(404);
      expect(response.body.detail).toBe(`No route GET ${path.slice(0, 200)}…`);
    });
  });
});

describe('static routes', () => {
  const app = useEdgeApp();
  const get = (path: string) => fetch(`${app().url}${path}`);

  it.each(['/docs/static/', '/docs/static/../../package.json', '/docs/static/%2e%2e/%2e%2e/package.json', '/console/assets/', '/console/assets/../../package.json', '/console/assets/%2e%2e/x'])(
    'answers 404 NOT_FOUND to %s, as to any path that serves nothing',
    async (path) => {
      // fetch would resolve the dots: the raw path goes as written.
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(app().url);
        http.get({ host: hostname, port, path }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        }).on('error', reject);
      });
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND' });
    },
  );

  it('still serves the files there', async () => {
    expect((await get('/docs/static/index.html')).status).toBe(200);
  });
});

describe('a CONNECT', () => {
  const app = useEdgeApp();

  it('is 405 METHOD_NOT_ALLOWED problem+json, and the connection closed', async () => {
    const { host } = new URL(app().url);
    const connection = await openRaw(app().url);
    connection.write(`CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    const closed = await closedWithin(connection, 3_000);
    connection.socket.destroy();
    expect(closed?.text).toMatch(/^HTTP\/1\.1 405 /);
    expect(closed?.text).toMatch(/\r\ncontent-type: application\/problem\+json; charset=utf-8\r\n/i);
    expect(closed?.text).toContain('"code":"METHOD_NOT_ALLOWED"');
  });
});

describe('an ambiguous head', () => {
  const app = useEdgeApp();

  it.each([
    ['two Host headers', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n'],
    ['an HTTP/2.0 request line', 'GET /healthz HTTP/2.0\r\nHost: localhost\r\n\r\n'],
  ])('is 400 MALFORMED_REQUEST problem+json: %s', async (_what, head) => {
    const connection = await openRaw(app().url);
    connection.write(head);
    const closed = await closedWithin(connection, 3_000);
    const text = closed?.text ?? connection.received();
    connection.socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toMatch(/\r\ncontent-type: application\/problem\+json; charset=utf-8\r\n/i);
    expect(text).toContain('"code":"MALFORMED_REQUEST"');
  });
});

describe('a malformed request pipelined after valid ones', () => {
  const app = useEdgeApp();

  /** The answers in `text`, in the order they came: each one's status and body, and whether its body is as long as it says. */
  function answers(text: string): { status: number; body: string; whole: boolean }[] {
    return text.split(/(?=HTTP\/1\.1 \d{3} )/).map((answer) => {
      const [head, body = ''] = answer.split('\r\n\r\n', 2);
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      return { status: Number(head.slice(9, 12)), body, whole: Number(length) === Buffer.byteLength(body, 'latin1') };
    });
  }

  // Node's parser refuses the last request while the ones before are still being answered (/readyz asks the
  // database): HTTP/1.1 answers in the order asked (RFC 9112 §9.3.2), so theirs come whole, then the 400.
  it.each([
    ['one request', ['/readyz']],
    ['two requests', ['/readyz', '/healthz']],
  ])('answers %s before it, then 400 MALFORMED_REQUEST, and closes', async (_what, paths) => {
    const connection = await openRaw(app().url);
    connection.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`).join('') + 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nNot a header\r\n\r\n');
    const closed = await closedWithin(connection, 3_000);
    const text = closed?.text ?? connection.received();
    connection.socket.destroy();
    const got = answers(text);
    expect(got.map(({ status }) => status)).toEqual([...paths.map(() => 200), 400]);
    expect(got.every(({ whole }) => whole)).toBe(true);
    expect(got[0].body).toContain('"status":"ready"');
    if (paths.length > 1) expect(got[1].body).toBe('{"status":"ok"}');
    expect(got.at(-1)?.body).toContain('"code":"MALFORMED_REQUEST"');
    expect(closed).toBeDefined();
  });
});
