export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export interface TokenIssuer {
  /** A token for `subject`, carrying its current token version (claim `ver`). */
  issue(subject: string, tokenVersion: number): Promise<IssuedToken>;
}
