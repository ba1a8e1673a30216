import type { RefreshSessionUseCase } from '../../../application/auth/refresh-session.use-case';
import type { TokenAudiences } from '../../../application/service-accounts/token-audiences';
import { authenticateClient, type ClientAuthenticationDeps, presentedClient } from './client-authentication';
import { OAuthError } from './oauth-error';
import type { TokenGrant, TokenResponse } from './token-grant';

/** Opaque refresh tokens are 75 characters of base64url (43 before refresh-token-format.ts); anything longer cannot be one (as POST /v1/auth/refresh). */
export const REFRESH_TOKEN_MAX_LENGTH = 128;

/**
 * `grant_type=refresh_token` (RFC 6749 §6) for a public client: the refresh token is the credential. The
 * same use case as POST /v1/auth/refresh, so rotation, reuse detection and every refusal are the same; a
 * refusal is `invalid_grant`, whatever its reason (as the 401 there is one answer for all). Client credentials
 * sent along are checked as the revocation endpoint checks them (wrong ones: invalid_client), never ignored; right
 * ones add nothing (a refresh token is a user's, bound to no client).
 */
export function refreshTokenGrant(deps: {
  refreshSession: RefreshSessionUseCase;
  accessTokenTtlSeconds: number;
  clientAuthentication: ClientAuthenticationDeps;
  tokenAudiences: TokenAudiences;
}): TokenGrant {
  return {
    grantType: 'refresh_token',
    clientAuthMethods: ['none'],
    async exchange(parameters, request): Promise<TokenResponse> {
      // Only client credentials are checked: a bearer token some HTTP clients add to every request is no client
      // authentication, and the refresh token alone is the grant's credential.
      const client = presentedClient(parameters, request, { otherSchemes: 'ignore' });
      if (client.method !== 'none') await authenticateClient(deps.clientAuthentication, client, request);
      const refreshToken = parameters.refresh_token;
      if (refreshToken === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
      // Access tokens carry no scope (permissions are read from the role at each request): none can be narrowed to.
      if (parameters.scope !== undefined) {
        throw new OAuthError('invalid_scope', 'These tokens carry no scope: send no scope parameter');
      }
      // RFC 8707: a user's tokens are this service's; a resource naming another is invalid_target.
      deps.tokenAudiences.forUser(parameters.resource);
      if (refreshToken.length > REFRESH_TOKEN_MAX_LENGTH) throw new OAuthError('invalid_grant', 'The refresh token is not valid: sign in again');
      const tokens = await deps.refreshSession.execute({ refreshToken });
      return {
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: Math.round(deps.accessTokenTtlSeconds),
        refresh_token: tokens.refreshToken,
      };
    },
  };
}
