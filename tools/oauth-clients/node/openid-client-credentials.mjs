// openid-client (v6) as a service uses it, given only the issuer URL and its credentials: discovery(), then the
// client credentials grant (RFC 6749 §4.4) at the discovered token endpoint with the service account's secret
// (ClientSecretBasic, ClientSecretPost) and with a key it registered (PrivateKeyJwt, RFC 7523), each token then
// used on GET /v1/users.
// With `resource` given, also a token for that resource server (RFC 8707's `resource` parameter, as openid-client
// passes any grant parameter), used on GET /v1/users as the others are.
// Usage: node openid-client-credentials.mjs <issuer> <client-id>, and on stdin (never on the command line, where
// `ps` shows it) one JSON object {secret, privateJwk, resource?} (privateJwk: an EC P-256 private JWK with its `kid`).
// Prints one JSON line: what was discovered and, per method, the token response's fields and the API's status, or {error}.
import { webcrypto } from 'node:crypto';
import {
  allowInsecureRequests,
  clientCredentialsGrant,
  ClientSecretBasic,
  ClientSecretPost,
  discovery,
  PrivateKeyJwt,
} from 'openid-client';

const [issuer, clientId] = process.argv.slice(2);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { secret, privateJwk, resource } = JSON.parse(Buffer.concat(chunks).toString());
// The test's issuer is http://127.0.0.1:<port>; a deployment's is https and needs none of this.
const insecure = issuer.startsWith('http:') ? { execute: [allowInsecureRequests] } : {};

/** The grant with one client authentication, and the token on the API. */
async function obtain(auth, parameters) {
  const config = await discovery(new URL(issuer), clientId, undefined, auth, insecure);
  const tokens = await clientCredentialsGrant(config, parameters);
  const users = await fetch(`${issuer}/v1/users`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  return {
    token_endpoint: config.serverMetadata().token_endpoint,
    token_type: tokens.token_type,
    expires_in: tokens.expiresIn(),
    scope: tokens.scope,
    refresh_token: tokens.refresh_token ?? null,
    access_token: tokens.access_token,
    users: users.status,
  };
}

try {
  const key = await webcrypto.subtle.importKey('jwk', { ...privateJwk, kid: undefined }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const basic = await obtain(ClientSecretBasic(secret));
  const post = await obtain(ClientSecretPost(secret), { scope: 'users:read' });
  const privateKeyJwt = await obtain(PrivateKeyJwt({ key, kid: privateJwk.kid }));
  const forResource = resource ? await obtain(ClientSecretBasic(secret), { resource }) : undefined;
  let wrongSecret;
  try {
    await obtain(ClientSecretBasic(`${secret}x`));
    wrongSecret = 'accepted';
  } catch (error) {
    // A 401 with WWW-Authenticate is a challenge to openid-client: it throws WWWAuthenticateChallengeError with the schemes.
    wrongSecret = { name: error.name, status: error.status ?? error.response?.status, scheme: error.cause?.[0]?.scheme, oauthError: error.error };
  }
  console.log(JSON.stringify({ basic, post, privateKeyJwt, forResource, wrongSecret }));
} catch (error) {
  console.log(JSON.stringify({ error: `${error.name}: ${error.message}`, code: error.code, oauthError: error.error }));
}
