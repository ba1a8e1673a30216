// openid-client (v6) as a Node client uses it, given only the issuer URL: discovery(), then the refresh
// grant at the discovered token endpoint, a public client (None(): no client authentication).
// Usage: node openid-client-refresh.mjs <issuer> <client-id> <oidc|oauth2>, the refresh token on stdin
// (never on the command line, where `ps` shows it). Prints one JSON line: what was discovered and the
// token response, or {error}.
import { allowInsecureRequests, discovery, None, refreshTokenGrant } from 'openid-client';

const [issuer, clientId, algorithm] = process.argv.slice(2);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const refreshToken = Buffer.concat(chunks).toString().trim();

try {
  const config = await discovery(new URL(issuer), clientId, undefined, None(), {
    algorithm,
    // The test's issuer is http://127.0.0.1:<port>; a deployment's is https and needs none of this.
    ...(issuer.startsWith('http:') ? { execute: [allowInsecureRequests] } : {}),
  });
  const metadata = config.serverMetadata();
  const tokens = await refreshTokenGrant(config, refreshToken);
  console.log(
    JSON.stringify({
      issuer: metadata.issuer,
      token_endpoint: metadata.token_endpoint,
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      token_type: tokens.token_type,
      expires_in: tokens.expiresIn(),
    }),
  );
} catch (error) {
  console.log(JSON.stringify({ error: `${error.name}: ${error.message}`, code: error.code, oauthError: error.error }));
}
