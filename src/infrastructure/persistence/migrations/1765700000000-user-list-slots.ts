import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';
import { LIST_COUNTS_TABLE, LIST_REVISION_TABLE, LIST_SLOTS, rebuildUserListBuckets, type RunQuery } from '../typeorm/user-list-buckets';
import { columnsFor } from './dialect';

/**
 * The page index's counts and revision split into slots (issue #26, user-list-buckets.ts): a transaction that adds,
 * erases or deletes a user writes one slot's rows, so concurrent writers no longer queue on one revision row and
 * one count row. The per-bucket counts move to `user_list_slot_counts` (the slot in the key) and are rebuilt from
 * the users table; `user_list_revision` gains rows 2..LIST_SLOTS.
 *
 * Run while no process of the previous version writes users (it took the one revision row and wrote the table
 * this drops); a rolling upgrade that overlaps writers of both versions must run `rebuildUserListBuckets` once
 * the old ones are gone (docs/SCALING.md).
 */
export class UserListSlots1765700000000 implements MigrationInterface {
  name = 'UserListSlots1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    const big = (name: string) => ({ name, type: 'bigint', default: 0 });
    const slots = Array.from({ length: LIST_SLOTS - 1 }, (_, i) => i + 2);
    await queryRunner.query(`INSERT INTO ${LIST_REVISION_TABLE} (id, revision, rebuilt) VALUES ${slots.map(() => '(?, 0, 0)').join(', ')}`, slots);
    await queryRunner.createTable(
      new Table({
        name: LIST_COUNTS_TABLE,
        columns: [
          { ...c.ascii('start_id', 36), isPrimary: true },
          { ...c.ascii('role_id', 36), isPrimary: true },
          { ...c.ascii('status', 16), isPrimary: true },
          { name: 'slot', type: 'int', isPrimary: true },
          big('n'),
          big('revision'),
        ],
        indices: [{ name: 'ix_user_list_slot_counts_slot_revision', columnNames: ['slot', 'revision'] }],
      }),
    );
    await queryRunner.dropTable('user_list_bucket_counts');
    const query: RunQuery = async (sql, parameters) => {
      const rows: unknown = await queryRunner.query(sql, parameters);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    };
    await rebuildUserListBuckets(query);
  }

  /** Back to one revision row and one count per (bucket, role, status): the slots summed, read whole by every process. */
  async down(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    const big = (name: string) => ({ name, type: 'bigint', default: 0 });
    await queryRunner.createTable(
      new Table({
        name: 'user_list_bucket_counts',
        columns: [
          { ...c.ascii('start_id', 36), isPrimary: true },
          { ...c.ascii('role_id', 36), isPrimary: true },
          { ...c.ascii('status', 16), isPrimary: true },
          big('n'),
          big('revision'),
        ],
        indices: [{ name: 'ix_user_list_bucket_counts_revision', columnNames: ['revision'] }],
      }),
    );
    const [state] = (await queryRunner.query(`SELECT SUM(revision) AS revision FROM ${LIST_REVISION_TABLE}`)) as Record<string, unknown>[];
    const revision = Number(state?.revision ?? 0) + 1;
    await queryRunner.query(
      `INSERT INTO user_list_bucket_counts (start_id, role_id, status, n, revision) SELECT start_id, role_id, status, SUM(n), ? FROM ${LIST_COUNTS_TABLE} GROUP BY start_id, role_id, status`,
      [revision],
    );
    await queryRunner.query(`DELETE FROM ${LIST_REVISION_TABLE} WHERE id <> 1`);
    await queryRunner.query(`UPDATE ${LIST_REVISION_TABLE} SET revision = ?, rebuilt = ? WHERE id = 1`, [revision, revision]);
    await queryRunner.dropTable(LIST_COUNTS_TABLE);
  }
}
