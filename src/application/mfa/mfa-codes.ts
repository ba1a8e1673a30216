import type { SecretTokens } from '../ports/secret-tokens.port';

/** A recovery code as typed (any case, with or without the dash or spaces) reduced to what was generated. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** The stored form of a recovery code: SHA-256 of its normalized text (random codes need no slow hash). */
export function recoveryCodeHash(secrets: SecretTokens, code: string): string {
  return secrets.hash(`recovery:${normalizeRecoveryCode(code)}`);
}

/** A TOTP code is six digits; anything else is refused before any secret is opened. */
export function looksLikeTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code);
}
