/** Seals secrets for storage (authenticated encryption) and opens them again. */
export interface SecretCipher {
  seal(plain: string): string;
  /**
   * The secret; null when the sealed text was changed or sealed with another key (MFA_ENCRYPTION_KEY lost or
   * rotated): no code of that factor verifies, and an admin's reset of the user's factors is the way back.
   */
  open(sealed: string): string | null;
}
