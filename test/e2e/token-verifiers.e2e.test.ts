import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { type ApiProcess, ensureBuilt, startApiProcess } from '../support/api-process';
import { decodeJwt, signJwt } from '../support/tokens';
import { ensureJavaVerifiers, type Verdict, verifyWithJava, verifyWithJose } from '../support/token-verifiers';

/**
 * The service's tokens as other teams verify them: the built api, configured with each kind of key
 * pair, and the verifiers those teams use, each in its own process against the live JWKS: jose (Node),
 * nimbus-jose-jwt's DefaultJWTProcessor, and Spring Security's NimbusJwtDecoder.withJwkSetUri set up
 * three ways (jwsAlgorithm configured, discoverJwsAlgorithms(), nothing). What each accepts is recorded
 * in docs/VERIFYING-TOKENS.md.
 */
const ISSUER = 'https://access-control.test';
const AUDIENCE = 'access-control';
const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const KEYS = {
  ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
  EdDSA: () => generateKeyPairSync('ed25519'),
};
type Alg = keyof typeof KEYS;

const BAD = ['tampered', 'foreign-key', 'expired', 'wrong-issuer', 'wrong-audience'] as const;

interface Running {
  api: ApiProcess;
  service: { jwksUrl: string; issuer: string; audience: string };
  tokens: Record<string, string>;
}

