import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * The JWS algorithms our tokens are signed with. The key decides: an EC P-256 key signs ES256 (the one
 * every JOSE library verifies, the Java ones included), an RSA key RS256, an Ed25519 key EdDSA (which
 * nimbus-jose-jwt and Spring Security do not verify out of the box; see docs/VERIFYING-TOKENS.md).
 */
export type SigningAlgorithm = 'ES256' | 'RS256' | 'EdDSA';

/** What the JWKS publishes of a key: its public members, and `kid`, `alg`, `use`. */
export type PublicJwk = KeyMembers & { kid: string; alg: SigningAlgorithm; use: 'sig' };

/** The members RFC 7638 requires of each key type. */
type KeyMembers =
  | { kty: 'EC'; crv: 'P-256'; x: string; y: string }
  | { kty: 'RSA'; n: string; e: string }
  | { kty: 'OKP'; crv: 'Ed25519'; x: string };

/** A public key that verifies access tokens: the current signing key's, or a retired one's. */
export interface VerificationKey {
  kid: string;
  alg: SigningAlgorithm;
  publicKeyPem: string;
  jwk: PublicJwk;
}

/** The key new tokens are signed with. */
export interface SigningKey extends VerificationKey {
  privateKeyPem: string;
}

export class SigningKeyError extends Error {}

const MIN_RSA_BITS = 2048;

/** The algorithm a key signs with, or why it cannot sign ours. `what` names the key in the message. */
export function algorithmOf(key: KeyObject, what: string): SigningAlgorithm {
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return 'EdDSA';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return 'ES256';
      throw new SigningKeyError(`${what}: an EC key must be on the P-256 curve (ES256), not ${curve ?? 'an unnamed curve'}`);
    }
    case 'rsa': {
      const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
      if (bits >= MIN_RSA_BITS) return 'RS256';
      throw new SigningKeyError(`${what}: an RSA key must have at least ${MIN_RSA_BITS} bits, not ${bits}`);
    }
    default:
      throw new SigningKeyError(
        `${what}: the key must be EC P-256 (ES256), RSA of ${MIN_RSA_BITS}+ bits (RS256) or Ed25519 (EdDSA), not ${key.asymmetricKeyType ?? 'a symmetric key'}`,
      );
  }
}

/** A key pair from PEM text (EC P-256, RSA or Ed25519); its type decides the algorithm. */
export function signingKeyFromPem(privateKeyPem: string, publicKeyPem: string): SigningKey {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  try {
    privateKey = createPrivateKey(privateKeyPem);
    publicKey = createPublicKey(publicKeyPem);
  } catch {
    throw new SigningKeyError('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY are not readable PEM keys');
  }
  if (publicKey.type !== 'public') throw new SigningKeyError('JWT_PUBLIC_KEY must be a public key');
  const key = signingKeyFrom(privateKey, 'JWT_PRIVATE_KEY');
  if (verificationKeyFrom(publicKey, 'JWT_PUBLIC_KEY').kid !== key.kid) {
    throw new SigningKeyError('JWT_PUBLIC_KEY does not belong to JWT_PRIVATE_KEY');
  }
  return key;
}

/** The signing key of a private key object; its public half is derived from it. */
export function signingKeyFrom(privateKey: KeyObject, what: string): SigningKey {
  return {
    ...verificationKeyFrom(createPublicKey(privateKey), what),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

function verificationKeyFrom(publicKey: KeyObject, what: string): VerificationKey {
  const alg = algorithmOf(publicKey, what);
  const members = publicMembers(publicKey.export({ format: 'jwk' }), alg);
  const kid = thumbprint(members);
  return {
    kid,
    alg,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    jwk: { ...members, kid, alg, use: 'sig' },
  };
}

/** The members RFC 7638 requires of each key type: exactly what the JWKS publishes besides kid, alg and use. */
function publicMembers(jwk: JsonWebKey, alg: SigningAlgorithm): KeyMembers {
  switch (alg) {
    case 'ES256':
      return { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! };
    case 'RS256':
      return { kty: 'RSA', n: jwk.n!, e: jwk.e! };
    case 'EdDSA':
      return { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
  }
}

/** RFC 7638 thumbprint: a kid that names the key itself (the required members, in lexicographic order). */
function thumbprint(members: KeyMembers): string {
  const sorted = Object.fromEntries(Object.entries(members).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url');
}

/** Public keys from one variable: JWT_NEXT_PUBLIC_KEYS or JWT_PREVIOUS_PUBLIC_KEYS (named in what is refused). */
export interface PublicKeySource {
  variable: string;
  pems: readonly string[];
}

/**
 * The keys tokens may be signed with, as the JWKS lists them: the current one first, then those of `sources` in
 * order, each once: the key to come (JWT_NEXT_PUBLIC_KEYS, published before any replica signs with it) and retired
 * ones (JWT_PREVIOUS_PUBLIC_KEYS, whose tokens keep verifying until they expire), of any of the three types. A token
 * is verified only by the key its `kid` names, with that key's algorithm.
 */
export function verificationKeysFor(current: SigningKey, sources: readonly PublicKeySource[]): VerificationKey[] {
  const keys: VerificationKey[] = [{ kid: current.kid, alg: current.alg, publicKeyPem: current.publicKeyPem, jwk: current.jwk }];
  for (const { variable, pems } of sources) {
    for (const pem of pems) {
      let publicKey: KeyObject;
      try {
        publicKey = createPublicKey(pem);
      } catch {
        throw new SigningKeyError(`${variable} holds a key that is not a readable PEM public key`);
      }
      const key = verificationKeyFrom(publicKey, variable);
      if (!keys.some((k) => k.kid === key.kid)) keys.push(key);
    }
  }
  return keys;
}
