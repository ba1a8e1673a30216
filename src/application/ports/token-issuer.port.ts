export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export interface TokenIssuer {
  issue(subject: string): Promise<IssuedToken>;
}
