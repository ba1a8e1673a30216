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

  constructor(deps: { unitOfWork: UnitOfWork; clock: Clock; idGenerator: IdGenerator }) {
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  async execute({ actor, userId }: { actor: Actor; userId: string }): Promise<void> {
    requirePermission(actor, Permissions.usersInvite);
    await this.unitOfWork.run(async ({ users, roles, outbox }) => {
      const user = await users.findById(userId);
      if (!user) throw new UserNotFoundError();
      const role = await roles.findById(user.roleId);
      assertMayHandOut(actor, role ?? { permissions: [] });
      user.revokeInvitation({ by: actor.userId, now: this.clock.now(), newId: () => this.ids.next() });
      await users.delete(user);
      await outbox.append(user.pullDomainEvents());
    });
  }
}
