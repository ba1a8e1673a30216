import type { QueryRunner } from 'typeorm';
import { nameSearchKey } from '../../../domain/users/display-name';
import { Email } from '../../../domain/users/email';
import { Username } from '../../../domain/users/username';

const BATCH = 500;

/** The unique keys, each recomputed from the value it keys as the application now computes it. */
const UNIQUE_KEYS = [
  { key: 'email_key', value: 'email', keyOf: (value: string) => Email.normalize(value), what: 'e-mail' },
  { key: 'username_key', value: 'username', keyOf: (value: string) => Username.normalize(value), what: 'username' },
] as const;

type UserRow = Record<'id' | 'email' | 'email_key' | 'username' | 'username_key' | 'name' | 'name_key', string | null>;

/** A key that differs once recomputed. */
interface Move {
  id: string;
  to: string;
}

/**
 * Recomputes every stored e-mail, username and name key as the application now computes it, a batch at a time (no
 * SQL function maps Unicode alike on the three databases). Two users whose keys become one are a person with two
 * accounts, or two people: nothing can tell which here, so nothing is merged or deleted. Their rows keep their keys
 * as they were, the service starts, and a warning names the users (DECISIONS.md, "Look-alike e-mails and
 * usernames", says how an operator resolves it). `how` says in the warning what made the keys one.
 */
export async function recomputeIdentifierKeys(queryRunner: QueryRunner, how: string): Promise<void> {
  const moves = new Map<string, Move[]>(UNIQUE_KEYS.map(({ key }) => [key, []]));
  let after = '';
  for (;;) {
    const rows = (await queryRunner.query(
      'SELECT id, email, email_key, username, username_key, name, name_key FROM users WHERE id > ? ORDER BY id LIMIT ?',
      [after, BATCH],
    )) as UserRow[];
    if (rows.length === 0) break;
    for (const row of rows) {
      for (const { key, value, keyOf } of UNIQUE_KEYS) {
        const from = row[key];
        const source = row[value];
        if (from === null || source === null) continue;
        const to = keyOf(source);
        if (to !== from) moves.get(key)!.push({ id: row.id!, to });
      }
      if (row.name !== null) {
        const nameKey = nameSearchKey(row.name);
        if (nameKey !== row.name_key) await queryRunner.query('UPDATE users SET name_key = ? WHERE id = ?', [nameKey, row.id]);
      }
    }
    after = rows[rows.length - 1]!.id!;
  }

  for (const { key, what } of UNIQUE_KEYS) {
    const pending = moves.get(key)!;
    if (pending.length === 0) continue;
    const holding = await holdersOf(queryRunner, key, [...new Set(pending.map((m) => m.to))]);
    const byKey = new Map<string, Move[]>();
    for (const move of pending) byKey.set(move.to, [...(byKey.get(move.to) ?? []), move]);
    for (const [to, movers] of byKey) {
      const holder = holding.get(to);
      if (movers.length === 1 && holder === undefined) {
        await queryRunner.query(`UPDATE users SET ${key} = ? WHERE id = ?`, [to, movers[0]!.id]);
      } else {
        reportCollision(what, how, holder, movers.map((m) => m.id));
      }
    }
  }
}

/** Which user holds each of these keys already, by key. */
async function holdersOf(queryRunner: QueryRunner, key: string, values: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < values.length; i += BATCH) {
    const slice = values.slice(i, i + BATCH);
    const rows = (await queryRunner.query(`SELECT id, ${key} AS k FROM users WHERE ${key} IN (${slice.map(() => '?').join(', ')})`, slice)) as {
      id: string;
      k: string;
    }[];
    for (const row of rows) found.set(row.k, row.id);
  }
  return found;
}

/**
 * One warning per collision, on the process's warning channel: the API and the CLI log it (with its code) as
 * their other warnings; elsewhere Node prints it on stderr. User ids only: a log line carries no address.
 */
function reportCollision(what: string, how: string, holder: string | undefined, movers: string[]): void {
  const users = [...(holder === undefined ? [] : [`${holder} (holds the key)`]), ...movers.map((id) => `${id} (key left as it was)`)];
  process.emitWarning(
    `users ${users.join(', ')} have one ${what} once ${how}; nothing was merged or deleted: ` +
      'an operator decides which account stays (docs/DECISIONS.md, "Look-alike e-mails and usernames")',
    { type: 'IdentifierCollisionWarning', code: 'IDENTIFIER_COLLISION' },
  );
}
