// A resource server as express-oauth2-jwt-bearer's README sets one up: auth({ issuerBaseURL, audience })
// and nothing else (it reads the discovery document for the JWK set, the issuer and the algorithms).
// Env: ISSUER_BASE_URL, AUDIENCE. Listens on a free loopback port and prints "listening <port>".
import express from 'express';
import { auth } from 'express-oauth2-jwt-bearer';

const app = express();
app.use(auth({ issuerBaseURL: process.env.ISSUER_BASE_URL, audience: process.env.AUDIENCE }));
app.get('/whoami', (request, response) => response.json({ sub: request.auth.payload.sub }));
app.use((error, _request, response, _next) => response.status(error.status ?? 500).json({ error: error.code ?? 'error', message: error.message }));

const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
