/** A service account whose credentials were verified: what a token for it is made of. */
export interface AuthenticatedServiceAccount {
  id: string;
  clientId: string;
  roleId: string;
  method: 'client_secret' | 'private_key_jwt';
  /** The account's: tokens issued before this second are not its (ServiceAccountState.tokensValidFrom). */
  tokensValidFrom?: number;
  /**
   * The client assertion's key, not yet remembered: present only when the caller asked to remember it itself
   * (`rememberWithGrant`), and then the caller must (ServiceAccountCredentialStore.rememberAssertion) before
   * it trusts the account.
   */
  assertion?: PendingAssertion;
}

/** A verified client assertion's key (its client and `jti`, hashed) and when it expires. */
export interface PendingAssertion {
  key: string;
  expiresAt: Date;
}

/** Where a client assertion may be addressed to (RFC 7523 §3: its `aud`). */
export interface AssertionAudience {
  /** The token endpoint's absolute URL. */
  tokenEndpointUrl: string;
  /** The issuer of the service's tokens. */
  issuer: string;
}

/**
 * Verifies a service account's credentials at the token endpoint. Each answers the enabled account, or
 * null for any failure (unknown client, wrong or expired secret, bad assertion, replay, disabled), never
 * saying which; a secret is checked in the same time for an unknown client as for a wrong secret.
 */
export interface ServiceAccountCredentials {
  authenticateWithSecret(clientId: string, secret: string): Promise<AuthenticatedServiceAccount | null>;
  /**
   * RFC 7523 `private_key_jwt`: a JWT signed by one of the account's registered keys, its `jti` accepted once.
   * With `rememberWithGrant` the `jti` is not remembered here: the answer carries it (`assertion`) for the
   * token grant to remember in the commit of its audit entry (IssueServiceTokenUseCase).
   */
  authenticateWithAssertion(clientAssertion: string, audience: AssertionAudience, options?: { rememberWithGrant?: boolean }): Promise<AuthenticatedServiceAccount | null>;
}
