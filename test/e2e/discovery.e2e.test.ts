import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { Permissions } from '../../src/domain/permissions/permission';
import { startTestApp, type TestApp } from '../support/test-app';
import { decodeJwt } from '../support/tokens';

/**
 * Discovery (#21): the authorization server metadata at RFC 8414's and OpenID Discovery's paths, the
 * issuer equal to every token's `iss`, the algorithms of every key in the set, cacheable as the set.
 */
const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();

describe('discovery metadata (#21)', () => {
  describe('on the embedded default issuer (PUBLIC_URL, no JWT_ISSUER)', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ PUBLIC_URL: 'https://access-control.example.com' });
    });
    afterAll(async () => app.close());

    it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
      '%s: publishes the issuer, its keys and token endpoint, and nothing that does not exist',
      async (path) => {
        const response = await app.request('GET', path);

        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(response.body).toEqual({
          issuer: 'https://access-control.example.com',
          jwks_uri: 'https://access-control.example.com/.well-known/jwks.json',
          token_endpoint: 'https://access-control.example.com/oauth/token',
          grant_types_supported: ['refresh_token', 'client_credentials'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
          token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA'],
          scopes_supported: Object.values(Permissions),
          revocation_endpoint: 'https://access-control.example.com/oauth/revoke',
          revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
          // RFC 8414 §2: required wherever private_key_jwt is a method of the endpoint.
          revocation_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA'],
          introspection_endpoint: 'https://access-control.example.com/oauth/introspect',
          introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
          introspection_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256', 'EdDSA'],
          response_types_supported: [],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['ES256'],
          claims_supported: ['iss', 'aud', 'sub', 'iat', 'exp', 'jti', 'ver', 'client_id', 'scope'],
          service_documentation: 'https://access-control.example.com/docs',
        });
        // No login flow, no ID tokens, no userinfo: none of their endpoints is advertised.
        for (const absent of ['authorization_endpoint', 'userinfo_endpoint']) {
          expect(response.body).not.toHaveProperty(absent);
        }
      },
    );

    it('has an issuer equal, character for character, to the iss of a fresh token', async () => {
      const metadata = (await app.request('GET', '/.well-known/openid-configuration')).body;
      expect(decodeJwt(await app.signIn()).payload.iss).toBe(metadata.issuer);
    });

    it('is public and cacheable exactly as the JWK set is', async () => {
      const jwks = await app.request('GET', '/.well-known/jwks.json');
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const response = await app.request('GET', path, { headers: { authorization: 'Bearer not-a-token' } });
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('public, max-age=300');
        expect(response.headers.get('cache-control')).toBe(jwks.headers.get('cache-control'));
      }
    });

    it('serves no path-derived forms for an issuer without a path', async () => {
      expect((await fetch(`${app.url}/.well-known/oauth-authorization-server/x`)).status).toBe(404);
    });
  });

  describe('with PUBLIC_URL ending in a slash', () => {
    it('drops the slash from the issuer and names the issuer in the ready line, so the operator sees what clients must write', async () => {
      const lines: string[] = [];
      const app = await startTestApp({ PUBLIC_URL: 'http://127.0.0.1:4507/ac/', LOG_LEVEL: 'info' }, {}, undefined, { write: (line) => lines.push(line) });
      try {
        const metadata = (await app.request('GET', '/.well-known/openid-configuration')).body;
        expect(metadata.issuer).toBe('http://127.0.0.1:4507/ac');
        const ready = lines.map((line) => JSON.parse(line) as { msg: string; issuer?: string }).find((line) => line.msg.startsWith('access-control ready'));
        expect(ready).toMatchObject({ issuer: 'http://127.0.0.1:4507/ac', msg: expect.stringContaining('issuer http://127.0.0.1:4507/ac ') });
      } finally {
        await app.close();
      }
    });
  });

  describe('with a JWT_ISSUER that has a path, and rotated keys of three types', () => {
    let app: TestApp;
    const current = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const retired = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ed25519'), generateKeyPairSync('rsa', { modulusLength: 2048 })];
    beforeAll(async () => {
      app = await startTestApp({
        PUBLIC_URL: 'https://id.example.com/access-control',
        JWT_ISSUER: 'https://id.example.com/access-control',
        JWT_PRIVATE_KEY: pem(current.privateKey),
        JWT_PUBLIC_KEY: pem(current.publicKey),
        JWT_PREVIOUS_PUBLIC_KEYS: retired.map((pair) => pem(pair.publicKey)).join('\n'),
      });
    });
    afterAll(async () => app.close());

    it('lists the alg of every key in the JWK set, the current key’s first, each once', async () => {
      const jwks = (await app.request('GET', '/.well-known/jwks.json')).body as { keys: { alg: string }[] };
      const metadata = (await app.request('GET', '/.well-known/openid-configuration')).body;

      expect(jwks.keys.map((key) => key.alg)).toEqual(['RS256', 'ES256', 'EdDSA', 'RS256']);
      expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
      expect(decodeJwt(await app.signIn()).header.alg).toBe(metadata.id_token_signing_alg_values_supported[0]);
    });

    it('keeps the issuer’s path in issuer and the endpoints, and equals a fresh token’s iss', async () => {
      const metadata = (await app.request('GET', '/.well-known/oauth-authorization-server')).body;
      expect(metadata.issuer).toBe('https://id.example.com/access-control');
      expect(metadata.jwks_uri).toBe('https://id.example.com/access-control/.well-known/jwks.json');
      expect(metadata.token_endpoint).toBe('https://id.example.com/access-control/oauth/token');
      expect(decodeJwt(await app.signIn()).payload.iss).toBe(metadata.issuer);
    });

    it.each([
      '/.well-known/oauth-authorization-server/access-control', // RFC 8414 §3.1: inserted before the path
      '/access-control/.well-known/openid-configuration', // OpenID Discovery §4: appended (a proxy forwarding the prefix)
      '/.well-known/openid-configuration/access-control', // the form Spring Security also tries
    ])('serves the same document at %s, cacheable the same way', async (path) => {
      const root = await app.request('GET', '/.well-known/openid-configuration');
      const response = await fetch(`${app.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(await response.json()).toEqual(root.body);
    });
  });
});
