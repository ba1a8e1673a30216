import type { RefreshToken } from '../../../src/application/ports/refresh-token-store.port';
import { TypeOrmRefreshTokenStore } from '../../../src/infrastructure/persistence/typeorm/typeorm-refresh-token.store';
import { eventually } from '../messaging/kafka-test-kit';
import { joinedUser, newId, tokenHash } from '../../contract/contract-kit';
import { ALL_TARGETS, migratedDatabase } from './database-targets';

const DAY = 86_400_000;

/**
 * The purge of ended refresh-token families runs after refreshes too (soak review of 2026-12-07): it ran after sign-ins
 * only, so a replica that served nothing but refreshes kept every ended family for good.
 */
describe.each(ALL_TARGETS)('the refresh tokens’ purge on $name', (target) => {
  const db = migratedDatabase(target);

  it('deletes the ended families after a refresh once its interval has passed, a sign-in or not', async () => {
    const user = joinedUser();
    await db.adapters.users().add(user);
    const now = new Date();
    const token = (createdAt: Date, expiresAt: Date, familyId = newId()): RefreshToken => ({
      id: newId(), familyId, userId: user.id, tokenHash: tokenHash(), tokenVersion: 0, createdAt, expiresAt, idleExpiresAt: expiresAt, usedAt: null, revokedAt: null, familyInToken: true,
    });
    const ended = [token(new Date(now.getTime() - 40 * DAY), new Date(now.getTime() - 10 * DAY)), token(new Date(now.getTime() - 31 * DAY), new Date(now.getTime() - DAY))];
    const live = token(now, new Date(now.getTime() + 30 * DAY));
    // Written by another replica (the one that signs in): this one's store has seen no sign-in.
    const elsewhere = new TypeOrmRefreshTokenStore({ dataSource: db.dataSource, sqliteWriteQueue: db.adapters.services.sqliteWriteQueue, purgeEveryMs: Number.POSITIVE_INFINITY });
    for (const row of [...ended, live]) await elsewhere.add(row);
    const present = async () =>
      ((await db.dataSource.query(`SELECT id FROM refresh_tokens WHERE id IN (${ended.map(() => '?').join(', ')})`, ended.map((t) => t.id))) as unknown[]).length;

    const refreshing = new TypeOrmRefreshTokenStore({ dataSource: db.dataSource, sqliteWriteQueue: db.adapters.services.sqliteWriteQueue, purgeEveryMs: 0 });
    // The first refresh starts its clock; the next one, its interval (0) passed, purges.
    let current = live;
    for (let i = 0; i < 2; i++) {
      const successor = token(new Date(now.getTime() + i + 1), live.expiresAt, live.familyId);
      expect(await refreshing.rotate(current.id, successor.createdAt, successor)).toBe(true);
      current = successor;
    }
    expect(await eventually(present, (n) => n === 0, 5_000)).toBe(0);
    expect(await refreshing.findByHash(current.tokenHash)).not.toBeNull();
  });
});
