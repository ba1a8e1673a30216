// Verifies tokens the way a Node service does with `jose` (the example of its README): a remote JWK
// set, the issuer and the audience; jose takes each key's algorithm from its `alg`.
//
//   node tools/verifiers/node/verify-tokens.mjs JWKS_URL ISSUER AUDIENCE < tokens
//
// Each stdin line is "label TAB token"; one JSON line is printed per token, as the JVM verifiers do
// (tools/verifiers/java): {"verifier":"jose","token":"valid","accepted":true,"subject":"…"} or
// {…,"accepted":false,"error":"…"}. The token itself is never printed.
import { createRemoteJWKSet, jwtVerify } from 'jose';

const [jwksUrl, issuer, audience] = process.argv.slice(2);
if (!audience) {
  console.error('usage: verify-tokens.mjs JWKS_URL ISSUER AUDIENCE (tokens on stdin)');
  process.exit(2);
}
const JWKS = createRemoteJWKSet(new URL(jwksUrl));

let input = '';
for await (const chunk of process.stdin) input += chunk;
for (const line of input.split('\n').filter((l) => l.trim())) {
  const tab = line.indexOf('\t');
  const [label, token] = [line.slice(0, tab), line.slice(tab + 1).trim()];
  try {
    const { payload } = await jwtVerify(token, JWKS, { issuer, audience });
    console.log(JSON.stringify({ verifier: 'jose', token: label, accepted: true, subject: payload.sub }));
  } catch (error) {
    console.log(JSON.stringify({ verifier: 'jose', token: label, accepted: false, error: `${error.code ?? error.name}: ${error.message}` }));
  }
}
