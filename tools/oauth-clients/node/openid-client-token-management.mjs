// openid-client (v6) as a resource server and an app use it, given only the issuer URL: discovery(), then
// tokenIntrospection (RFC 7662) at the discovered introspection endpoint with a service account's secret
// (client_secret_basic, then client_secret_post), and tokenRevocation (RFC 7009) at the discovered revocation
// endpoint: by the service account, and by a public client (None(): no client authentication).
// Usage: node openid-client-token-management.mjs <issuer> <client-id>, and on stdin (never on the command line,
// where `ps` shows it) one JSON object {secret, accessToken, refreshToken, otherRefreshToken}. Prints one JSON
// line: what was discovered and each answer, or {error}.
import { allowInsecureRequests, ClientSecretBasic, ClientSecretPost, discovery, None, tokenIntrospection, tokenRevocation } from 'openid-client';

const [issuer, clientId] = process.argv.slice(2);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { secret, accessToken, refreshToken, otherRefreshToken } = JSON.parse(Buffer.concat(chunks).toString());
// The test's issuer is http://127.0.0.1:<port>; a deployment's is https and needs none of this.
const insecure = issuer.startsWith('http:') ? { execute: [allowInsecureRequests] } : {};

try {
  const basic = await discovery(new URL(issuer), clientId, undefined, ClientSecretBasic(secret), insecure);
  const post = await discovery(new URL(issuer), clientId, undefined, ClientSecretPost(secret), insecure);
  const publicClient = await discovery(new URL(issuer), 'a-public-client', undefined, None(), insecure);
  const metadata = basic.serverMetadata();
  const brief = ({ active, sub, scope, username, token_type, client_id, exp, iat, iss, aud }) => ({ active, sub, scope, username, token_type, client_id, exp, iat, iss, aud });

  const access = brief(await tokenIntrospection(basic, accessToken));
  const refreshBefore = brief(await tokenIntrospection(post, refreshToken, { token_type_hint: 'refresh_token' }));
  await tokenRevocation(basic, refreshToken, { token_type_hint: 'refresh_token' });
  const refreshAfter = brief(await tokenIntrospection(basic, refreshToken));
  await tokenRevocation(publicClient, otherRefreshToken);
  const otherAfter = brief(await tokenIntrospection(post, otherRefreshToken));
  let wrongSecret;
  try {
    const wrong = await discovery(new URL(issuer), clientId, undefined, ClientSecretBasic(`${secret}x`), insecure);
    await tokenIntrospection(wrong, accessToken);
    wrongSecret = 'accepted';
  } catch (error) {
    // A 401 with WWW-Authenticate is a challenge to openid-client: it throws WWWAuthenticateChallengeError with the schemes.
    wrongSecret = { name: error.name, status: error.status ?? error.response?.status, scheme: error.cause?.[0]?.scheme, oauthError: error.error };
  }
  console.log(
    JSON.stringify({
      introspection_endpoint: metadata.introspection_endpoint,
      revocation_endpoint: metadata.revocation_endpoint,
      access,
      refreshBefore,
      refreshAfter,
      otherAfter,
      wrongSecret,
    }),
  );
} catch (error) {
  console.log(JSON.stringify({ error: `${error.name}: ${error.message}`, code: error.code, oauthError: error.error }));
}
