import { type MigrationInterface, type QueryRunner, Table, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/** Sign-out (a token version per user) and per-account lockout counters. */
export class SecurityHardening1764100000000 implements MigrationInterface {
  name = 'SecurityHardening1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    await queryRunner.addColumn('users', new TableColumn(c.integer('token_version', 0)));

    // Keyed by the lower-cased username (as users.username_key), one row per account that ever
    // had a password evaluated; every change is one conditional UPDATE, so replicas never lose a count.
    await queryRunner.createTable(
      new Table({
        name: 'login_attempts',
        columns: [
          { ...c.key('username_key', 64), isPrimary: true },
          c.integer('failures', 0),
          c.datetime('locked_until', true),
          c.integer('lockouts', 0),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('login_attempts');
    await queryRunner.dropColumn('users', 'token_version');
  }
}
