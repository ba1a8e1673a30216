import type { MigrationInterface, QueryRunner } from 'typeorm';
import { retryDeadlocks } from '../typeorm/deadlock-retry';
import { columnsFor } from './dialect';

/** Rows deleted per statement on MySQL and MariaDB: each statement commits on its own and locks its rows for milliseconds. */
export const KEYED_LOGIN_ATTEMPTS_BATCH = 2_000;

/**
 * `login_attempts` rows are keyed by an HMAC of the name from now on (LoginAttemptKeys), never the name typed: the
 * rows keyed by names (a password typed as a username among them) go. What goes with them: every lockout counter
 * and lock under way starts over, and the record of the sign-in tickets used up (a ticket lives five minutes; its code,
 * recovery code or passkey assertion is used up on its own, but a completed one can complete once more with a later
 * code: README, "Upgrading with a rolling update"). Replicas of the
 * previous version keep writing name-keyed rows until they stop (and again through a rollback): unread, they go at
 * this version's next purge of idle counters (run after a sign-in every ten minutes: TypeOrmLoginAttempts.stampUnclaimed).
 *
 * On MySQL and MariaDB the rows go a batch at a time, each batch its own statement committed on its own (no wrapping
 * transaction: `transaction = false`), as the purge deletes idle counters: the batch's keys read without locks, in key
 * order past the last batch's, then the range of keys they span deleted. One `DELETE FROM login_attempts` in the
 * migration's transaction locked every row and gap until the commit (3.8 s at 3 million rows on MariaDB in the upgrade
 * review), and the previous version's replicas, still serving in a rolling update, waited that long on their sign-ins'
 * writes; now a write waits for one batch's statement at most (docs/DECISIONS.md has the measurements). A table swapped
 * for an empty copy (RENAME TABLE) would need the table's metadata lock, which waits for every open transaction on it
 * while every new statement queues behind it, and a stop between its steps would leave two tables for the next run to
 * sort out; the batches need no DDL and are the same on both servers. Rows an old replica writes behind the batches
 * stay, as above; a stop part-way leaves the rest to the next run. SQLite has one process and no replicas: one
 * statement.
 */
export class KeyedLoginAttempts1766300000000 implements MigrationInterface {
  name = 'KeyedLoginAttempts1766300000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await deleteEveryRow(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The keyed rows mean nothing to the previous version: its counters start over as well. (TypeORM's revert runs
    // `down` in one transaction whatever `transaction` says; this service has no revert command.)
    await deleteEveryRow(queryRunner);
  }
}

async function deleteEveryRow(queryRunner: QueryRunner): Promise<void> {
  if (!columnsFor(queryRunner).mysqlFamily) {
    await queryRunner.query('DELETE FROM login_attempts');
    return;
  }
  let after: string | null = null;
  for (;;) {
    // The next batch's keys, past the last batch's (from the first key the first time), read without locks.
    const [past, pastParameters] = after === null ? ['TRUE', []] : ['username_key > ?', [after]];
    const rows = (await queryRunner.query(`SELECT username_key FROM login_attempts WHERE ${past} ORDER BY username_key LIMIT ?`, [
      ...pastParameters,
      KEYED_LOGIN_ATTEMPTS_BATCH,
    ])) as { username_key: string }[];
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!.username_key;
    // A statement ended as a deadlock's victim is rolled back whole (it is its own transaction): it runs again.
    await retryDeadlocks(() => queryRunner.query(`DELETE FROM login_attempts WHERE ${past} AND username_key <= ?`, [...pastParameters, last]));
    if (rows.length < KEYED_LOGIN_ATTEMPTS_BATCH) return;
    after = last;
  }
}
