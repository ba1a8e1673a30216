import { type EntityManager, IsNull, type Repository } from 'typeorm';
import type { InvitationRepository } from '../../../application/ports/invitation-repository.port';
import type { Invitation } from '../../../domain/invitations/invitation';
import { type InvitationRecord, InvitationSchema } from './records';

export class TypeOrmInvitationRepository implements InvitationRepository {
  private readonly repository: Repository<InvitationRecord>;

  constructor(manager: EntityManager) {
    this.repository = manager.getRepository(InvitationSchema);
  }

  async replaceForUser(invitation: Invitation): Promise<void> {
    // Delete then insert (not an upsert): portable, and the old token hash is gone in the same transaction.
    await this.repository.delete({ userId: invitation.userId });
    await this.repository.insert({
      userId: invitation.userId,
      tokenHash: invitation.tokenHash,
      createdAt: invitation.createdAt,
      expiresAt: invitation.expiresAt,
      usedAt: invitation.usedAt ?? null,
    });
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | null> {
    const record = await this.repository.findOneBy({ tokenHash });
    if (!record) return null;
    return {
      userId: record.userId,
      tokenHash: record.tokenHash,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      ...(record.usedAt ? { usedAt: record.usedAt } : {}),
    };
  }

  async markUsed(userId: string, at: Date): Promise<boolean> {
    // Conditional, so two acceptances racing on one token cannot both succeed: the second waits
    // for the first's row lock, then finds the row used and changes nothing.
    const result = await this.repository.update({ userId, usedAt: IsNull() }, { usedAt: at });
    return (result.affected ?? 0) > 0;
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.repository.delete({ userId });
  }
}
