import type { InvitationRepository } from '../../../application/ports/invitation-repository.port';
import type { Invitation } from '../../../domain/invitations/invitation';
import { InvitationSchema } from './records';
import { type SingleUseTokenRowsDeps, TypeOrmSingleUseTokenRows } from './single-use-token-rows';

/** `invitations`: a user's one link (a resend overwrites it); revoking deletes it. */
export class TypeOrmInvitationRepository extends TypeOrmSingleUseTokenRows implements InvitationRepository {
  constructor(deps: SingleUseTokenRowsDeps) {
    super(deps, InvitationSchema);
  }

  async findForUser(userId: string): Promise<Invitation | null> {
    const record = await this.queue.outside(this.manager, () => this.repository.findOneBy({ userId }));
    if (!record) return null;
    return { userId: record.userId, tokenHash: record.tokenHash, createdAt: record.createdAt, expiresAt: record.expiresAt, ...(record.usedAt ? { usedAt: record.usedAt } : {}) };
  }
}
