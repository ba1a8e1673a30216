import { type DataSourceOptions, type EntityManager, IsNull, type Repository } from 'typeorm';
import type { InvitationRepository } from '../../../application/ports/invitation-repository.port';
import type { Invitation } from '../../../domain/invitations/invitation';
import type { PlainInsertStatements } from './plain-insert-statements';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { type InvitationRecord, InvitationSchema } from './records';

const REPLACED = ['token_hash', 'created_at', 'expires_at', 'used_at'];
const assign = (value: (column: string) => string) => REPLACED.map((column) => `${column} = ${value(column)}`).join(', ');

/**
 * MySQL deprecates VALUES() in ON DUPLICATE KEY UPDATE since 8.0.20 (a warning on every statement,
 * and removal announced) for a row alias (8.0.19+), which MariaDB does not parse: so the two differ here.
 */
const ON_DUPLICATE_MYSQL = ` AS new ON DUPLICATE KEY UPDATE ${assign((column) => `new.${column}`)}`;
const ON_DUPLICATE_MARIADB = ` ON DUPLICATE KEY UPDATE ${assign((column) => `VALUES(${column})`)}`;
const ON_CONFLICT_SQLITE = ` ON CONFLICT (user_id) DO UPDATE SET ${assign((column) => `excluded.${column}`)}`;

function replaceClause(type: DataSourceOptions['type']): string {
  if (type === 'mysql') return ON_DUPLICATE_MYSQL;
  return type === 'mariadb' ? ON_DUPLICATE_MARIADB : ON_CONFLICT_SQLITE;
}

export class TypeOrmInvitationRepository implements InvitationRepository {
  private readonly manager: EntityManager;
  private readonly repository: Repository<InvitationRecord>;
  private readonly inserts: PlainInsertStatements;
  private readonly queue: SqliteWriteQueue;

  constructor(deps: { manager: EntityManager; plainInsertStatements: PlainInsertStatements; sqliteWriteQueue: SqliteWriteQueue }) {
    this.manager = deps.manager;
    this.repository = deps.manager.getRepository(InvitationSchema);
    this.inserts = deps.plainInsertStatements;
    this.queue = deps.sqliteWriteQueue;
  }

  async replaceForUser(invitation: Invitation): Promise<void> {
    // One statement: the user's row (there is at most one, keyed by user) is inserted or overwritten,
    // so the old token hash is gone the moment the new one is written.
    const replace = replaceClause(this.manager.connection.options.type);
    const insert = () => this.inserts.insert(
      this.manager,
      InvitationSchema,
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
    await this.queue.outside(this.manager, insert);
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | null> {
    const record = await this.queue.outside(this.manager, () => this.repository.findOneBy({ tokenHash }));
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
    const result = await this.queue.outside(this.manager, () => this.repository.update({ userId, usedAt: IsNull() }, { usedAt: at }));
    return (result.affected ?? 0) > 0;
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.queue.outside(this.manager, () => this.repository.delete({ userId }));
  }
}
