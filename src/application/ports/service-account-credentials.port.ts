/** A service account whose credentials were verified: what a token for it is made of. */
export interface AuthenticatedServiceAccount {
  id: string;
  clientId: string;
  roleId: string;
  method: 'client_secret' | 'private_key_jwt';
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
  /** RFC 7523 `private_key_jwt`: a JWT signed by one of the account's registered keys, its `jti` accepted once. */
  authenticateWithAssertion(clientAssertion: string, audience: AssertionAudience): Promise<AuthenticatedServiceAccount | null>;
}
