import { type MigrationInterface, type QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

/** Refresh tokens (issue #10): one row per token, stored as its SHA-256, in families of one sign-in each. */
export class RefreshTokens1764500000000 implements MigrationInterface {
  name = 'RefreshTokens1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'refresh_tokens',
        columns: [
          c.id(),
          c.id('family_id'),
          c.id('user_id'),
          c.ascii('token_hash', 64),
          // The user's token version at sign-in: a sign-out (or deactivation, deletion, password change) moves
          // the user's on, and every token of an older version is refused.
          { name: 'token_version', type: 'int' },
          c.datetime('created_at'),
          c.datetime('expires_at'),
          c.datetime('idle_expires_at'),
          c.datetime('used_at', true),
          c.datetime('revoked_at', true),
        ],
        // Every exchange looks its token up by hash.
        uniques: [{ name: 'uq_refresh_tokens_token_hash', columnNames: ['token_hash'] }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_refresh_tokens_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    // A detected reuse revokes the family; the purge finds ended families by their end.
    await queryRunner.createIndex('refresh_tokens', new TableIndex({ name: 'ix_refresh_tokens_family', columnNames: ['family_id'] }));
    await queryRunner.createIndex('refresh_tokens', new TableIndex({ name: 'ix_refresh_tokens_user', columnNames: ['user_id'] }));
    await queryRunner.createIndex('refresh_tokens', new TableIndex({ name: 'ix_refresh_tokens_expires', columnNames: ['expires_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('refresh_tokens');
  }
}
