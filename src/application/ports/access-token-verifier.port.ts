/** What an access token of ours says, once its signature, issuer, audience and expiry were checked. */
export type VerifiedAccessToken = {
  subject: string;
  issuer: string;
  audience: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  expiresAt: number;
} & (
  | {
      /** A user's token: `ver`, the user's token version when it was issued. */
      kind: 'user';
      tokenVersion: number;
      /** `mfa_enrollment: true` (#24): the token may only enroll a second factor and read `/v1/me`. */
      enrollmentOnly?: boolean;
    }
  | {
      /** A service account's token (client credentials): its `client_id` and `scope`. */
      kind: 'service';
      clientId: string;
      scope: readonly string[];
    }
);

/**
 * Checks an access token as the API's bearer authentication does (the key its `kid` names, that key's own
 * algorithm, our issuer and audience, unexpired, every registered claim present, and each kind's own claims:
 * a user's `ver`, a service's `client_id` and `scope`, never both): the token as it says, or null for any
 * failure. Whether its subject is still signed in is not its business.
 */
export interface AccessTokenVerifier {
  verify(token: string): Promise<VerifiedAccessToken | null>;
}
