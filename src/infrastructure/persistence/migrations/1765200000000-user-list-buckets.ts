import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';
import { LIST_BUCKETS_TABLE, LIST_REVISION_TABLE } from '../typeorm/user-list-buckets';
import { columnsFor } from './dialect';

/**
 * The user list's page index (issue #26, src/infrastructure/persistence/typeorm/user-list-buckets.ts): any page
 * of the list, whole or by role and/or status, found from per-bucket counts instead of an OFFSET walk. Additive:
 * three new tables and an index of users `(role_id, id, status)`. The tables are filled by 1765700000000, which
 * replaced this one's counts table with per-slot counts (a migration runs against the schema of its day, so this
 * one no longer fills a table the next one drops).
 */
const COUNTS_TABLE = 'user_list_bucket_counts';
export class UserListBuckets1765200000000 implements MigrationInterface {
  name = 'UserListBuckets1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    const big = (name: string) => ({ name, type: 'bigint', default: 0 });
    await queryRunner.createTable(new Table({ name: LIST_REVISION_TABLE, columns: [{ name: 'id', type: 'int', isPrimary: true }, big('revision'), big('rebuilt')] }));
    await queryRunner.createTable(
      new Table({
        name: LIST_BUCKETS_TABLE,
        // '' is the first bucket's start: the ids are ASCII, compared byte by byte (ascii_bin), as the users' key.
        columns: [{ ...c.ascii('start_id', 36), isPrimary: true }, big('size'), c.ascii('last_id', 36)],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: COUNTS_TABLE,
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
    await queryRunner.query(`INSERT INTO ${LIST_REVISION_TABLE} (id, revision, rebuilt) VALUES (1, 0, 0)`);
    // A role alone is sought in id order with the status beside each entry: erased users skipped without a row read.
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_role_id_status', columnNames: ['role_id', 'id', 'status'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('users', 'ix_users_role_id_status');
    for (const table of [COUNTS_TABLE, LIST_BUCKETS_TABLE, LIST_REVISION_TABLE]) await queryRunner.dropTable(table);
  }
}
