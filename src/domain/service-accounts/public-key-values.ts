/**
 * What makes a registered public key's numbers a key that only its private half can sign for: pure arithmetic on the
 * JWK members (RFC 7518 §6), so the domain refuses a key that would verify forgeries or nothing at all.
 *
 * - RSA: a modulus of 2048 to 8192 bits counted without leading zero octets (a zero-padded 512-bit modulus is 512
 *   bits), odd; a public exponent odd, at least 65537 and below 2^256 (NIST SP 800-56B, FIPS 186-5). With e = 1 a
 *   "signature" is the padded hash itself: anyone who reads the public key could sign.
 * - EC P-256: a point on the curve (SEC 1 §3.2.2.1; the cofactor is 1, so any such point has the group's order).
 * - Ed25519: an encoding that decodes to a point (RFC 8032 §5.1.3) of more than small order: with a public key of
 *   order 8 or less, a signature verifies for one guess in 8 without any private key.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The octets of a base64url string (no padding) whose alphabet the caller checked. */
export function base64UrlOctets(value: string): number[] {
  const octets: number[] = [];
  let bits = 0;
  let buffer = 0;
  for (const char of value) {
    buffer = ((buffer << 6) | ALPHABET.indexOf(char)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      octets.push((buffer >> bits) & 0xff);
    }
  }
  return octets;
}

function bigEndian(octets: readonly number[]): bigint {
  return octets.reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);
}

function littleEndian(octets: readonly number[]): bigint {
  return bigEndian([...octets].reverse());
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function power(base: bigint, exponent: bigint, m: bigint): bigint {
  let result = 1n;
  let b = mod(base, m);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
  }
  return result;
}

/** An RSA public key's `n` and `e` (base64url): a modulus of 2048 to 8192 bits, odd, and an odd exponent in [65537, 2^256). */
export function isSoundRsaKey(n: string, e: string): boolean {
  const modulus = bigEndian(base64UrlOctets(n));
  const exponent = bigEndian(base64UrlOctets(e));
  const bits = bitLength(modulus);
  return bits >= 2048 && bits <= 8192 && (modulus & 1n) === 1n && (exponent & 1n) === 1n && exponent >= 65537n && bitLength(exponent) <= 256;
}

const P256 = {
  p: 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n,
  b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
};

/** A P-256 public key's `x` and `y` (32 octets each, base64url): a point on the curve, y² = x³ − 3x + b (mod p). */
export function isP256Point(x: string, y: string): boolean {
  const { p, b } = P256;
  const px = bigEndian(base64UrlOctets(x));
  const py = bigEndian(base64UrlOctets(y));
  if (px >= p || py >= p) return false;
  return mod(py * py - (px * px * px - 3n * px + b), p) === 0n;
}

const ED = (() => {
  const p = 2n ** 255n - 19n;
  return { p, d: mod(-121665n * power(121666n, p - 2n, p), p), sqrtMinusOne: power(2n, (p - 1n) / 4n, p) };
})();

type EdPoint = { x: bigint; y: bigint };

/** Twisted Edwards addition with a = −1 (complete on Ed25519: d is not a square). */
function edAdd(a: EdPoint, b: EdPoint): EdPoint {
  const { p, d } = ED;
  const t = (d * a.x * b.x * a.y * b.y) % p;
  return {
    x: mod((a.x * b.y + a.y * b.x) * power(1n + t, p - 2n, p), p),
    y: mod((a.y * b.y + a.x * b.x) * power(mod(1n - t, p), p - 2n, p), p),
  };
}

/** An Ed25519 public key's `x` (32 octets, base64url): decodes to a point (RFC 8032 §5.1.3), and 8 times it is not the identity. */
export function isEd25519PointOfLargeOrder(x: string): boolean {
  const { p, d, sqrtMinusOne } = ED;
  const encoded = littleEndian(base64UrlOctets(x));
  const sign = encoded >> 255n;
  const y = encoded & (2n ** 255n - 1n);
  if (y >= p) return false;
  const u = mod(y * y - 1n, p);
  const v = mod(d * y * y + 1n, p);
  let px = (u * power(v, 3n, p) * power(u * power(v, 7n, p), (p - 5n) / 8n, p)) % p;
  const vx2 = (v * px * px) % p;
  if (vx2 !== u) {
    if (vx2 !== mod(-u, p)) return false;
    px = (px * sqrtMinusOne) % p;
  }
  if (px === 0n && sign === 1n) return false;
  if ((px & 1n) !== sign) px = p - px;
  let point: EdPoint = { x: px, y };
  for (let i = 0; i < 3; i++) point = edAdd(point, point);
  return !(point.x === 0n && point.y === 1n);
}
