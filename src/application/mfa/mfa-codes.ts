import type { RecoveryCodeHasher } from '../ports/recovery-code-hasher.port';
import type { SecretTokens } from '../ports/secret-tokens.port';

/** A recovery code as typed (any case, with or without the dash or spaces) reduced to what was generated. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** A new set of recovery codes as stored: one salt, and each code's slow hash under it. */
export async function hashRecoveryCodes(hasher: RecoveryCodeHasher, codes: readonly string[]): Promise<{ salt: string; hashes: string[] }> {
  const salt = hasher.salt();
  return { salt, hashes: await Promise.all(codes.map((code) => hasher.digest(normalizeRecoveryCode(code), salt))) };
}

/**
 * The stored form of a recovery code typed, for the set it would belong to: its slow hash under the set's salt, or, for
 * a set stored before salts (`salt` null; review J, 2026-12-06), SHA-256 of its normalized text as it was stored then.
 */
export async function recoveryCodeHash(deps: { secretTokens: SecretTokens; recoveryCodeHasher: RecoveryCodeHasher }, code: string, salt: string | null): Promise<string> {
  const normalized = normalizeRecoveryCode(code);
  return salt === null ? deps.secretTokens.hash(`recovery:${normalized}`) : deps.recoveryCodeHasher.digest(normalized, salt);
}

/**
 * A TOTP code as typed: six digits, or three and three with a space between, as authenticator apps show it; its six
 * digits, or null for anything else, which is refused before any secret is opened.
 */
export function totpDigits(code: string): string | null {
  return /^\d{3} ?\d{3}$/.test(code) ? code.replace(' ', '') : null;
}
