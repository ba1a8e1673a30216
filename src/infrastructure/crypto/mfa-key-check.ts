import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../logging/logger';
import { AesGcmSecretCipher } from './aes-gcm-secret-cipher';

/** How many of the newest authenticator secrets a start tries to open. */
export const MFA_KEY_SAMPLE = 20;

export type MfaKeyCheck = { sampled: number; unreadable: number };

/**
 * Whether this process's MFA key opens what the database holds, told at start rather than at the first refused code.
 * Replicas given different keys (two Secrets, a key pasted wrong, a key generated under each pod's DATA_DIR) or a key
 * lost seal and open apart: each refuses the codes of authenticator apps enrolled through another as wrong, and the
 * sign-in tickets another issued. The newest MFA_KEY_SAMPLE authenticator secrets (UUIDv7 ids: the newest by the
 * primary key, no scan) are opened with this key: none opening is an error (every enrolled app's codes are refused
 * here), some not opening a warning (replicas sealing with different keys), all opening a line at info. A database
 * that cannot be read is no reason not to start: the check is skipped, said at debug.
 */
export async function checkMfaKey(dataSource: DataSource, key: Buffer, logger: Logger): Promise<MfaKeyCheck | null> {
  let rows: { sealed_secret: string }[];
  try {
    rows = (await dataSource.query(`SELECT sealed_secret FROM mfa_factors WHERE type = 'totp' ORDER BY id DESC LIMIT ${MFA_KEY_SAMPLE}`)) as { sealed_secret: string }[];
  } catch (error) {
    logger.debug({ reason: describeError(error) }, 'the MFA key was not checked against the stored secrets');
    return null;
  }
  const cipher = new AesGcmSecretCipher(key);
  const unreadable = rows.filter((row) => cipher.open(row.sealed_secret) === null).length;
  const check = { sampled: rows.length, unreadable };
  if (rows.length === 0) return check;
  if (unreadable === 0) {
    logger.info(check, `this process's MFA key opens the ${rows.length} newest authenticator-app secrets in the database`);
    return check;
  }
  const fix =
    'give every replica of this database the same MFA_ENCRYPTION_KEY, the one the secrets were sealed with; where that key is lost, an admin resets the factors of the users concerned (DELETE /v1/users/{id}/mfa)';
  if (unreadable === rows.length) {
    logger.error(
      check,
      `this process's MFA key opens none of the ${rows.length} newest authenticator-app secrets in the database: they were sealed with another key, and codes of those apps are refused here as wrong; ${fix}`,
    );
  } else {
    logger.warn(
      check,
      `${unreadable} of the ${rows.length} newest authenticator-app secrets in the database do not open with this process's MFA key: replicas seal with different keys, and each refuses the codes of apps enrolled through another; ${fix}`,
    );
  }
  return check;
}
