import type { Config } from './config/config';
import { loadOrCreateLocalMfaKey, parseMfaKey } from './crypto/aes-gcm-secret-cipher';
import { type LocalSigningKeys, loadOrCreateLocalSigningKeys } from './crypto/local-signing-key';
import { signingKeyFromPem } from './crypto/signing-keys';
import type { Logger } from './logging/logger';

type KeyConfig = Pick<Config, 'dataDir' | 'database'>;

/**
 * A key the embedded default keeps under DATA_DIR while a shared database (DATABASE_URL on MySQL/MariaDB) serves
 * other replicas too: each replica has a key of its own (an emptyDir has a new one at every start), so what one
 * seals or signs the others refuse. Said once, when the key is taken, naming the variables that fix it.
 */
function warnIfShared(config: KeyConfig, logger: Logger, variables: string, consequence: string): void {
  if (config.database.kind === 'sqlite') return;
  logger.warn(
    { dataDir: config.dataDir, set: variables },
    `DATABASE_URL is set without ${variables}: ${consequence} with a key kept under DATA_DIR, which no other replica of this database has ` +
      `(and which an emptyDir loses at every start); set ${variables} to the same value on every replica`,
  );
}

/** JWT_PRIVATE_KEY/JWT_PUBLIC_KEY, or the embedded default's pair under DATA_DIR. */
export function signingKeysOf(config: KeyConfig & Pick<Config, 'jwt'>, logger: Logger): LocalSigningKeys {
  const { privateKeyPem, publicKeyPem } = config.jwt;
  if (privateKeyPem && publicKeyPem) return { current: signingKeyFromPem(privateKeyPem, publicKeyPem), retiredPublicKeyPems: [] };
  warnIfShared(config, logger, 'JWT_PRIVATE_KEY and JWT_PUBLIC_KEY', 'tokens are signed (and their signatures checked)');
  return loadOrCreateLocalSigningKeys(config.dataDir, {
    onEphemeral: (reason) =>
      logger.warn(
        { dataDir: config.dataDir, reason },
        'DATA_DIR is not writable: tokens are signed with a key of this process only and end with it; set JWT_PRIVATE_KEY and JWT_PUBLIC_KEY to keep them',
      ),
    onLegacyKeyRetired: (file) =>
      logger.info({ file }, 'new tokens are signed with a new ES256 key; the Ed25519 key of an earlier version is published as retired, so its tokens verify until they expire'),
  });
}

/** MFA_ENCRYPTION_KEY, or the embedded default's key under DATA_DIR. */
export function mfaKeyOf(config: KeyConfig & Pick<Config, 'mfaEncryptionKey'>, logger: Logger): Buffer {
  const configured = config.mfaEncryptionKey ? parseMfaKey(config.mfaEncryptionKey) : null;
  if (configured) return configured;
  warnIfShared(config, logger, 'MFA_ENCRYPTION_KEY', 'second factors’ secrets and sign-in tickets (mfa_token) are sealed');
  return loadOrCreateLocalMfaKey(config.dataDir, (reason) =>
    logger.warn({ dataDir: config.dataDir, reason }, 'DATA_DIR is not writable: second factors are sealed with a key of this process only; set MFA_ENCRYPTION_KEY to keep them'),
  );
}
