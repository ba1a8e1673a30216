import { type FieldProblem, ValidationError } from '../shared/domain-error';
import { isEd25519PointOfLargeOrder, isP256Point, isSoundRsaKey } from './public-key-values';

/** A public key as registered: a JWK (RFC 7517) of one of the three accepted kinds, with its `kid`. */
export type PublicJwk =
  | { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid: string; alg?: 'ES256'; use?: 'sig' }
  | { kty: 'RSA'; n: string; e: string; kid: string; alg?: 'RS256'; use?: 'sig' }
  | { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg?: 'EdDSA'; use?: 'sig' };

/** The algorithm each kind of key verifies, and nothing else (never `none`, never HS*). */
export function algorithmOf(key: PublicJwk): 'ES256' | 'RS256' | 'EdDSA' {
  return key.kty === 'EC' ? 'ES256' : key.kty === 'RSA' ? 'RS256' : 'EdDSA';
}

export const MAX_KEYS = 5;
const KID = /^[A-Za-z0-9._~:-]{1,64}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
/** Members that only a private key (or a symmetric one) has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Bytes a base64url string (no padding) decodes to. */
function decodedLength(value: string): number {
  return Math.floor((value.length * 3) / 4);
}

/**
 * The key set a service account registers, checked: at most MAX_KEYS public keys, each EC P-256, RSA of
 * 2048 bits or more, or Ed25519, with a unique `kid`, no private member, and only the members its kind
 * has (so what is stored is exactly what is verified with), its numbers a key only a private key signs for
 * (public-key-values.ts). Inline only: the service never fetches a URL.
 */
export function parsePublicJwkSet(raw: unknown, field = 'keys'): PublicJwk[] {
  if (!Array.isArray(raw)) throw new ValidationError([{ field, message: 'must be an array of JWKs' }]);
  if (raw.length > MAX_KEYS) throw new ValidationError([{ field, message: `must hold at most ${MAX_KEYS} keys` }]);
  const problems: FieldProblem[] = [];
  const keys: PublicJwk[] = [];
  raw.forEach((candidate: unknown, index) => {
    const at = `${field}/${index}`;
    const problem = (message: string) => problems.push({ field: at, message });
    if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) return problem('must be a JWK object');
    const jwk = candidate as Record<string, unknown>;
    if (PRIVATE_MEMBERS.some((m) => m in jwk)) return problem('must be a public key: it holds a private or symmetric member');
    if (typeof jwk.kid !== 'string' || !KID.test(jwk.kid)) return problem('must have a `kid` of 1 to 64 letters, digits, ".", "_", "~", ":" or "-"');
    if (jwk.use !== undefined && jwk.use !== 'sig') return problem('`use` must be "sig" when given');
    const kid = jwk.kid;
    const b64 = (name: string, bytes?: (n: number) => boolean): string | null => {
      const value = jwk[name];
      if (typeof value !== 'string' || !B64URL.test(value) || (bytes && !bytes(decodedLength(value)))) return null;
      return value;
    };
    const only = (allowed: string[]) => Object.keys(jwk).every((k) => allowed.includes(k));
    if (jwk.kty === 'EC') {
      const x = b64('x', (n) => n === 32);
      const y = b64('y', (n) => n === 32);
      if (jwk.crv !== 'P-256' || !x || !y) return problem('an EC key must be P-256 with 32-byte `x` and `y`');
      if (!isP256Point(x, y)) return problem('`x` and `y` are not a point of the P-256 curve');
      if (jwk.alg !== undefined && jwk.alg !== 'ES256') return problem('an EC P-256 key verifies ES256 only');
      if (!only(['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use'])) return problem('has members an EC public key does not');
      keys.push({ kty: 'EC', crv: 'P-256', x, y, kid, ...(jwk.alg ? { alg: 'ES256' } : {}), ...(jwk.use ? { use: 'sig' } : {}) });
    } else if (jwk.kty === 'RSA') {
      // The lengths bound the work before the numbers are read (a modulus may carry a few leading zero octets).
      const n = b64('n', (bytes) => bytes >= 256 && bytes <= 1040);
      const e = b64('e', (bytes) => bytes >= 1 && bytes <= 40);
      if (!n || !e || !isSoundRsaKey(n, e)) return problem('an RSA key must have an odd modulus `n` of 2048 to 8192 bits and an odd exponent `e` of at least 65537 (below 2^256)');
      if (jwk.alg !== undefined && jwk.alg !== 'RS256') return problem('an RSA key verifies RS256 only');
      if (!only(['kty', 'n', 'e', 'kid', 'alg', 'use'])) return problem('has members an RSA public key does not');
      keys.push({ kty: 'RSA', n, e, kid, ...(jwk.alg ? { alg: 'RS256' } : {}), ...(jwk.use ? { use: 'sig' } : {}) });
    } else if (jwk.kty === 'OKP') {
      const x = b64('x', (bytes) => bytes === 32);
      if (jwk.crv !== 'Ed25519' || !x) return problem('an OKP key must be Ed25519 with a 32-byte `x`');
      if (!isEd25519PointOfLargeOrder(x)) return problem('`x` is not an Ed25519 public key: it decodes to no point, or to one of small order');
      if (jwk.alg !== undefined && jwk.alg !== 'EdDSA') return problem('an Ed25519 key verifies EdDSA only');
      if (!only(['kty', 'crv', 'x', 'kid', 'alg', 'use'])) return problem('has members an Ed25519 public key does not');
      keys.push({ kty: 'OKP', crv: 'Ed25519', x, kid, ...(jwk.alg ? { alg: 'EdDSA' } : {}), ...(jwk.use ? { use: 'sig' } : {}) });
    } else {
      return problem('`kty` must be "EC" (P-256), "RSA" or "OKP" (Ed25519)');
    }
  });
  const kids = keys.map((k) => k.kid);
  const repeated = kids.filter((kid, i) => kids.indexOf(kid) !== i);
  if (repeated.length > 0) problems.push({ field, message: `each key needs its own kid: ${[...new Set(repeated)].join(', ')} repeated` });
  if (problems.length > 0) throw new ValidationError(problems);
  return keys;
}
