/** Unguessable single-use tokens (at least 128 random bits); only their hash is ever stored. */
export interface SecretTokens {
  generate(): { token: string; hash: string };
  hash(token: string): string;
}
