import { singleUseTokenStatus, type SingleUseTokenStatus } from '../../domain/shared/single-use-token';
import type { Clock } from '../ports/clock.port';
import type { InvitationRepository } from '../ports/invitation-repository.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UserRepository } from '../ports/user-repository.port';

export type InvitationView =
  | { status: 'unknown' }
  | { status: SingleUseTokenStatus; email: string; name?: string; expiresAt: Date };

/** What the page behind an invitation link shows. Reading consumes nothing (mail scanners open links). */
export class InspectInvitationUseCase {
  private readonly invitations: InvitationRepository;
  private readonly users: UserRepository;
  private readonly tokens: SecretTokens;
  private readonly clock: Clock;

  constructor(deps: {
    invitationRepository: InvitationRepository;
    userRepository: UserRepository;
    secretTokens: SecretTokens;
    clock: Clock;
  }) {
    this.invitations = deps.invitationRepository;
    this.users = deps.userRepository;
    this.tokens = deps.secretTokens;
    this.clock = deps.clock;
  }

  async execute(token: string): Promise<InvitationView> {
    if (token.length === 0 || token.length > 200) return { status: 'unknown' };
    const invitation = await this.invitations.findByTokenHash(this.tokens.hash(token));
    const user = invitation ? await this.users.findById(invitation.userId) : null;
    if (!invitation || !user || user.status === 'deactivated') return { status: 'unknown' };
    return {
      status: singleUseTokenStatus(invitation, this.clock.now()),
      email: user.email,
      ...(user.name !== undefined ? { name: user.name } : {}),
      expiresAt: invitation.expiresAt,
    };
  }
}
