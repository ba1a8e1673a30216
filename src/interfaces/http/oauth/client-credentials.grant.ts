import type { IssueServiceTokenUseCase } from '../../../application/service-accounts/issue-service-token.use-case';
import { ClientAssertionReplayedError } from '../../../application/service-accounts/service-token.errors';
import { authenticateClient, CLIENT_AUTH_METHODS, type ClientAuthenticationDeps, presentedClient, refuseClient } from './client-authentication';
import type { TokenGrant, TokenResponse } from './token-grant';

export interface ClientCredentialsGrantDeps extends ClientAuthenticationDeps {
  issueServiceToken: IssueServiceTokenUseCase;
}

/**
 * `grant_type=client_credentials` (RFC 6749 §4.4) for a service account, authenticated as the revocation and
 * introspection endpoints authenticate their callers (client-authentication.ts: exactly one of
 * `client_secret_basic`, `client_secret_post` or `private_key_jwt`; every failure one `invalid_client` 401;
 * failures counted per client address in the database, one budget for the three endpoints). An
 * optional `scope` narrows the token to a subset of the role's permissions (`invalid_scope` otherwise), and an optional
 * `resource` (RFC 8707) makes it another service's (TokenAudiences; `invalid_target` otherwise).
 * A client assertion's `jti` is remembered as the grant commits its audit entry (IssueServiceTokenUseCase):
 * a replay found then is the same invalid_client.
 */
export function clientCredentialsGrant(deps: ClientCredentialsGrantDeps): TokenGrant {
  return {
    grantType: 'client_credentials',
    clientAuthMethods: CLIENT_AUTH_METHODS,
    async exchange(parameters, request): Promise<TokenResponse> {
      const presented = presentedClient(parameters, request);
      const account = await authenticateClient(deps, presented, request, { rememberWithGrant: true });
      try {
        const { scope, resource } = parameters;
        const token = await deps.issueServiceToken.execute({ account, ...(scope !== undefined ? { scope } : {}), ...(resource !== undefined ? { resource } : {}) });
        return { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresInSeconds, scope: token.scope.join(' ') };
      } catch (error) {
        if (error instanceof ClientAssertionReplayedError && presented.method !== 'none') return refuseClient(deps, presented, request);
        throw error;
      }
    },
  };
}
