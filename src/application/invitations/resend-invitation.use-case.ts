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
 * Asks for a new invitation mail. Works after expiry; the old link dies with the resend, and the mailer issues the new one.
 * Re-sending hands out the role again, so the inviter must hold its permissions.
 */
export class ResendInvitationUseCase {
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
    return this.audit.guard(input.actor, AuditActions.invitationResent, { type: 'user', id: input.userId, snapshot: null }, () => this.resend(input));
  }

  private async resend({ actor, userId }: { actor: Actor; userId: string }): Promise<void> {
    requirePermission(actor, Permissions.usersInvite);
    await this.unitOfWork.run(async ({ users, roles, invitations, outbox, audit }) => {
      // A locking read: a resend, a revoke or a change sent at once take turns, each on what the one before left
      // (docs/DECISIONS.md, "Changes without If-Match take turns"), instead of the later one failing its version check.
      const user = await users.findForChange(userId);
      if (!user) throw new UserNotFoundError();
      const role = await roles.findById(user.roleId);
      assertMayHandOut(actor, role ?? { permissions: [] });
      user.resendInvitation({
        by: actor.userId,
        role: role ?? { id: user.roleId, name: '', permissions: [] },
        now: this.clock.now(),
        newId: () => this.ids.next(),
      });
      await users.update(user);
      // The old link dies now, as the 202 says, not when the mailer replaces it: an acceptance with it after the
      // answer joined the user the resend meant to invite again (review I).
      await invitations.deleteForUser(user.id);
      await outbox.append(user.pullDomainEvents());
      await this.audit.write(audit, { action: AuditActions.invitationResent, actor: await this.audit.actorOf(actor, users), target: userTarget(user) });
    });
  }
}
