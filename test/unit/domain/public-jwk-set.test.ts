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

  it('refuses repeated kids, more than 5 keys, and anything but an array', () => {
    expect(() => parsePublicJwkSet([ec, { ...ed, kid: 'ec' }])).toThrow(/own kid/);
    expect(() => parsePublicJwkSet(Array.from({ length: 6 }, (_, i) => ({ ...ed, kid: `k${i}` })))).toThrow(/at most 5/);
    expect(() => parsePublicJwkSet({ keys: [ec] })).toThrow(/array/);
  });
});
