import { AuditActions } from '../../domain/audit/audit-entry';
import type { AuditRecorder } from '../audit/audit-recorder';
import type { UserRepository } from '../ports/user-repository.port';
import { type Actor, isServiceAccount } from './actor';

/**
 * Ends the actor's access tokens at once, on every replica: its token version is bumped, and
 * every request compares the token's `ver` with the stored one. This ends all of that user's
 * tokens (every device), not only the one presented: one integer per user instead of a
 * denylist of token ids that would have to be kept until each token expires. A service account's
 * token is left as it is (docs/DECISIONS.md: it has no session).
 */
export class SignOutUseCase {
  private readonly users: UserRepository;
  private readonly audit: AuditRecorder;

  constructor(deps: { userRepository: UserRepository; auditRecorder: AuditRecorder }) {
    this.users = deps.userRepository;
    this.audit = deps.auditRecorder;
  }

  async execute({ actor }: { actor: Actor }): Promise<void> {
    // A service token has no session to end (it ends at its expiry, or with its account): nothing changes, so
    // nothing is written, and no sign-out is audited that did not happen.
    if (isServiceAccount(actor)) return;
    await this.users.incrementTokenVersion(actor.userId);
    const who = await this.audit.actorOf(actor, this.users);
    await this.audit.record({ action: AuditActions.signedOut, actor: who, target: { type: 'user', id: actor.userId, snapshot: who.name } });
  }
}
