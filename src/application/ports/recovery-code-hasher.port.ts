/**
 * How recovery codes are stored: a slow, salted hash (a code holds about 49 random bits, within one offline pass of a
 * table dump under a fast unsalted hash). One salt per set of codes, so a code typed is hashed once and looked up.
 */
export interface RecoveryCodeHasher {
  /** A new random salt for a set of codes: 32 hex digits. */
  salt(): string;
  /** The stored form of a code (as normalized) under its set's salt: 64 hex digits. */
  digest(code: string, salt: string): Promise<string>;
}
