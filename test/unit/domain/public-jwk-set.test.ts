import { generateKeyPairSync } from 'node:crypto';
import { algorithmOf, parsePublicJwkSet } from '../../../src/domain/service-accounts/public-jwk-set';

const publicJwk = (pair: { publicKey: { export(o: { format: 'jwk' }): object } }, kid: string): Record<string, string | undefined> => ({
  ...(pair.publicKey.export({ format: 'jwk' }) as Record<string, string>),
  kid,
});
const ec = publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-256' }), 'ec');
const rsa = publicJwk(generateKeyPairSync('rsa', { modulusLength: 2048 }), 'rsa');
const ed = publicJwk(generateKeyPairSync('ed25519'), 'ed');

describe('parsePublicJwkSet', () => {
  it('accepts EC P-256, RSA 2048 and Ed25519 public keys, each verifying its own algorithm only', () => {
    const keys = parsePublicJwkSet([ec, { ...rsa, alg: 'RS256', use: 'sig' }, ed]);
    expect(keys.map((k) => [k.kid, algorithmOf(k)])).toEqual([['ec', 'ES256'], ['rsa', 'RS256'], ['ed', 'EdDSA']]);
    expect(keys[1]).toEqual({ ...rsa, alg: 'RS256', use: 'sig' });
    expect(parsePublicJwkSet([])).toEqual([]);
  });

  it.each([
    ['a private EC key', { ...publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-256' }), 'x'), d: 'AAAA' }],
    ['a symmetric key', { kty: 'oct', k: 'c2VjcmV0', kid: 'x' }],
    ['P-384', { ...publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-384' }), 'x') }],
    ['RSA 1024', publicJwk(generateKeyPairSync('rsa', { modulusLength: 1024 }), 'x')],
    ['Ed448', publicJwk(generateKeyPairSync('ed448'), 'x')],
    ['no kid', { ...ec, kid: undefined }],
    ['a kid with spaces', { ...ec, kid: 'a b' }],
    ['an alg of another kind', { ...ec, alg: 'RS256' }],
    ['alg none', { ...ed, alg: 'none' }],
    ['use enc', { ...ec, use: 'enc' }],
    ['a member its kind has not', { ...ed, y: ec.y }],
    ['a jku to fetch', { ...ec, x5u: 'https://evil.example.com/keys' }],
    ['not an object', 'key'],
  ])('refuses %s', (_why, key) => {
    expect(() => parsePublicJwkSet([key])).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  /** An RSA public JWK whose modulus is `pair`'s with `zeros` zero octets in front. */
  const padded = (pair: { publicKey: { export(o: { format: 'jwk' }): object } }, zeros: number) => {
    const jwk = publicJwk(pair, 'padded');
    return { ...jwk, n: Buffer.concat([Buffer.alloc(zeros), Buffer.from(jwk.n!, 'base64url')]).toString('base64url') };
  };
  const other = publicJwk(generateKeyPairSync('ec', { namedCurve: 'P-256' }), 'other');
  /** An Ed25519 `x` from its 32 octets in hex (RFC 8032's little-endian encoding). */
  const edX = (hex: string) => ({ ...ed, x: Buffer.from(hex, 'hex').toString('base64url') });

  it.each([
    // With e = 1 the signature of a message is its padded hash: anyone reading the key could sign.
    ['RSA with e = 1', { ...rsa, e: 'AQ' }],
    ['RSA with e = 3', { ...rsa, e: 'Aw' }],
    ['RSA with an even e', { ...rsa, e: Buffer.from([1, 0, 2]).toString('base64url') }],
    ['RSA with e of 2^256 + 1', { ...rsa, e: Buffer.concat([Buffer.from([1]), Buffer.alloc(31), Buffer.from([1])]).toString('base64url') }],
    ['RSA 512 padded with zero octets to 256', padded(generateKeyPairSync('rsa', { modulusLength: 512 }), 192)],
    ['RSA with an even modulus', { ...rsa, n: ((b) => (b.writeUInt8(b.at(-1)! & 0xfe, b.length - 1), b.toString('base64url')))(Buffer.from(rsa.n!, 'base64url')) }],
    ['an EC point of zeros', { ...ec, x: Buffer.alloc(32).toString('base64url'), y: Buffer.alloc(32).toString('base64url') }],
    ['an EC x of one key with the y of another', { ...ec, y: other.y }],
    ['an EC coordinate of p or more', { ...ec, x: Buffer.alloc(32, 0xff).toString('base64url') }],
    ['the Ed25519 identity (order 1)', edX('0100000000000000000000000000000000000000000000000000000000000000')],
    ['an Ed25519 point of order 8', edX('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05')],
    ['an Ed25519 point of order 4', edX('0000000000000000000000000000000000000000000000000000000000000000')],
    ['an Ed25519 y of no point (y = 2)', edX('0200000000000000000000000000000000000000000000000000000000000000')],
    ['an Ed25519 y of p or more', edX('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')],
  ])('refuses %s: its numbers are not a key only a private key signs for', (_why, key) => {
    expect(() => parsePublicJwkSet([key])).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('accepts a modulus with a leading zero octet, counted by its bits, and keys of every size allowed', () => {
    const rsa4096 = publicJwk(generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }), 'big');
    const keys = parsePublicJwkSet([padded(generateKeyPairSync('rsa', { modulusLength: 2048 }), 1), rsa4096, ...Array.from({ length: 3 }, (_, i) => publicJwk(generateKeyPairSync('ed25519'), `ed${i}`))]);
    expect(keys).toHaveLength(5);
  });

  it('refuses repeated kids, more than 5 keys, and anything but an array', () => {
    expect(() => parsePublicJwkSet([ec, { ...ed, kid: 'ec' }])).toThrow(/own kid/);
    expect(() => parsePublicJwkSet(Array.from({ length: 6 }, (_, i) => ({ ...ed, kid: `k${i}` })))).toThrow(/at most 5/);
    expect(() => parsePublicJwkSet({ keys: [ec] })).toThrow(/array/);
  });
});
