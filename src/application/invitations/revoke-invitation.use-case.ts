import { Permissions } from '../../domain/permissions/permission';
import { UserNotFoundError } from '../../domain/users/user.errors';
import { type Actor, requirePermission } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

/** Withdraws an invitation: the pending user and its token are gone, and `UserInvitationRevoked` is recorded. */
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
    await this.unitOfWork.run(async ({ users, invitations, outbox }) => {
      const user = await users.findById(userId);
      if (!user) throw new UserNotFoundError();
      user.revokeInvitation({ by: actor.userId, now: this.clock.now(), newId: () => this.ids.next() });
      await invitations.deleteForUser(user.id);
      await users.delete(user.id);
      await outbox.append(user.pullDomainEvents());
    });
  }
}
