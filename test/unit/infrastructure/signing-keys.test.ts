import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createVerifier } from 'fast-jwt';
import { JwtTokenIssuer } from '../../../src/infrastructure/crypto/jwt-token-issuer';
import { LEGACY_LOCAL_KEY_FILE, LOCAL_KEY_FILE, loadOrCreateLocalSigningKeys } from '../../../src/infrastructure/crypto/local-signing-key';
import { SigningKeyError, signingKeyFromPem, verificationKeysFor } from '../../../src/infrastructure/crypto/signing-keys';

/** Retired keys, as JWT_PREVIOUS_PUBLIC_KEYS gives them. */
const retiredKeys = (pems: readonly string[]) => [{ variable: 'JWT_PREVIOUS_PUBLIC_KEYS', pems }];

const pem = (key: KeyObject) => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const pairOf = (pair: { privateKey: KeyObject; publicKey: KeyObject }) => ({ privateKeyPem: pem(pair.privateKey), publicKeyPem: pem(pair.publicKey) });

const KEY_TYPES = {
  ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
  EdDSA: () => generateKeyPairSync('ed25519'),
};

describe('signing keys', () => {
  describe.each([
    ['ES256', { kty: 'EC', crv: 'P-256' }, ['crv', 'x', 'y']],
    ['RS256', { kty: 'RSA', e: 'AQAB' }, ['e', 'n']],
    ['EdDSA', { kty: 'OKP', crv: 'Ed25519' }, ['crv', 'x']],
  ] as const)('a %s key pair', (alg, members, names) => {
    const pair = pairOf(KEY_TYPES[alg]());
    const key = signingKeyFromPem(pair.privateKeyPem, pair.publicKeyPem);

    it('takes its algorithm from the key type and publishes exactly the public members with kid, alg and use', () => {
      expect(key.alg).toBe(alg);
      expect(key.jwk).toMatchObject({ ...members, alg, use: 'sig', kid: key.kid });
      expect(Object.keys(key.jwk).sort()).toEqual([...names, 'alg', 'kid', 'kty', 'use'].sort());
      expect(JSON.stringify(key.jwk)).not.toMatch(/"(d|p|q|dp|dq|qi)"/);
    });

    it('signs tokens with that algorithm and kid, which verify with the public key and no other algorithm', async () => {
      const issuer = new JwtTokenIssuer(key, { issuer: 'https://issuer.example', audience: 'aud', ttlSeconds: 60 }, { now: () => new Date() });
      const { token } = await issuer.issue('user-1', 0);
      const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
      expect(header).toEqual({ alg, typ: 'JWT', kid: key.kid });
      expect(createVerifier({ key: pair.publicKeyPem, algorithms: [alg] })(token)).toMatchObject({ sub: 'user-1', ver: 0 });
      const other = alg === 'ES256' ? 'ES384' : alg === 'RS256' ? 'PS256' : 'ES256';
      expect(() => createVerifier({ key: pair.publicKeyPem, algorithms: [other] })(token)).toThrow();
    });
  });

  it('names each key by its RFC 7638 thumbprint (the RFC 7638 and RFC 8037 examples)', () => {
    const rfc7638 = createPublicKey({
      format: 'jwk',
      key: {
        kty: 'RSA',
        e: 'AQAB',
        n:
          '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs' +
          'tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91Cb' +
          'OpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      },
    });
    const rfc8037 = createPublicKey({ format: 'jwk', key: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } });
    const own = pairOf(KEY_TYPES.ES256());
    const keys = verificationKeysFor(signingKeyFromPem(own.privateKeyPem, own.publicKeyPem), retiredKeys([pem(rfc7638), pem(rfc8037)]));
    expect(keys.map((k) => k.kid).slice(1)).toEqual(['NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k']);
  });

  it('publishes retired keys of every type after the current one, each once, each with its own algorithm', () => {
    const current = pairOf(KEY_TYPES.ES256());
    const retired = [KEY_TYPES.EdDSA(), KEY_TYPES.RS256(), KEY_TYPES.ES256()].map((pair) => pem(pair.publicKey));
    const key = signingKeyFromPem(current.privateKeyPem, current.publicKeyPem);
    const keys = verificationKeysFor(key, retiredKeys([...retired, retired[0], current.publicKeyPem]));
    expect(keys.map((k) => k.alg)).toEqual(['ES256', 'EdDSA', 'RS256', 'ES256']);
    expect(keys[0].kid).toBe(key.kid);
    expect(keys[0]).not.toHaveProperty('privateKeyPem');
    expect(new Set(keys.map((k) => k.kid)).size).toBe(4);
  });

  it('publishes the key to come after the current one and before retired ones, each once', () => {
    const current = pairOf(KEY_TYPES.ES256());
    const next = KEY_TYPES.RS256();
    const retired = KEY_TYPES.EdDSA();
    const key = signingKeyFromPem(current.privateKeyPem, current.publicKeyPem);
    const keys = verificationKeysFor(key, [
      { variable: 'JWT_NEXT_PUBLIC_KEYS', pems: [pem(next.publicKey), current.publicKeyPem] },
      { variable: 'JWT_PREVIOUS_PUBLIC_KEYS', pems: [pem(retired.publicKey), pem(next.publicKey)] },
    ]);
    expect(keys.map((k) => k.alg)).toEqual(['ES256', 'RS256', 'EdDSA']);
    expect(keys[0].kid).toBe(key.kid);
  });

  describe('refuses, naming the variable', () => {
    const ed448 = generateKeyPairSync('ed448');
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const es256 = pairOf(KEY_TYPES.ES256());

    it.each([
      ['an EC key on P-384', pairOf(p384), /JWT_PRIVATE_KEY: an EC key must be on the P-256 curve/],
      ['an RSA key of 1024 bits', pairOf(rsa1024), /JWT_PRIVATE_KEY: an RSA key must have at least 2048 bits, not 1024/],
      ['an Ed448 key', pairOf(ed448), /JWT_PRIVATE_KEY: the key must be EC P-256 \(ES256\), RSA .* or Ed25519 \(EdDSA\), not ed448/],
      ['a public key of another pair', { ...es256, publicKeyPem: pairOf(KEY_TYPES.ES256()).publicKeyPem }, /JWT_PUBLIC_KEY does not belong to JWT_PRIVATE_KEY/],
      ['a public key of another type', { ...es256, publicKeyPem: pairOf(KEY_TYPES.EdDSA()).publicKeyPem }, /JWT_PUBLIC_KEY does not belong to JWT_PRIVATE_KEY/],
      ['text that is no PEM', { ...es256, privateKeyPem: 'not a key' }, /not readable PEM keys/],
    ])('%s', (_name, pair, message) => {
      expect(() => signingKeyFromPem(pair.privateKeyPem, pair.publicKeyPem)).toThrow(SigningKeyError);
      expect(() => signingKeyFromPem(pair.privateKeyPem, pair.publicKeyPem)).toThrow(message);
    });

    it('a retired key of an unsupported type', () => {
      const key = signingKeyFromPem(es256.privateKeyPem, es256.publicKeyPem);
      expect(() => verificationKeysFor(key, retiredKeys([pem(p384.publicKey)]))).toThrow(/JWT_PREVIOUS_PUBLIC_KEYS: an EC key must be on the P-256 curve/);
    });

    it('a key to come that is no PEM public key, or of an unsupported type', () => {
      const key = signingKeyFromPem(es256.privateKeyPem, es256.publicKeyPem);
      expect(() => verificationKeysFor(key, [{ variable: 'JWT_NEXT_PUBLIC_KEYS', pems: ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'] }])).toThrow(
        /JWT_NEXT_PUBLIC_KEYS holds a key that is not a readable PEM public key/,
      );
      expect(() => verificationKeysFor(key, [{ variable: 'JWT_NEXT_PUBLIC_KEYS', pems: [pem(rsa1024.publicKey)] }])).toThrow(/JWT_NEXT_PUBLIC_KEYS: an RSA key must have at least 2048 bits/);
    });
  });
});

describe('the embedded default key pair under DATA_DIR', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'signing-keys-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is an ES256 pair, generated once (mode 600) and the same at the next start', () => {
    const first = loadOrCreateLocalSigningKeys(dataDir);
    expect(first.current.alg).toBe('ES256');
    expect(first.retiredPublicKeyPems).toEqual([]);
    expect(statSync(path.join(dataDir, LOCAL_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadOrCreateLocalSigningKeys(dataDir).current.kid).toBe(first.current.kid);
  });

  it("keeps an earlier version's Ed25519 pair as retired (its tokens verify) and signs new tokens with a new ES256 key", () => {
    const legacy = generateKeyPairSync('ed25519');
    writeFileSync(path.join(dataDir, LEGACY_LOCAL_KEY_FILE), pem(legacy.privateKey), { mode: 0o600 });
    const retiredEvents: string[] = [];
    const keys = loadOrCreateLocalSigningKeys(dataDir, { onLegacyKeyRetired: (file) => retiredEvents.push(file) });

    expect(keys.current.alg).toBe('ES256');
    expect(keys.retiredPublicKeyPems).toEqual([pem(legacy.publicKey)]);
    expect(retiredEvents).toEqual([path.join(dataDir, LEGACY_LOCAL_KEY_FILE)]);
    const published = verificationKeysFor(keys.current, retiredKeys(keys.retiredPublicKeyPems));
    expect(published.map((k) => k.alg)).toEqual(['ES256', 'EdDSA']);

    const again = loadOrCreateLocalSigningKeys(dataDir, { onLegacyKeyRetired: (file) => retiredEvents.push(file) });
    expect(again.current.kid).toBe(keys.current.kid);
    expect(again.retiredPublicKeyPems).toEqual([pem(legacy.publicKey)]);
    expect(retiredEvents).toHaveLength(1); // said once, when it happened
    expect(existsSync(path.join(dataDir, LEGACY_LOCAL_KEY_FILE))).toBe(true);
  });

  it('refuses a key file that is no PEM key, naming the file', () => {
    writeFileSync(path.join(dataDir, LOCAL_KEY_FILE), 'garbage');
    expect(() => loadOrCreateLocalSigningKeys(dataDir)).toThrow(`${path.join(dataDir, LOCAL_KEY_FILE)} is not a readable PEM private key`);
    expect(readFileSync(path.join(dataDir, LOCAL_KEY_FILE), 'utf8')).toBe('garbage');
  });
});
