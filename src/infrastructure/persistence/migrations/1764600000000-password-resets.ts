import { type MigrationInterface, type QueryRunner, Table, TableForeignKey } from 'typeorm';
import { columnsFor } from './dialect';

/** Password-reset tokens (issue #10): one live reset per user (the primary key), stored as its SHA-256. */
export class PasswordResets1764600000000 implements MigrationInterface {
  name = 'PasswordResets1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'password_resets',
        columns: [
          { ...c.id('user_id'), isPrimary: true },
          c.ascii('token_hash', 64),
          c.datetime('created_at'),
          c.datetime('expires_at'),
          c.datetime('used_at', true),
        ],
        // The link's token is looked up by its hash.
        uniques: [{ name: 'uq_password_resets_token_hash', columnNames: ['token_hash'] }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_password_resets_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('password_resets');
  }
}
