import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type SigningKey, SigningKeyError, signingKeyFrom } from './signing-keys';

/** The embedded default's key pair under DATA_DIR: ES256 (EC P-256), which every verifier supports. */
export const LOCAL_KEY_FILE = 'jwt-es256-private.pem';
/** What earlier versions generated: an Ed25519 pair, kept only to verify the tokens it signed. */
export const LEGACY_LOCAL_KEY_FILE = 'jwt-ed25519-private.pem';

export interface LocalSigningKeys {
  current: SigningKey;
  /** The public key of an Ed25519 pair an earlier version generated in DATA_DIR: published as retired. */
  retiredPublicKeyPems: string[];
}

export interface LocalSigningKeyEvents {
  /** DATA_DIR cannot be written: the pair lives in this process only. */
  onEphemeral?(reason: string): void;
  /** An ES256 pair was just generated beside an earlier version's Ed25519 one, which is now retired. */
  onLegacyKeyRetired?(file: string): void;
}

/**
 * The embedded default: an ES256 pair generated on first start and kept under DATA_DIR. When DATA_DIR
 * cannot be written (a read-only or root-owned mount, e.g. a tmpfs as Podman creates it), the pair lives
 * in this process only and `onEphemeral` is told why: tokens then end with the process, which a
 * throwaway test container can live with and a deployment sets JWT_PRIVATE_KEY/JWT_PUBLIC_KEY for anyway.
 *
 * A DATA_DIR of an earlier version holds an Ed25519 pair instead: it is left where it is and its public
 * key is published as retired, so the tokens it signed keep verifying until they expire, while new ones
 * are ES256 (docs/DECISIONS.md).
 */
export function loadOrCreateLocalSigningKeys(dataDir: string, events: LocalSigningKeyEvents = {}): LocalSigningKeys {
  const file = path.join(dataDir, LOCAL_KEY_FILE);
  const legacyFile = path.join(dataDir, LEGACY_LOCAL_KEY_FILE);
  const retiredPublicKeyPems = existsSync(legacyFile) ? [publicPemOf(legacyFile)] : [];
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    // 'wx' fails when another process created it meanwhile; then we read theirs.
    try {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
      if (retiredPublicKeyPems.length > 0) events.onLegacyKeyRetired?.(legacyFile);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        events.onEphemeral?.(`${code}: ${dataDir} is not writable by this user`);
        return { current: signingKeyFrom(privateKey, file), retiredPublicKeyPems };
      }
      if (code !== 'EEXIST') throw error;
    }
  }
  return { current: signingKeyFrom(readPrivateKey(file), file), retiredPublicKeyPems };
}

function readPrivateKey(file: string): KeyObject {
  const pem = readFileSync(file, 'utf8');
  try {
    return createPrivateKey(pem);
  } catch {
    throw new SigningKeyError(`${file} is not a readable PEM private key`);
  }
}

function publicPemOf(file: string): string {
  return createPublicKey(readPrivateKey(file)).export({ format: 'pem', type: 'spki' }).toString();
}
