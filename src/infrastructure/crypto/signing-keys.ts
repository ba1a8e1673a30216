import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface SigningKey {
  kid: string;
  privateKeyPem: string;
  publicKeyPem: string;
  jwk: PublicJwk;
}

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export class SigningKeyError extends Error {}

/** A key pair from PEM text; only Ed25519 is accepted, so the algorithm can be pinned to EdDSA. */
export function signingKeyFromPem(privateKeyPem: string, publicKeyPem: string): SigningKey {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  try {
    privateKey = createPrivateKey(privateKeyPem);
    publicKey = createPublicKey(publicKeyPem);
  } catch {
    throw new SigningKeyError('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY are not readable PEM keys');
  }
  if (privateKey.asymmetricKeyType !== 'ed25519' || publicKey.asymmetricKeyType !== 'ed25519') {
    throw new SigningKeyError('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY must be an Ed25519 key pair');
  }
  const derived = createPublicKey(privateKey).export({ format: 'jwk' });
  const given = publicKey.export({ format: 'jwk' });
  if (derived.x !== given.x) throw new SigningKeyError('JWT_PUBLIC_KEY does not belong to JWT_PRIVATE_KEY');
  return toSigningKey(privateKey, publicKey);
}

/**
 * The embedded default: an Ed25519 pair generated on first start and kept under DATA_DIR. When
 * DATA_DIR cannot be written (a read-only or root-owned mount, e.g. a tmpfs as Podman creates
 * it), the pair lives in this process only and `onEphemeral` is told why: tokens then end with
 * the process, which a throwaway test container can live with and a deployment sets
 * JWT_PRIVATE_KEY/JWT_PUBLIC_KEY for anyway.
 */
export function loadOrCreateLocalSigningKey(dataDir: string, onEphemeral: (reason: string) => void = () => undefined): SigningKey {
  const file = path.join(dataDir, 'jwt-ed25519-private.pem');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    // 'wx' fails when another process created it meanwhile; then we read theirs.
    try {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        onEphemeral(`${code}: ${dataDir} is not writable by this user`);
        return toSigningKey(privateKey, createPublicKey(privateKey));
      }
      if (code !== 'EEXIST') throw error;
    }
  }
  const privateKey = createPrivateKey(readFileSync(file, 'utf8'));
  return toSigningKey(privateKey, createPublicKey(privateKey));
}

function toSigningKey(privateKey: KeyObject, publicKey: KeyObject): SigningKey {
  const jwk = publicKey.export({ format: 'jwk' }) as JsonWebKey & { x: string };
  const kid = thumbprint(jwk.x);
  return {
    kid,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig' },
  };
}

/** RFC 7638 thumbprint: a kid that names the key itself. */
function thumbprint(x: string): string {
  return createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
}

/** A public key that verifies access tokens: the current signing key's, or a retired one's. */
export interface VerificationKey {
  kid: string;
  publicKeyPem: string;
  jwk: PublicJwk;
}

/**
 * The keys tokens may be signed with: the current one first, then retired ones (JWT_PREVIOUS_PUBLIC_KEYS),
 * whose tokens keep verifying until they expire. A token is verified only by the key its `kid` names.
 */
export function verificationKeysFor(current: SigningKey, previousPublicKeyPems: readonly string[]): VerificationKey[] {
  const keys: VerificationKey[] = [{ kid: current.kid, publicKeyPem: current.publicKeyPem, jwk: current.jwk }];
  for (const pem of previousPublicKeyPems) {
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(pem);
    } catch {
      throw new SigningKeyError('JWT_PREVIOUS_PUBLIC_KEYS holds a key that is not a readable PEM public key');
    }
    if (publicKey.asymmetricKeyType !== 'ed25519') {
      throw new SigningKeyError('JWT_PREVIOUS_PUBLIC_KEYS must hold Ed25519 public keys only');
    }
    const jwk = publicKey.export({ format: 'jwk' }) as JsonWebKey & { x: string };
    const kid = thumbprint(jwk.x);
    if (keys.some((k) => k.kid === kid)) continue;
    keys.push({
      kid,
      publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig' },
    });
  }
  return keys;
}
