import { type DataSource, In, IsNull, LessThan, LessThanOrEqual } from 'typeorm';
import type { RefreshToken, RefreshTokenStore } from '../../../application/ports/refresh-token-store.port';
import { retryDeadlocks } from './deadlock-retry';
import { type RefreshTokenRecord, RefreshTokenSchema } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { within } from '../../system/within';
import { isMysqlFamily } from './data-source';
import { PeriodicPurge } from './periodic-purge';

/**
 * How long an exchange whose commit went unanswered reads back its outcome while the database does not answer: within
 * the 5 s in which a request answers 503 while the database is away.
 */
const ROTATION_READ_BACK_MS = 4_000;
const ROTATION_READ_BACK_EVERY_MS = 250;

/** Tokens deleted per statement by the purge: a short delete holds its row locks only briefly. */
const PURGE_BATCH = 500;

export interface TypeOrmRefreshTokenStoreDeps {
  dataSource: DataSource;
  sqliteWriteQueue: SqliteWriteQueue;
  /** The purge runs after a sign-in, outside its path: its failure is only reported. */
  onPurgeFailed?: (error: unknown) => void;
  /** How often this process deletes ended families (every replica purges). */
  purgeEveryMs?: number;
}

/**
 * Refresh tokens in the database, shared by every replica. An exchange is one transaction: a conditional
 * `UPDATE … SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL` and, only when it
 * changed the row, the successor's insert. A second exchange of the same token waits on the first one's
 * row lock (MySQL/MariaDB) or its turn (SQLite), then matches nothing: exactly one wins.
 */
export class TypeOrmRefreshTokenStore implements RefreshTokenStore {
  private readonly dataSource: DataSource;
  private readonly queue: SqliteWriteQueue;
  /** The purge of ended families, after a sign-in or a refresh every `purgeEveryMs` (a minute) of the process's own clock. */
  private readonly purge: PeriodicPurge;

  constructor(deps: TypeOrmRefreshTokenStoreDeps) {
    this.dataSource = deps.dataSource;
    this.queue = deps.sqliteWriteQueue;
    this.purge = new PeriodicPurge(deps.purgeEveryMs ?? 60_000, deps.onPurgeFailed);
  }

  async add(token: RefreshToken): Promise<void> {
    await this.queue.serialize(() => this.repository().insert(toRecord(token)));
    this.purgeIfDue(token.createdAt);
  }

  async findByHash(tokenHash: string): Promise<RefreshToken | null> {
    const row = await this.queue.serialize(() => this.repository().findOneBy({ tokenHash }));
    return row ? toToken(row) : null;
  }

  async findNewestOfFamily(familyId: string): Promise<RefreshToken | null> {
    const row = await this.queue.serialize(() => this.repository().findOne({ where: { familyId }, order: { createdAt: 'DESC', id: 'DESC' } }));
    return row ? toToken(row) : null;
  }

  async rotate(usedId: string, now: Date, successor: RefreshToken, options: { forgetUsedBefore?: Date } = {}): Promise<boolean> {
    /** Set once the transaction's statements are done: a fault after it may have come with the commit's answer. */
    let committing = false;
    try {
      const rotated = await this.withDeadlockRetry(() => {
        committing = false;
        return this.dataSource.transaction(async (manager) => {
          const tokens = manager.getRepository(RefreshTokenSchema);
          const { affected } = await tokens.update({ id: usedId, usedAt: IsNull(), revokedAt: IsNull() }, { usedAt: now });
          if (affected !== 1) return false;
          await tokens.insert(toRecord(successor));
          // The family's used tokens that name it, past the grace: a reuse of one is caught by its family from now on.
          // By the family's index: a few rows, as each exchange leaves at most those of the last minutes.
          const { forgetUsedBefore } = options;
          if (forgetUsedBefore) await tokens.delete({ familyId: successor.familyId, familyInToken: 1, usedAt: LessThan(forgetUsedBefore) });
          committing = true;
          return true;
        });
      });
      if (rotated) this.purgeIfDue(now);
      return rotated;
    } catch (fault) {
      // The connection went while the commit was asked for: the rotation may be durable though this call never heard
      // so. Answered as a fault, the client's retry would present a token used by then, taken for a theft: the family
      // revoked, the person signed out. Whether the successor was stored is read back instead.
      if (committing && (await this.stored(successor.id))) return true;
      throw fault;
    }
  }

  async revokeFamily(familyId: string, now: Date): Promise<number> {
    const { affected } = await this.withDeadlockRetry(() => this.repository().update({ familyId, revokedAt: IsNull() }, { revokedAt: now }));
    return affected ?? 0;
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    return this.queue.serialize(async () => {
      // Read first, then deleted by primary key: the delete locks those rows only, not a range of the index.
      const rows = await this.repository().find({ select: { id: true }, where: { expiresAt: LessThanOrEqual(now) }, take: limit });
      if (rows.length === 0) return 0;
      const { affected } = await this.repository().delete({ id: In(rows.map((row) => row.id)) });
      return affected ?? rows.length;
    });
  }

  /**
   * Ended families go a batch at a time, after the sign-in or the refresh that found the purge due (judged by its
   * `now`): a replica that only refreshes purges too (soak review of 2026-12-07: it never did).
   */
  private purgeIfDue(now: Date): void {
    this.purge.runIfDue(Date.now(), async () => {
      while ((await this.deleteExpired(now, PURGE_BATCH)) === PURGE_BATCH);
    });
  }

  /**
   * Whether the token `id` is stored, read back for at most ROTATION_READ_BACK_MS while the database does not answer;
   * false when it never did. On MySQL/MariaDB the read locks the row: a commit still under way on the server (its
   * connection gone, the server not yet told) is waited for, never read as absent.
   */
  private async stored(id: string): Promise<boolean> {
    const deadline = Date.now() + ROTATION_READ_BACK_MS;
    for (;;) {
      const left = deadline - Date.now();
      try {
        const read = isMysqlFamily(this.dataSource)
          ? this.dataSource.transaction(async (manager) => (await manager.query('SELECT id FROM refresh_tokens WHERE id = ? LOCK IN SHARE MODE', [id])).length > 0)
          : this.queue.serialize(() => this.repository().existsBy({ id }));
        return await within(read, Math.max(left, 1), 'the rotation read back');
      } catch {
        if (deadline - Date.now() <= ROTATION_READ_BACK_EVERY_MS) return false;
        await new Promise((resolve) => setTimeout(resolve, ROTATION_READ_BACK_EVERY_MS));
      }
    }
  }

  private repository() {
    return this.dataSource.getRepository(RefreshTokenSchema);
  }

  /**
   * A revocation of a family racing an exchange in it can deadlock on InnoDB (the revocation locks the
   * family's index range, the exchange inserts into it): the victim was rolled back whole and runs again.
   */
  private withDeadlockRetry<T>(work: () => Promise<T>): Promise<T> {
    return retryDeadlocks(() => this.queue.serialize(work));
  }
}

function toToken(row: RefreshTokenRecord): RefreshToken {
  return {
    id: row.id,
    familyId: row.familyId,
    userId: row.userId,
    tokenHash: row.tokenHash,
    tokenVersion: Number(row.tokenVersion),
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    idleExpiresAt: row.idleExpiresAt,
    usedAt: row.usedAt ?? null,
    revokedAt: row.revokedAt ?? null,
    familyInToken: Number(row.familyInToken) === 1,
  };
}

function toRecord(token: RefreshToken): RefreshTokenRecord {
  return { ...token, familyInToken: token.familyInToken ? 1 : 0 };
}
