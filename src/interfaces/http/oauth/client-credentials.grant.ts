import type { IssueServiceTokenUseCase } from '../../../application/service-accounts/issue-service-token.use-case';
import { authenticateClient, CLIENT_AUTH_METHODS, type ClientAuthenticationDeps, presentedClient } from './client-authentication';
import type { TokenGrant, TokenResponse } from './token-grant';

export interface ClientCredentialsGrantDeps extends ClientAuthenticationDeps {
  issueServiceToken: IssueServiceTokenUseCase;
}

/**
 * `grant_type=client_credentials` (RFC 6749 §4.4) for a service account, authenticated as the revocation and
 * introspection endpoints authenticate their callers (client-authentication.ts: exactly one of
 * `client_secret_basic`, `client_secret_post` or `private_key_jwt`; every failure one `invalid_client` 401;
 * failures counted per client and per address in the database, one budget for the three endpoints). An
 * optional `scope` narrows the token to a subset of the role's permissions (`invalid_scope` otherwise).
 */
export function clientCredentialsGrant(deps: ClientCredentialsGrantDeps): TokenGrant {
  return {
    grantType: 'client_credentials',
    clientAuthMethods: CLIENT_AUTH_METHODS,
    async exchange(parameters, request): Promise<TokenResponse> {
      const account = await authenticateClient(deps, presentedClient(parameters, request), request);
      const token = await deps.issueServiceToken.execute({ account, ...(parameters.scope !== undefined ? { scope: parameters.scope } : {}) });
      return { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresInSeconds, scope: token.scope.join(' ') };
    },
  };
}
