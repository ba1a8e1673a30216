import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asValue } from 'awilix';
import { CapturingMailer } from '../support/capturing-mailer';
import { CommandError, run } from '../support/commands';
import { ensureOpenApiGenerator, generateClient, OPENAPI_GENERATOR_VERSION } from '../support/openapi-generator';
import { everyKeyTypeSettings } from '../support/every-key-type';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * What the OpenAPI document promises its consumers beyond each answer's shape (openapi-contract.e2e.test.ts
 * calls every operation): a client generated from it reads what the server sends, and every request body it
 * declares refuses a field it does not name, as the server does.
 */
describe('the OpenAPI document, as its consumers read it', () => {
  let app: TestApp;
  let token: string;
  const mailer = new CapturingMailer();
  beforeAll(async () => {
    // Every key type the service signs with is in its key set: ES256 the current key, RS256 and EdDSA retired.
    app = await startTestApp(everyKeyTypeSettings(), { mailer: asValue(mailer) });
    token = await app.signIn();
  });
  afterAll(async () => app?.close());

  async function invite(email: string): Promise<{ id: string; secret: string }> {
    const before = mailer.sent.length;
    const response = await app.request('POST', '/v1/users/invite', { token, json: { email } });
    expect(response.status).toBe(201);
    return { id: response.headers.get('location')!.replace('/v1/users/', ''), secret: await mailer.tokenSentTo(email, before) };
  }

  /**
   * #22: OpenAPI Generator turned the key set's `oneOf` into types keeping only `kty`, `crv` and `alg`, so a
   * generated client dropped `kid`, `use` and the key material without a word. Here the document this app
   * serves is fed to the generator the consumers use (test/support/openapi-generator.ts), the
   * `typescript-fetch` client compiled with this repository's TypeScript, and the key set read through it.
   */
  describe(`a client generated from /docs/json by OpenAPI Generator ${OPENAPI_GENERATOR_VERSION}`, () => {
    let work: string;
    let client: { AuthApi: new (configuration: unknown) => { getJwks(): Promise<{ keys: object[] }> }; Configuration: new (parameters: object) => unknown };
    let typeErrors: string;
    let javaSources: string;

    beforeAll(async () => {
      work = mkdtempSync(path.join(os.tmpdir(), 'ac-generated-client-'));
      const jar = await ensureOpenApiGenerator(); // the first run on a machine may fetch it from Maven Central
      const spec = path.join(work, 'openapi.json');
      writeFileSync(spec, (await app.request('GET', '/docs/json')).text);
      javaSources = path.join(work, 'java');
      await Promise.all([
        generateClient(jar, spec, 'typescript-fetch', path.join(work, 'typescript-fetch')),
        generateClient(jar, spec, 'java', javaSources, ['--library', 'native', '--global-property', 'models,modelDocs=false,modelTests=false']),
      ]);
      // A consumer reading every member through the client's own types: a member the model lost fails to compile.
      writeFileSync(
        path.join(work, 'consumer.ts'),
        [
          "import { AuthApi } from './typescript-fetch';",
          "type Key = Awaited<ReturnType<AuthApi['getJwks']>>['keys'][number];",
          'export const members = (key: Key) => [key.kty, key.kid, key.alg, key.use, key.crv, key.x, key.y, key.n, key.e];',
          '',
        ].join('\n'),
      );
      const compilerOptions = { target: 'ES2022', module: 'commonjs', moduleResolution: 'node', lib: ['ES2022', 'DOM'], strict: true, skipLibCheck: true, types: [], outDir: 'out', rootDir: '.' };
      writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['typescript-fetch/**/*.ts', 'consumer.ts'] }));
      // tsc emits even when a file does not type-check: the client runs below, its type errors are a case of their own.
      const tsc = path.resolve(__dirname, '../../node_modules/typescript/bin/tsc');
      typeErrors = await run(process.execPath, [tsc, '-p', path.join(work, 'tsconfig.json')], { timeoutMs: 120_000 }).then(
        () => '',
        (error: unknown) => (error instanceof CommandError ? error.output || error.message : String(error)),
      );
      client = require(path.join(work, 'out/typescript-fetch/index.js')); // eslint-disable-line @typescript-eslint/no-require-imports
    }, 900_000);
    afterAll(() => work && rmSync(work, { recursive: true, force: true }));

    /** The members a key has, as a client shows them (a generated model sets every member it knows, absent ones undefined). */
    const members = (key: object) => Object.keys(key).filter((name) => (key as Record<string, unknown>)[name] !== undefined).sort();

    it('reads every key of the set whole through its API class: kid, alg, use, kty and the key material of EC, RSA and OKP keys', async () => {
      const served = (await app.request('GET', '/.well-known/jwks.json')).body.keys as object[];
      const read = await new client.AuthApi(new client.Configuration({ basePath: app.url, fetchApi: fetch })).getJwks();
      expect(read.keys.map(members)).toEqual([
        ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'],
        ['alg', 'e', 'kid', 'kty', 'n', 'use'],
        ['alg', 'crv', 'kid', 'kty', 'use', 'x'],
      ]);
      expect(read.keys.map((key) => Object.fromEntries(members(key).map((name) => [name, (key as Record<string, unknown>)[name]])))).toEqual(served);
    });

    it('types every member in the typescript-fetch model: a consumer reading them compiles', () => {
      expect(typeErrors).toBe('');
    });

    it('declares every member in the java (native) model of the keys', () => {
      const models = path.join(javaSources, 'src/main/java/org/openapitools/client/model');
      const keyModel = /private List<(\w+)> keys/.exec(readFileSync(path.join(models, 'JwkSet.java'), 'utf8'))?.[1];
      expect(readdirSync(models)).toContain(`${keyModel}.java`);
      const fields = [...readFileSync(path.join(models, `${keyModel}.java`), 'utf8').matchAll(/^\s*private\s+[\w<>, ]+\s+(\w+)\s*(?:=[^;]*)?;/gm)].map((m) => m[1]);
      expect(fields).toEqual(expect.arrayContaining(['kty', 'kid', 'alg', 'use', 'crv', 'x', 'y', 'n', 'e']));
    });
  });

  describe('a body field the operation does not name', () => {
    it('is refused with 400 naming it: an invitation with "admin": true creates no one', async () => {
      const response = await app.request('POST', '/v1/users/invite', { token, json: { email: 'mass@example.com', admin: true } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'admin', message: 'is not a field of this request' }] });
      const users = await app.request('GET', '/v1/users?page_size=100', { token });
      expect(users.body.users.map((u: { email: string }) => u.email)).not.toContain('mass@example.com');
    });

    it('is refused on sign-in and on accepting, before any credential is looked at', async () => {
      const signIn = await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'wrong password here', remember: true } });
      expect(signIn.status).toBe(400);
      expect(signIn.body.errors).toEqual([{ field: 'remember', message: 'is not a field of this request' }]);
      const { secret } = await invite('strict@example.com');
      const body = { token: secret, name: 'Strict', username: 'strict', password: 'a long enough passphrase' };
      const refused = await app.request('POST', '/v1/invitations/accept', { json: { ...body, role: 'admin' } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ field: 'role', message: 'is not a field of this request' }]);
      // The refusal consumed nothing: the same link still joins.
      expect((await app.request('POST', '/v1/invitations/accept', { json: body })).status).toBe(200);
    });

    it('is what the document says: every request body forbids other fields', () => {
      const doc = app.contract.document as unknown as {
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { additionalProperties?: unknown } }> } }>>;
      };
      const bodies = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.requestBody ? Object.values(op.requestBody.content) : [])));
      // But the OAuth endpoints' forms (#21): RFC 6749 §3.2 says unknown parameters are ignored (RFC 7009 and 7662 too).
      const oauth = ['/oauth/token', '/oauth/revoke', '/oauth/introspect'].flatMap((path) => Object.values(doc.paths[path]!.post!.requestBody!.content));
      expect(bodies.length).toBe(30); // 22, the console session's hand-over (#25), the passkeys' four (#24), and the proofs that adding a factor takes (three)
      for (const media of bodies) if (!oauth.includes(media)) expect(media.schema.additionalProperties).toBe(false);
    });
  });
});
