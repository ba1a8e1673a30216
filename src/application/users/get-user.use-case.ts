import { Permissions } from '../../domain/permissions/permission';
import { isoTimestamp } from '../../domain/shared/iso-timestamp';
import { UserNotFoundError } from '../../domain/users/user.errors';
import { type Actor, requirePermission } from '../auth/actor';
import type { InvitationRepository } from '../ports/invitation-repository.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UserRepository } from '../ports/user-repository.port';
import { toUserDetails, type UserDetails } from './user.view';

/**
 * One user, as the list shows it plus its status, and the version a change may name; a pending user's with when
 * the invitation link expires (once the mailer has issued it), so an admin sees whether to resend (#25).
 */
export class GetUserUseCase {
  private readonly users: UserRepository;
  private readonly roles: RoleRepository;
  private readonly invitations: InvitationRepository;

  constructor(deps: { userRepository: UserRepository; roleRepository: RoleRepository; invitationRepository: InvitationRepository }) {
    this.users = deps.userRepository;
    this.roles = deps.roleRepository;
    this.invitations = deps.invitationRepository;
  }

  async execute({ actor, userId }: { actor: Actor; userId: string }): Promise<UserDetails> {
    requirePermission(actor, Permissions.usersRead);
    const user = await this.users.findById(userId);
    if (!user) throw new UserNotFoundError();
    const details = toUserDetails(user, (await this.roles.findById(user.roleId)) ?? undefined);
    if (user.status !== 'pending') return details;
    const invitation = await this.invitations.findForUser(user.id);
    if (!invitation || invitation.usedAt !== undefined) return details;
    return { ...details, user: { ...details.user, invitation_expires_date: isoTimestamp(invitation.expiresAt) } };
  }
}
