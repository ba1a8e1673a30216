/** Seals secrets for storage (authenticated encryption) and opens them again. */
export interface SecretCipher {
  seal(plain: string): string;
  /** Throws when the sealed text was changed or sealed with another key. */
  open(sealed: string): string;
}
