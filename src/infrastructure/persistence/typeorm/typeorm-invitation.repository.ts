import { type EntityManager, IsNull, type Repository } from 'typeorm';
import type { InvitationRepository } from '../../../application/ports/invitation-repository.port';
import type { Invitation } from '../../../domain/invitations/invitation';
import { isMysqlFamily } from './data-source';
import { plainInsertOf } from './plain-insert';
import { type InvitationRecord, InvitationSchema } from './records';

export class TypeOrmInvitationRepository implements InvitationRepository {
  private readonly repository: Repository<InvitationRecord>;

  constructor(private readonly manager: EntityManager) {
    this.repository = manager.getRepository(InvitationSchema);
  }

  async replaceForUser(invitation: Invitation): Promise<void> {
    // One statement: the user's row (there is at most one, keyed by user) is inserted or overwritten,
    // so the old token hash is gone the moment the new one is written.
    const replace = isMysqlFamily(this.manager.connection)
      ? ' ON DUPLICATE KEY UPDATE token_hash = VALUES(token_hash), created_at = VALUES(created_at), expires_at = VALUES(expires_at), used_at = VALUES(used_at)'
      : ' ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at, expires_at = excluded.expires_at, used_at = excluded.used_at';
    await plainInsertOf(this.manager.connection, InvitationSchema)(
      this.manager,
      [
        {
          userId: invitation.userId,
          tokenHash: invitation.tokenHash,
          createdAt: invitation.createdAt,
          expiresAt: invitation.expiresAt,
          usedAt: invitation.usedAt ?? null,
        },
      ],
      replace,
    );
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
