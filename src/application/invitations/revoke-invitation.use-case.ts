import { AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, userTarget } from '../audit/audit-recorder';
import { Permissions } from '../../domain/permissions/permission';
import { UserNotFoundError } from '../../domain/users/user.errors';
import { type Actor, requirePermission } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';
import { assertMayHandOut } from '../users/user-administration';

/**
 * Withdraws an invitation: the pending user and its token are gone, and `UserInvitationRevoked` is recorded.
 * Acting on a pending user holds the hand-out rule as re-sending does: nobody revokes the invitation of a
 * role holding permissions they lack. Only a user still pending at the version read is removed, so a revoke
 * that races an acceptance loses with a 409 instead of deleting the user who just joined.
 */
export class RevokeInvitationUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly audit: AuditRecorder;

  constructor(deps: { auditRecorder: AuditRecorder; unitOfWork: UnitOfWork; clock: Clock; idGenerator: IdGenerator }) {
    this.audit = deps.auditRecorder;
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  execute(input: { actor: Actor; userId: string }): Promise<void> {
    return this.audit.guard(input.actor, AuditActions.invitationRevoked, { type: 'user', id: input.userId, snapshot: null }, () => this.revoke(input));
  }

  private async revoke({ actor, userId }: { actor: Actor; userId: string }): Promise<void> {
    requirePermission(actor, Permissions.usersInvite);
    await this.unitOfWork.run(async ({ users, roles, outbox, audit }) => {
      // A locking read: a resend, a revoke or a change sent at once take turns, each on what the one before left
      // (docs/DECISIONS.md, "Changes without If-Match take turns"), instead of the later one failing its version check.
      const user = await users.findForChange(userId);
      if (!user) throw new UserNotFoundError();
      const role = await roles.findById(user.roleId);
      assertMayHandOut(actor, role ?? { permissions: [] });
      user.revokeInvitation({ by: actor.userId, now: this.clock.now(), newId: () => this.ids.next() });
      await users.delete(user);
      await outbox.append(user.pullDomainEvents());
      await this.audit.write(audit, { action: AuditActions.invitationRevoked, actor: await this.audit.actorOf(actor, users), target: userTarget(user) });
    });
  }
}
