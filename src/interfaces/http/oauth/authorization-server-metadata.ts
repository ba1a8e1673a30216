import type { SigningAlgorithm } from '../../../infrastructure/crypto/signing-keys';

/** Where the OAuth endpoints are, under PUBLIC_URL: the paths discovery publishes and the routes serve. */
export const OAUTH_PATHS = {
  jwks: '/.well-known/jwks.json',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
} as const;

/**
 * A grant the token endpoint offers, as discovery publishes it: its `grant_type` and the client
 * authentication methods (RFC 7591 names) it accepts. The token endpoint and the metadata read the same
 * list, so nothing is advertised that the endpoint does not do.
 */
export interface GrantDescription {
  grantType: string;
  clientAuthMethods: readonly string[];
}

/** The claims an access token carries (docs/VERIFYING-TOKENS.md): a user's `ver`; a service account's `client_id` and `scope`. */
export const ACCESS_TOKEN_CLAIMS = ['iss', 'aud', 'sub', 'iat', 'exp', 'jti', 'ver', 'client_id', 'scope'] as const;

export interface MetadataSettings {
  /** `iss` of every token (JWT_ISSUER, default PUBLIC_URL): the metadata's `issuer`, character for character. */
  issuer: string;
  /** Where the service is reached (PUBLIC_URL): the endpoints' URLs start with it. */
  publicUrl: string;
  /** The `alg` of every key in the JWK set, the current key's first. */
  algorithms: readonly SigningAlgorithm[];
  grants: readonly GrantDescription[];
  /** The `alg`s a client assertion (private_key_jwt) may be signed with; published when a grant takes that method. */
  clientAssertionAlgorithms?: readonly string[];
  /** The scopes a token may be asked for (the permission names); published when given. */
  scopes?: readonly string[];
  /**
   * The client authentication methods of the revocation (RFC 7009) and introspection (RFC 7662) endpoints,
   * as the routes take them; neither endpoint is published without them.
   */
  tokenEndpoints?: { revocationAuthMethods: readonly string[]; introspectionAuthMethods: readonly string[] };
}

/**
 * The authorization server's metadata (RFC 8414), which is also an OpenID Provider's (OpenID Connect
 * Discovery 1.0 §3) for what this service does: it issues access tokens at its token endpoint and
 * publishes their keys. No authorization endpoint, no ID tokens, no userinfo: none is advertised
 * (docs/DECISIONS.md, "Discovery metadata").
 */
export function authorizationServerMetadata(settings: MetadataSettings) {
  const unique = <T>(values: readonly T[]) => [...new Set(values)];
  return {
    issuer: settings.issuer,
    jwks_uri: `${settings.publicUrl}${OAUTH_PATHS.jwks}`,
    token_endpoint: `${settings.publicUrl}${OAUTH_PATHS.token}`,
    grant_types_supported: settings.grants.map((grant) => grant.grantType),
    token_endpoint_auth_methods_supported: unique(settings.grants.flatMap((grant) => grant.clientAuthMethods)),
    ...(settings.clientAssertionAlgorithms && settings.grants.some((grant) => grant.clientAuthMethods.includes('private_key_jwt'))
      ? { token_endpoint_auth_signing_alg_values_supported: [...settings.clientAssertionAlgorithms] }
      : {}),
    ...(settings.scopes ? { scopes_supported: [...settings.scopes] } : {}),
    ...(settings.tokenEndpoints
      ? {
          revocation_endpoint: `${settings.publicUrl}${OAUTH_PATHS.revocation}`,
          revocation_endpoint_auth_methods_supported: [...settings.tokenEndpoints.revocationAuthMethods],
          ...assertionAlgorithms('revocation', settings.tokenEndpoints.revocationAuthMethods, settings.clientAssertionAlgorithms),
          introspection_endpoint: `${settings.publicUrl}${OAUTH_PATHS.introspection}`,
          introspection_endpoint_auth_methods_supported: [...settings.tokenEndpoints.introspectionAuthMethods],
          ...assertionAlgorithms('introspection', settings.tokenEndpoints.introspectionAuthMethods, settings.clientAssertionAlgorithms),
        }
      : {}),
    // Required by both documents; no flow of the authorization endpoint exists, so none is supported.
    response_types_supported: [] as string[],
    subject_types_supported: ['public'],
    // What go-oidc and express-oauth2-jwt-bearer allow: the algorithm of every key that verifies a token.
    id_token_signing_alg_values_supported: unique(settings.algorithms),
    claims_supported: [...ACCESS_TOKEN_CLAIMS],
    service_documentation: `${settings.publicUrl}/docs`,
  };
}

export type AuthorizationServerMetadata = ReturnType<typeof authorizationServerMetadata>;

/**
 * `<endpoint>_endpoint_auth_signing_alg_values_supported`, which RFC 8414 §2 requires wherever `private_key_jwt` is
 * among the endpoint's methods: the algorithms a client assertion may be signed with, the token endpoint's.
 */
function assertionAlgorithms<E extends 'revocation' | 'introspection'>(
  endpoint: E,
  methods: readonly string[],
  algorithms: readonly string[] | undefined,
): Partial<Record<`${E}_endpoint_auth_signing_alg_values_supported`, string[]>> {
  if (!algorithms || !methods.includes('private_key_jwt')) return {};
  return { [`${endpoint}_endpoint_auth_signing_alg_values_supported`]: [...algorithms] } as Partial<Record<`${E}_endpoint_auth_signing_alg_values_supported`, string[]>>;
}

/**
 * The paths the metadata is served at besides the two at the root: for an issuer with a path
 * (`https://host/ac`), RFC 8414 §3.1 inserts the well-known segment before it
 * (`/.well-known/oauth-authorization-server/ac`), OpenID Discovery §4 appends it
 * (`/ac/.well-known/openid-configuration`, reached when a proxy forwards the prefix), and Spring Security
 * tries `/.well-known/openid-configuration/ac` too. None for an issuer without a path or not a URL.
 */
export function issuerPathForms(issuer: string): string[] {
  let path: string;
  try {
    path = new URL(issuer).pathname.replace(/\/+$/, '');
  } catch {
    return [];
  }
  // A path the router would read as a parameter or wildcard (`:`, `*`) is not served under its own name.
  if (path === '' || !/^[A-Za-z0-9._~/-]+$/.test(path)) return [];
  return [`/.well-known/oauth-authorization-server${path}`, `/.well-known/openid-configuration${path}`, `${path}/.well-known/openid-configuration`];
}
