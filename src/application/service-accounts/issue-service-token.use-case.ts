import { AuditActions } from '../../domain/audit/audit-entry';
import type { AuditRecorder } from '../audit/audit-recorder';
import type { Clock } from '../ports/clock.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { AuthenticatedServiceAccount } from '../ports/service-account-credentials.port';
import type { ServiceAccountCredentialStore } from '../ports/service-account-repository.port';
import type { TokenIssuer } from '../ports/token-issuer.port';
import { type AuditFact } from '../audit/audit-recorder';
import { ClientAssertionReplayedError, InvalidScopeError, InvalidTargetError } from './service-token.errors';
import type { TokenAudiences } from './token-audiences';

/** A scope longer than this is refused before it is split: more than every permission name there is. */
export const MAX_SCOPE_LENGTH = 2048;

export interface ServiceToken {
  accessToken: string;
  /** Seconds the token lives (SERVICE_TOKEN_TTL). */
  expiresInSeconds: number;
  /** The permissions it carries, in the role's order. */
  scope: string[];
}

/**
 * The client credentials grant's token (RFC 6749 §4.4) for an account whose credentials were verified:
 * its role's permissions now, or the subset `scope` names (RFC 6749 §3.3: space-separated; any name the
 * role does not hold is invalid_scope, never silently dropped). The token's scope only narrows: each
 * request still reads the role (AuthenticateActorUseCase), so a permission the role lost is gone at once.
 *
 * An account authenticated by a client assertion whose `jti` is still to be remembered (`account.assertion`)
 * has it remembered here, in one commit with the grant's audit entry (or the refusal's): the grant waits on
 * one write, not on the `jti`'s and then the entry's. A replay found then is ClientAssertionReplayedError,
 * and nothing of it is written.
 */
export class IssueServiceTokenUseCase {
  private readonly roles: RoleRepository;
  private readonly tokens: TokenIssuer;
  private readonly clock: Clock;
  private readonly audit: AuditRecorder;
  private readonly credentials: ServiceAccountCredentialStore;
  private readonly audiences: TokenAudiences;

  constructor(deps: {
    roleRepository: RoleRepository;
    tokenIssuer: TokenIssuer;
    clock: Clock;
    auditRecorder: AuditRecorder;
    serviceAccountCredentialStore: ServiceAccountCredentialStore;
    tokenAudiences: TokenAudiences;
  }) {
    this.audiences = deps.tokenAudiences;
    this.audit = deps.auditRecorder;
    this.credentials = deps.serviceAccountCredentialStore;
    this.roles = deps.roleRepository;
    this.tokens = deps.tokenIssuer;
    this.clock = deps.clock;
  }

  /**
   * An account enabled again within the second it was disabled in: a token issued now would carry that second as its
   * `iat` and be refused from birth, so the grant waits for the next second (at most one, and only then). It waits
   * until the clock says so, not for a timer alone: a timer may fire a millisecond before the clock's second turns
   * (Node's timers count on the loop's cached time), and a token issued then was refused from birth.
   */
  private async notBefore(tokensValidFrom: number | undefined): Promise<void> {
    if (tokensValidFrom === undefined) return;
    const start = this.clock.now().getTime();
    const until = Math.min(tokensValidFrom * 1000, start + 1000);
    for (let now = start; now < until; now = this.clock.now().getTime()) {
      await new Promise((resolve) => setTimeout(resolve, until - now));
    }
  }

  /**
   * `resource` (RFC 8707, TokenAudiences): the token's audience, this service's unless it names one of
   * RESOURCE_SERVERS; any other is refused (invalid_target) and audited as a refused scope is.
   */
  async execute({ account, scope, resource }: { account: AuthenticatedServiceAccount; scope?: string; resource?: string }): Promise<ServiceToken> {
    const role = await this.roles.findById(account.roleId);
    const held = role ? role.permissions : [];
    const actor = { type: 'service_account' as const, id: account.id, name: account.clientId };
    const fact = { actor, target: { type: 'service_account' as const, id: account.id, snapshot: account.clientId } };
    let granted: string[];
    let audience: string;
    try {
      audience = this.audiences.forService(resource);
      granted = scope === undefined || scope === '' ? [...held] : narrowed(held, scope);
    } catch (error) {
      const code = error instanceof InvalidScopeError ? 'invalid_scope' : error instanceof InvalidTargetError ? 'invalid_target' : null;
      if (code) await this.commit(account, { ...fact, action: AuditActions.serviceTokenRefused, outcome: 'failure', code });
      throw error;
    }
    await this.notBefore(account.tokensValidFrom);
    const issued = await this.tokens.issueServiceToken({ subject: account.id, clientId: account.clientId, scope: granted, ...(resource !== undefined ? { audience } : {}) });
    // The audience is recorded when the client asked for one: a token for another service is told apart in the trail.
    const changes = [{ field: 'scope', before: null, after: granted }, ...(resource !== undefined ? [{ field: 'audience', before: null, after: audience }] : [])];
    await this.commit(account, { ...fact, action: AuditActions.serviceTokenGranted, code: account.method, changes });
    return {
      accessToken: issued.token,
      // The token's lifetime (`exp - iat`, SERVICE_TOKEN_TTL itself), not what is left of it once the grant's entry
      // committed: a commit that crossed a second boundary answered one second less.
      expiresInSeconds: Math.round((issued.expiresAt.getTime() - issued.issuedAt.getTime()) / 1000),
      scope: granted,
    };
  }

  /** The grant's entry, with its assertion's `jti` when that is still to be remembered: one commit either way. */
  private async commit(account: AuthenticatedServiceAccount, fact: AuditFact): Promise<void> {
    if (account.assertion === undefined) return this.audit.record(fact);
    const { key, expiresAt } = account.assertion;
    if (!(await this.credentials.rememberAssertion(key, expiresAt, this.clock.now(), this.audit.entries(fact)))) throw new ClientAssertionReplayedError();
  }
}

/** RFC 6749 §3.3: `scope-token *( SP scope-token )`, each a permission the role holds. */
function narrowed(held: readonly string[], scope: string): string[] {
  if (scope.length > MAX_SCOPE_LENGTH || !/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(scope)) throw new InvalidScopeError();
  const asked = new Set(scope.split(' '));
  if ([...asked].some((name) => !held.includes(name))) throw new InvalidScopeError();
  return held.filter((name) => asked.has(name));
}
