import type { FastifyRequest } from 'fastify';
import type { GrantDescription } from './authorization-server-metadata';

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  /** Seconds the access token lives. */
  expires_in: number;
  refresh_token?: string;
  scope?: string;
}

/**
 * One `grant_type` of the token endpoint. The endpoint picks the grant by the form's `grant_type` from a
 * table of these; discovery publishes the same table. A grant that authenticates its client (client
 * credentials) does it in `exchange`, from the request's Authorization header or the form, and throws an
 * OAuthError (`invalid_client`, 401 with WWW-Authenticate) when it fails.
 */
export interface TokenGrant extends GrantDescription {
  /** `parameters`: the form's fields, each given once (a repeated one was refused before). */
  exchange(parameters: Readonly<Record<string, string>>, request: FastifyRequest): Promise<TokenResponse>;
}
