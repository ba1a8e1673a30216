import { randomBytes } from 'node:crypto';
import { rebuildUserListBuckets } from '../src/infrastructure/persistence/typeorm/user-list-buckets';
import type { Connection } from 'mysql2/promise';
import { connectTo } from '../test/support/test-database';

const MEMBER_ROLE = '01a1fc94-6d94-7441-a6a7-5c24f14ccb6a';
const ADMIN_ROLE = '01a1fc94-6d91-7759-a289-8ec3215f8e87';
const BATCH = 5000;

/** UUIDv7 ids in strictly increasing order: a millisecond clock from `base`, 4096 ids per millisecond. */
export function orderedUuidV7(base: number, i: number): string {
  const ms = base + Math.floor(i / 4096);
  const seq = i % 4096;
  const hex = ms.toString(16).padStart(12, '0') + '7' + seq.toString(16).padStart(3, '0');
  const tail = randomBytes(8);
  tail[0] = (tail[0]! & 0x3f) | 0x80;
  const t = tail.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${t.slice(0, 4)}-${t.slice(4)}`;
}

/** How many seeded users can sign in (`seedUsers`' first ones): each sign-in row draws one of them per request. */
export const SIGN_IN_USERS = 1000;

/**
 * A sign-in body for one of the SIGN_IN_USERS drawn at random on each request (every one has the bootstrap
 * admin's password): what many users signing in cost, not one account's cached rows over and over.
 */
export function signInBody(password: string, users = SIGN_IN_USERS): () => string {
  return () => JSON.stringify({ username: `bench.user${Math.floor(Math.random() * users)}`, password });
}

/**
 * Adds `count` invited users (every 50th deactivated, every 1000th an admin, for the list's filters: bench/filters.ts) with
 * multi-row INSERTs of a few thousand rows, straight through mysql2. The first SIGN_IN_USERS of them (all of them, when
 * fewer) have joined instead, as `bench.user<i>` with the password of the user already there (the bootstrap admin's
 * hash, copied: one argon2id hash, not a thousand), for `signInBody`.
 */
export async function seedUsers(databaseUrl: string, count: number, progress?: (done: number) => void): Promise<void> {
  const connection = await connectTo(databaseUrl);
  try {
    await connection.query('SET unique_checks = 0, foreign_key_checks = 0');
    const [[admin]] = (await connection.query('SELECT password_hash FROM users WHERE password_hash IS NOT NULL ORDER BY id LIMIT 1')) as unknown as [{ password_hash: string }[]];
    const base = Date.UTC(2024, 0, 1);
    const invitedAt = new Date(base);
    for (let start = 0; start < count; start += BATCH) {
      const rows: unknown[][] = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const email = `seed${i}@bench.test`;
        const role = i % 1000 === 999 ? ADMIN_ROLE : MEMBER_ROLE;
        const joined = admin !== undefined && i < SIGN_IN_USERS;
        const username = joined ? `bench.user${i}` : null;
        rows.push([
          orderedUuidV7(base, i), email, email, `Seed User ${i}`, `seed user ${i}`, role, invitedAt,
          joined ? 'active' : i % 50 === 49 ? 'deactivated' : 'pending', username, username, joined ? admin.password_hash : null, joined ? invitedAt : null,
        ]);
      }
      await connection.query('INSERT INTO users (id, email, email_key, name, name_key, role_id, invited_at, status, username, username_key, password_hash, joined_at) VALUES ?', [rows]);
      if (progress && (start / BATCH) % 40 === 39) progress(start + rows.length);
    }
    // Written around the repository: the list's page index is built again from the table, as after any bulk import.
    await rebuildListIndexOn(connection);
  } finally {
    await connection.end();
  }
}

/**
 * The list's page index built again from the table, as after any bulk import, in one transaction: the replicas
 * serving the list must see the rebuild whole or not at all (user-list-buckets.ts).
 */
export async function rebuildListIndexOn(connection: Connection): Promise<void> {
  await connection.query('START TRANSACTION');
  try {
    await rebuildUserListBuckets(async (sql, parameters) => {
      const [rows] = await connection.query(sql, parameters);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    });
    await connection.query('COMMIT');
  } catch (error) {
    await connection.query('ROLLBACK');
    throw error;
  }
}
