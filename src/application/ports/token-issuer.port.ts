export interface IssuedToken {
  token: string;
  /** `iat`: the token's lifetime is `expiresAt - issuedAt`, whenever it is read. */
  issuedAt: Date;
  expiresAt: Date;
}

export interface TokenIssuer {
  /**
   * A token for `subject`, carrying its current token version (claim `ver`). `enrollmentOnly` (#24): the token
   * can do nothing but enroll a second factor and read `/v1/me` (claim `mfa_enrollment: true`).
   */
  issue(subject: string, tokenVersion: number, options?: { enrollmentOnly?: boolean }): Promise<IssuedToken>;
  /**
   * A service account's token (client credentials): `sub` its id, `client_id` its client id (the claim that
   * marks a service token: a user's never carries one, and carries `ver` instead), `scope` the permissions it
   * may use, space-separated (RFC 9068), `aud` this service's or the resource server's it was asked for, living
   * SERVICE_TOKEN_TTL.
   */
  issueServiceToken(input: ServiceTokenRequest): Promise<IssuedToken>;
}

export interface ServiceTokenRequest {
  subject: string;
  clientId: string;
  scope: readonly string[];
  /** `aud` (RFC 8707, TokenAudiences): absent, this service's own (JWT_AUDIENCE). */
  audience?: string;
}
