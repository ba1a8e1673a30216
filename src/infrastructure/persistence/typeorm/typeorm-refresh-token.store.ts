import { type DataSource, In, IsNull, LessThanOrEqual } from 'typeorm';
import type { RefreshToken, RefreshTokenStore } from '../../../application/ports/refresh-token-store.port';
import { retryDeadlocks } from './deadlock-retry';
import { type RefreshTokenRecord, RefreshTokenSchema } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';

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
  private readonly onPurgeFailed: (error: unknown) => void;
  private readonly purgeEveryMs: number;
  /** Set by the first sign-in: a process purges one interval after it starts issuing, then every interval. */
  private nextPurgeAt: number | null = null;
  private purging = false;

  constructor(deps: TypeOrmRefreshTokenStoreDeps) {
    this.dataSource = deps.dataSource;
    this.queue = deps.sqliteWriteQueue;
    this.onPurgeFailed = deps.onPurgeFailed ?? (() => undefined);
    this.purgeEveryMs = deps.purgeEveryMs ?? 60_000;
  }

  async add(token: RefreshToken): Promise<void> {
    await this.queue.serialize(() => this.repository().insert(token));
    this.purgeIfDue(token.createdAt);
  }

  async findByHash(tokenHash: string): Promise<RefreshToken | null> {
    const row = await this.queue.serialize(() => this.repository().findOneBy({ tokenHash }));
    return row ? toToken(row) : null;
  }

  async rotate(usedId: string, now: Date, successor: RefreshToken): Promise<boolean> {
    return this.withDeadlockRetry(() =>
      this.dataSource.transaction(async (manager) => {
        const tokens = manager.getRepository(RefreshTokenSchema);
        const { affected } = await tokens.update({ id: usedId, usedAt: IsNull(), revokedAt: IsNull() }, { usedAt: now });
        if (affected !== 1) return false;
        await tokens.insert(successor);
        return true;
      }),
    );
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

  /** Ended families go a batch at a time, after the sign-in that found the purge due (judged by its `now`). */
  private purgeIfDue(now: Date): void {
    const at = Date.now();
    if (this.nextPurgeAt === null) this.nextPurgeAt = at + this.purgeEveryMs;
    if (this.purging || at < this.nextPurgeAt) return;
    this.purging = true;
    this.nextPurgeAt = at + this.purgeEveryMs;
    void (async () => {
      while ((await this.deleteExpired(now, PURGE_BATCH)) === PURGE_BATCH);
    })()
      .catch((error: unknown) => this.onPurgeFailed(error))
      .finally(() => {
        this.purging = false;
      });
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
  };
}
