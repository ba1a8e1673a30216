import type { MigrationInterface, QueryRunner } from 'typeorm';
import { retryDeadlocks } from '../typeorm/deadlock-retry';
import { columnsFor } from './dialect';
import { SEEDED_ROLES } from './1763700000000-initial-schema';

/** Rows moved per statement on MySQL and MariaDB: each statement commits on its own and locks its rows for milliseconds. */
export const ERASED_ROWS_BATCH = 2_000;

/**
 * An erased user's row keeps the built-in `member` role from now on, whatever role it held (TypeOrmUserRepository.erase):
 * the foreign key wants a role, nothing reads an erased row's, and a custom role's deletion no longer has to move its
 * erased holders in its own statement. That statement moved every one at once: 8.5 s for 300 000 rows on MariaDB,
 * and past the statement timeout from about 600 000, so such a role could never be deleted, and each try held its
 * locks meanwhile (review of 2026-12-07, admin work at scale). This moves the rows erased before, by id a batch at a
 * time, each committed on its own (`transaction = false`, as KeyedLoginAttempts1766300000000 deletes), so a previous
 * version's replicas still serving never wait for the whole of it; rows they erase meanwhile are moved by the role's
 * deletion, as before. SQLite has one process: one statement. Nothing to undo: the previous version reads no erased
 * row's role either.
 */
export class ErasedRowsKeepMember1767100000000 implements MigrationInterface {
  name = 'ErasedRowsKeepMember1767100000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const member = SEEDED_ROLES.member;
    if (!columnsFor(queryRunner).mysqlFamily) {
      await queryRunner.query("UPDATE users SET role_id = ? WHERE status = 'deleted' AND role_id <> ?", [member, member]);
      return;
    }
    let after = '';
    for (;;) {
      // The next batch's ids among the erased rows (index (status, id)), past the last batch's, read without locks.
      const rows = (await queryRunner.query("SELECT id FROM users WHERE status = 'deleted' AND id > ? ORDER BY id LIMIT ?", [after, ERASED_ROWS_BATCH])) as { id: string }[];
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!.id;
      await retryDeadlocks(() =>
        queryRunner.query("UPDATE users SET role_id = ? WHERE status = 'deleted' AND id > ? AND id <= ? AND role_id <> ?", [member, after, last, member]),
      );
      if (rows.length < ERASED_ROWS_BATCH) return;
      after = last;
    }
  }

  async down(): Promise<void> {}
}
