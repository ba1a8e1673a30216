import type { RefreshToken, RefreshTokenStore } from '../../../src/application/ports/refresh-token-store.port';
import { ioBoundary } from './io-boundary';

/**
 * Refresh tokens in memory, with the adapter's semantics: each call reads and writes in one synchronous
 * step after the I/O boundary, as one conditional UPDATE (and its transaction) is atomic in the database.
 * A duplicate hash is refused, as the unique index refuses it.
 */
export class InMemoryRefreshTokenStore implements RefreshTokenStore {
  private readonly rows = new Map<string, RefreshToken>();

  async add(token: RefreshToken): Promise<void> {
    await ioBoundary();
    this.insert(token);
  }

  async findByHash(tokenHash: string): Promise<RefreshToken | null> {
    await ioBoundary();
    const row = [...this.rows.values()].find((r) => r.tokenHash === tokenHash);
    return row ? copy(row) : null;
  }

  async findNewestOfFamily(familyId: string): Promise<RefreshToken | null> {
    await ioBoundary();
    const family = [...this.rows.values()].filter((row) => row.familyId === familyId);
    const newest = family.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))[0];
    return newest ? copy(newest) : null;
  }

  async rotate(usedId: string, now: Date, successor: RefreshToken, options: { forgetUsedBefore?: Date } = {}): Promise<boolean> {
    await ioBoundary();
    const used = this.rows.get(usedId);
    if (!used || used.usedAt !== null || used.revokedAt !== null) return false;
    this.insert(successor);
    used.usedAt = new Date(now);
    const { forgetUsedBefore } = options;
    if (forgetUsedBefore) {
      for (const row of [...this.rows.values()]) {
        if (row.familyId === successor.familyId && row.familyInToken && row.usedAt !== null && row.usedAt < forgetUsedBefore) this.rows.delete(row.id);
      }
    }
    return true;
  }

  async revokeFamily(familyId: string, now: Date): Promise<number> {
    await ioBoundary();
    let revoked = 0;
    for (const row of this.rows.values()) {
      if (row.familyId === familyId && row.revokedAt === null) {
        row.revokedAt = new Date(now);
        revoked++;
      }
    }
    return revoked;
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    await ioBoundary();
    const ended = [...this.rows.values()].filter((row) => row.expiresAt <= now).slice(0, limit);
    for (const row of ended) this.rows.delete(row.id);
    return ended.length;
  }

  /** Every token stored, for assertions (synchronous: not part of the port). */
  all(): RefreshToken[] {
    return [...this.rows.values()].map(copy);
  }

  private insert(token: RefreshToken): void {
    if (this.rows.has(token.id) || [...this.rows.values()].some((r) => r.tokenHash === token.tokenHash)) {
      throw new Error(`duplicate refresh token ${token.id}`);
    }
    this.rows.set(token.id, copy(token));
  }
}

function copy(token: RefreshToken): RefreshToken {
  return {
    ...token,
    createdAt: new Date(token.createdAt),
    expiresAt: new Date(token.expiresAt),
    idleExpiresAt: new Date(token.idleExpiresAt),
    usedAt: token.usedAt && new Date(token.usedAt),
    revokedAt: token.revokedAt && new Date(token.revokedAt),
  };
}
