import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * What this database has been bootstrapped with (issue #22): a row per bootstrap, written once. A
 * database that has users already had its admin bootstrapped (every earlier start created it first):
 * the row is written for it here, so upgrading never lets an erased admin come back.
 */
export class BootstrapRecord1764900000000 implements MigrationInterface {
  name = 'BootstrapRecord1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'bootstrap_records',
        columns: [{ ...c.ascii('name', 32), isPrimary: true }, c.datetime('recorded_at')],
      }),
    );
    await queryRunner.query(
      "INSERT INTO bootstrap_records (name, recorded_at) SELECT 'admin', MIN(invited_at) FROM users HAVING COUNT(*) > 0",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('bootstrap_records');
  }
}
