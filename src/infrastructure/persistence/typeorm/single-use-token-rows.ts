import type { SingleUseToken } from '../../../domain/shared/single-use-token';
import { type DataSourceOptions, type EntityManager, type EntitySchema, IsNull, type Repository } from 'typeorm';
import type { PlainInsertStatements } from './plain-insert-statements';
import type { InvitationRecord } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';

/** A single-use link's row, one per user: an invitation, a password reset. Only the token's hash is kept. */
export type SingleUseTokenRow = SingleUseToken;

export interface SingleUseTokenRowsDeps {
  manager: EntityManager;
  plainInsertStatements: PlainInsertStatements;
  sqliteWriteQueue: SqliteWriteQueue;
}

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

/**
 * The statements of a table of single-use links keyed by user (`invitations`, `password_resets`): a newer
 * link overwrites the user's row in one statement, a link is used at most once.
 */
export class TypeOrmSingleUseTokenRows {
  protected readonly manager: EntityManager;
  protected readonly repository: Repository<InvitationRecord>;
  protected readonly queue: SqliteWriteQueue;
  private readonly inserts: PlainInsertStatements;

  constructor(
    deps: SingleUseTokenRowsDeps,
    private readonly schema: EntitySchema<InvitationRecord>,
  ) {
    this.manager = deps.manager;
    this.repository = deps.manager.getRepository(schema);
    this.inserts = deps.plainInsertStatements;
    this.queue = deps.sqliteWriteQueue;
  }

  async replaceForUser(row: SingleUseTokenRow): Promise<void> {
    // One statement: the user's row (there is at most one, keyed by user) is inserted or overwritten,
    // so the old token hash is gone the moment the new one is written.
    const replace = replaceClause(this.manager.connection.options.type);
    const insert = () => this.inserts.insert(
      this.manager,
      this.schema,
      [
        {
          userId: row.userId,
          tokenHash: row.tokenHash,
          createdAt: row.createdAt,
          expiresAt: row.expiresAt,
          usedAt: row.usedAt ?? null,
        },
      ],
      replace,
    );
    await this.queue.outside(this.manager, insert);
  }

  /** Deletes the user's link, if any (revoked, or killed by a change of the user's). */
  async deleteForUser(userId: string): Promise<void> {
    await this.queue.outside(this.manager, () => this.repository.delete({ userId }));
  }

  async findByTokenHash(tokenHash: string): Promise<SingleUseTokenRow | null> {
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

  async markUsed({ userId, tokenHash }: Pick<SingleUseTokenRow, 'userId' | 'tokenHash'>, at: Date): Promise<boolean> {
    // Conditional, so two acceptances racing on one token cannot both succeed: the second waits
    // for the first's row lock, then finds the row used and changes nothing. The hash is matched too:
    // a link replaced meanwhile by a newer one finds no row, and the newer link stays unused.
    const result = await this.queue.outside(this.manager, () =>
      this.repository.update({ userId, tokenHash, usedAt: IsNull() }, { usedAt: at }),
    );
    return (result.affected ?? 0) > 0;
  }
}
