import { InvalidRefreshTokenError } from '../../../src/application/auth/session.errors';
import { toProblem } from '../../../src/interfaces/http/error-handler';
import { authorizationServerMetadata, issuerPathForms } from '../../../src/interfaces/http/oauth/authorization-server-metadata';
import { InvalidScopeError } from '../../../src/application/service-accounts/service-token.errors';
import { OAuthError, toOAuthError } from '../../../src/interfaces/http/oauth/oauth-error';
import { HttpProblemError } from '../../../src/interfaces/http/problem';

const oauthOf = (error: unknown) => {
  const { problem, headers } = toProblem(error);
  return toOAuthError(error, { code: problem.code, status: problem.status, headers });
};

describe('authorization server metadata (#21)', () => {
  const grants = [
    { grantType: 'refresh_token', clientAuthMethods: ['none'] },
    { grantType: 'client_credentials', clientAuthMethods: ['client_secret_basic', 'none'] },
  ];

  it('publishes each grant and each client authentication method once, and each key algorithm once in key order', () => {
    const metadata = authorizationServerMetadata({
      issuer: 'https://id.example.com',
      publicUrl: 'https://api.example.com',
      algorithms: ['EdDSA', 'ES256', 'EdDSA', 'RS256'],
      grants,
    });
    expect(metadata).toMatchObject({
      issuer: 'https://id.example.com',
      jwks_uri: 'https://api.example.com/.well-known/jwks.json',
      token_endpoint: 'https://api.example.com/oauth/token',
      grant_types_supported: ['refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
      id_token_signing_alg_values_supported: ['EdDSA', 'ES256', 'RS256'],
    });
  });

  it('keeps the issuer exactly as configured, even when it is not a URL', () => {
    expect(authorizationServerMetadata({ issuer: 'access-control', publicUrl: 'http://localhost:3000', algorithms: ['ES256'], grants }).issuer).toBe('access-control');
  });

  it.each([
    ['https://id.example.com', []],
    ['https://id.example.com/', []],
    ['access-control', []],
    ['https://id.example.com/tenants/a/', ['/.well-known/oauth-authorization-server/tenants/a', '/.well-known/openid-configuration/tenants/a', '/tenants/a/.well-known/openid-configuration']],
    // A path the router would read as a parameter is not routed under its own name.
    ['https://id.example.com/:id', []],
  ])('derives the well-known paths of issuer %s', (issuer, paths) => {
    expect(issuerPathForms(issuer)).toEqual(paths);
  });
});

describe('the token endpoint’s error mapping (#21)', () => {
  it('answers a refused refresh token with invalid_grant, 400', () => {
    expect(oauthOf(new InvalidRefreshTokenError())).toMatchObject({ error: 'invalid_grant', status: 400 });
  });

  it('keeps an OAuthError as it is', () => {
    const error = new OAuthError('invalid_client', 'unknown client', 401, { 'www-authenticate': 'Basic realm="access-control"' });
    expect(oauthOf(error)).toBe(error);
  });

  it('answers what the body parser refuses with invalid_request, 400', () => {
    for (const code of ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_INVALID_CONTENT_LENGTH']) {
      expect(oauthOf(Object.assign(new Error('x'), { code, statusCode: 415 }))).toMatchObject({ error: 'invalid_request', status: 400 });
    }
  });

  it('answers a body over BODY_LIMIT with invalid_request, 413, the status a body too large gets everywhere', () => {
    expect(oauthOf(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }))).toMatchObject({
      error: 'invalid_request',
      status: 413,
      description: 'The body is larger than this endpoint reads',
    });
  });

  it('keeps the throttle’s 429 and Retry-After, and a database away is temporarily_unavailable, 503', () => {
    expect(oauthOf(new HttpProblemError('TOO_MANY_REQUESTS', 'slow down', { 'retry-after': '7' }))).toMatchObject({
      error: 'invalid_request',
      status: 429,
      headers: { 'retry-after': '7' },
    });
    expect(oauthOf(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toMatchObject({ error: 'temporarily_unavailable', status: 503 });
  });

  it('answers an unknown fault with server_error and says nothing about it', () => {
    const refusal = oauthOf(new Error('SELECT * FROM secrets'));
    expect(refusal).toMatchObject({ error: 'server_error', status: 500 });
    expect(refusal.description).not.toContain('SELECT');
  });

  it('describes in the characters RFC 6749 §5.2 allows: printable ASCII but " and \\, whatever the message held', () => {
    const allowed = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;
    expect(new OAuthError('invalid_request', 'the account’s “role” said "no" at C:\\x, é, 🔑\n').description).toBe(
      "the account's 'role' said 'no' at C:/x, ?, ???",
    );
    // The domain's own messages, mapped: the scope's refusal held a typographic apostrophe.
    expect(oauthOf(new InvalidScopeError()).description).toMatch(allowed);
    expect(oauthOf(new InvalidScopeError()).description).toContain("account's");
  });
});