/** Starts the built api signing with `current` (and accepting `retired`), signs in, and makes the tokens to verify. */
async function serviceSigningWith(name: string, current: Alg, retired: Alg[] = []): Promise<Running> {
  const pair = KEYS[current]();
  const retiredPairs = retired.map((alg) => ({ alg, pair: KEYS[alg]() }));
  const password = randomBytes(18).toString('base64url');
  const api = await startApiProcess(`verifiers-${name}`, {
    JWT_PRIVATE_KEY: pem(pair.privateKey),
    JWT_PUBLIC_KEY: pem(pair.publicKey),
    ...(retiredPairs.length > 0 ? { JWT_PREVIOUS_PUBLIC_KEYS: retiredPairs.map((r) => pem(r.pair.publicKey)).join('\n') } : {}),
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
    ADMIN_USERNAME: 'verifier.admin',
    ADMIN_EMAIL: 'verifier.admin@example.com',
    ADMIN_PASSWORD: password,
  });
  try {
    const base = `http://127.0.0.1:${api.port}`;
    const signIn = await fetch(`${base}/v1/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'verifier.admin', password }),
    });
    expect(signIn.status).toBe(200);
    const valid = ((await signIn.json()) as { accessToken: string }).accessToken;
    const { header, payload } = decodeJwt(valid);
    const now = Math.floor(Date.now() / 1000);
    const own = pem(pair.privateKey);
    const [h, , s] = valid.split('.');
    const tokens: Record<string, string> = {
      valid,
      tampered: `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${s}`,
      'foreign-key': signJwt(pem(KEYS[current]().privateKey), payload, { kid: header.kid }),
      // An hour old, expired ten minutes ago: beyond the 60 s clock skew nimbus and Spring allow.
      expired: signJwt(own, { ...payload, iat: now - 3600, exp: now - 600 }, { kid: header.kid }),
      'wrong-issuer': signJwt(own, { ...payload, iss: 'https://evil.example' }, { kid: header.kid }),
      'wrong-audience': signJwt(own, { ...payload, aud: 'another-service' }, { kid: header.kid }),
    };
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
    for (const { alg, pair: retiredPair } of retiredPairs) {
      const kid = jwks.keys.find((k) => k.alg === alg && k.kid !== header.kid)!.kid;
      tokens[`retired-${alg}`] = signJwt(pem(retiredPair.privateKey), payload, { kid });
    }
    return { api, service: { jwksUrl: `${base}/.well-known/jwks.json`, issuer: ISSUER, audience: AUDIENCE }, tokens };
  } catch (error) {
    // The caller never gets the process to stop: stop it here, or it outlives the test run (jest does not exit).
    api.child.kill('SIGTERM');
    await api.exited;
    throw error;
  }
}

async function verifyEverywhere(jar: string, running: Running, algorithms: string[]): Promise<Verdict[]> {
  const [node, java] = await Promise.all([verifyWithJose(running.service, running.tokens), verifyWithJava(jar, running.service, algorithms, running.tokens)]);
  return [...node, ...java];
}

const VERIFIERS = ['jose', 'nimbus', 'spring', 'spring-discover', 'spring-default'] as const;
type VerifierName = (typeof VERIFIERS)[number];

/** Which tokens each verifier accepted. */
function accepted(verdicts: Verdict[]): Record<string, string[]> {
  return Object.fromEntries(VERIFIERS.map((name) => [name, verdicts.filter((v) => v.verifier === name && v.accepted).map((v) => v.token)]));
}

/** Why a verifier that works refuses each bad token: the right reason, not merely some failure. */
const REASONS: Record<'jose' | 'jvm', Record<(typeof BAD)[number], RegExp>> = {
  jose: {
    tampered: /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/,
    'foreign-key': /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/,
    expired: /ERR_JWT_EXPIRED/,
    'wrong-issuer': /unexpected "iss" claim value/,
    'wrong-audience': /unexpected "aud" claim value/,
  },
  jvm: {
    tampered: /Signed JWT rejected: Invalid signature/,
    'foreign-key': /Signed JWT rejected: Invalid signature/,
    expired: /Expired JWT|Jwt expired at/,
    'wrong-issuer': /JWT iss claim value rejected|The iss claim is not valid/,
    'wrong-audience': /JWT aud claim rejected|The aud claim is not valid/,
  },
};

function expectRefusedForTheRightReasons(verdicts: Verdict[], working: readonly VerifierName[]): void {
  const reasons = verdicts
    .filter((v) => working.includes(v.verifier as VerifierName) && (BAD as readonly string[]).includes(v.token))
    .map((v) => ({ verifier: v.verifier, token: v.token, error: v.error ?? 'accepted' }));
  expect(reasons).toHaveLength(working.length * BAD.length);
  for (const { verifier, token, error } of reasons) {
    const expected = REASONS[verifier === 'jose' ? 'jose' : 'jvm'][token as (typeof BAD)[number]];
    expect({ verifier, token, error }).toEqual({ verifier, token, error: expect.stringMatching(expected) });
  }
}

/** Every verifier that cannot verify at all refuses every token with the same reason. */
function expectRefusedOutright(verdicts: Verdict[], verifier: VerifierName, reason: RegExp): void {
  const own = verdicts.filter((v) => v.verifier === verifier);
  expect(own.length).toBeGreaterThan(0);
  for (const verdict of own) expect(verdict).toMatchObject({ accepted: false, error: expect.stringMatching(reason) });
}

const NO_MATCHING_KEY = /Another algorithm expected, or no matching key\(s\) found/;

async function stop(running: Running | undefined): Promise<void> {
  if (!running) return;
  running.api.child.kill('SIGTERM');
  await running.api.exited;
}

describe('tokens as other teams verify them (built api, verifiers in their own processes)', () => {
  let jar: string;
  beforeAll(async () => {
    ensureBuilt();
    jar = await ensureJavaVerifiers();
  }, 900_000);

  describe.each([
    ['ES256', ['jose', 'nimbus', 'spring', 'spring-discover']],
    ['RS256', ['jose', 'nimbus', 'spring', 'spring-discover', 'spring-default']],
    ['EdDSA', ['jose']],
  ] as const)('a service signing with %s', (alg, working) => {
    let running: Running | undefined;
    let verdicts: Verdict[];
    beforeAll(async () => {
      running = await serviceSigningWith(alg.toLowerCase(), alg);
      verdicts = await verifyEverywhere(jar, running, [alg]);
    }, 180_000);
    afterAll(() => stop(running));

    it('publishes its key in the JWKS with kty, alg, use and kid', async () => {
      const jwks = (await (await fetch(running!.service.jwksUrl)).json()) as { keys: Record<string, string>[] };
      expect(jwks.keys).toHaveLength(1);
      expect(jwks.keys[0]).toMatchObject({ kty: { ES256: 'EC', RS256: 'RSA', EdDSA: 'OKP' }[alg], alg, use: 'sig', kid: decodeJwt(running!.tokens.valid).header.kid });
    });

    it(`is accepted, the valid token alone, by ${working.join(', ')}`, () => {
      const expected = Object.fromEntries(VERIFIERS.map((name) => [name, (working as readonly string[]).includes(name) ? ['valid'] : []]));
      expect(accepted(verdicts)).toEqual(expected);
    });

    it('is refused by those verifiers when tampered, signed by another key, expired, for another issuer or audience, each for that reason', () => {
      expectRefusedForTheRightReasons(verdicts, working);
    });

    if (alg === 'ES256') {
      it("is refused by Spring's NimbusJwtDecoder left at its default (RS256 only): a Spring team must set jwsAlgorithm(ES256)", () => {
        expectRefusedOutright(verdicts, 'spring-default', NO_MATCHING_KEY);
      });
    }

    if (alg === 'EdDSA') {
      it("is refused by every JVM verifier: nimbus finds no usable key, Spring has no EdDSA to configure, discovers none, and expects RS256", () => {
        expectRefusedOutright(verdicts, 'nimbus', NO_MATCHING_KEY);
        expectRefusedOutright(verdicts, 'spring', /SignatureAlgorithm has no EdDSA/);
        expectRefusedOutright(verdicts, 'spring-discover', /Failed to find any algorithms from the JWK set/);
        expectRefusedOutright(verdicts, 'spring-default', NO_MATCHING_KEY);
      });
    }
  });

  describe('a service signing with ES256 that retired an EdDSA and an RS256 key (JWT_PREVIOUS_PUBLIC_KEYS)', () => {
    let running: Running | undefined;
    let verdicts: Verdict[];
    beforeAll(async () => {
      running = await serviceSigningWith('rotation', 'ES256', ['EdDSA', 'RS256']);
      verdicts = await verifyEverywhere(jar, running, ['ES256', 'RS256', 'EdDSA']);
    }, 180_000);
    afterAll(() => stop(running));

    it('publishes the current key first, then the retired ones, each with its own kty and alg', async () => {
      const jwks = (await (await fetch(running!.service.jwksUrl)).json()) as { keys: Record<string, string>[] };
      expect(jwks.keys.map((k) => `${k.alg}/${k.kty}/${k.use}`)).toEqual(['ES256/EC/sig', 'EdDSA/OKP/sig', 'RS256/RSA/sig']);
    });

    it('itself accepts the tokens of both retired keys under their kids', async () => {
      for (const label of ['retired-EdDSA', 'retired-RS256']) {
        const response = await fetch(`${running!.service.jwksUrl.replace('/.well-known/jwks.json', '')}/v1/users`, {
          headers: { authorization: `Bearer ${running!.tokens[label]}` },
        });
        expect({ label, status: response.status }).toEqual({ label, status: 200 });
      }
    });

    it('is verified across algorithms by kid: jose takes all three; the JVM verifiers the ES256 and RS256 ones; Spring left at its default only RS256', () => {
      expect(accepted(verdicts)).toEqual({
        jose: ['valid', 'retired-EdDSA', 'retired-RS256'],
        nimbus: ['valid', 'retired-RS256'],
        spring: ['valid', 'retired-RS256'],
        'spring-discover': ['valid', 'retired-RS256'],
        'spring-default': ['retired-RS256'],
      });
      for (const name of ['nimbus', 'spring', 'spring-discover'] as const) {
        expect(verdicts.find((v) => v.verifier === name && v.token === 'retired-EdDSA')).toMatchObject({ error: expect.stringMatching(NO_MATCHING_KEY) });
      }
    });

    it('is refused when tampered, signed by another key, expired, for another issuer or audience, each for that reason', () => {
      expectRefusedForTheRightReasons(verdicts, ['jose', 'nimbus', 'spring', 'spring-discover']);
    });
  });
});
