/** RFC 6238 time-based codes (30-second steps, six digits, SHA-1: what every authenticator app reads). */
export interface Totp {
  /** A new random secret, base32. */
  newSecret(): string;
  /** The `otpauth://` URI an authenticator app scans. */
  uri(secret: string, accountName: string): string;
  /** The URI as a QR code image (`data:image/png;base64,…`). */
  qrCode(uri: string): Promise<string>;
  /**
   * The time step `code` belongs to, within one step of drift around `now`, and later than `afterStep`
   * when given; null when it matches none of them.
   */
  verify(secret: string, code: string, now: Date, afterStep: number | null): Promise<number | null>;
}

/** Recovery codes: random, short enough to type, and normalized the same way when typed back. */
export interface RecoveryCodeGenerator {
  /** A new code, e.g. `k7q2m-x9d4p` (50 random bits). */
  next(): string;
}
