import { type MigrationInterface, type QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * Second factors (#24): the factors (one TOTP per user, its secret sealed), the recovery codes (SHA-256 only)
 * and the sign-in's second-step tickets (SHA-256 only). Additive: three new tables, each row going with its user.
 */
export class SecondFactors1765500000000 implements MigrationInterface {
  name = 'SecondFactors1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    const ofUser = (table: string) =>
      new TableForeignKey({ name: `fk_${table}_user`, columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' });

    await queryRunner.createTable(
      new Table({
        name: 'mfa_factors',
        columns: [
          c.id(),
          c.id('user_id'),
          c.ascii('type', 16),
          c.ascii('sealed_secret', 255),
          c.datetime('created_at'),
          c.datetime('confirmed_at', true),
          { name: 'last_used_step', type: 'bigint', isNullable: true },
        ],
        // One factor of each type per user: a new enrollment replaces a pending one.
        uniques: [{ name: 'uq_mfa_factors_user_type', columnNames: ['user_id', 'type'] }],
        foreignKeys: [ofUser('mfa_factors')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'mfa_recovery_codes',
        columns: [{ ...c.ascii('code_hash', 64), isPrimary: true }, c.id('user_id'), c.datetime('created_at'), c.datetime('used_at', true)],
        foreignKeys: [ofUser('mfa_recovery_codes')],
      }),
    );
    await queryRunner.createIndex('mfa_recovery_codes', new TableIndex({ name: 'ix_mfa_recovery_codes_user', columnNames: ['user_id'] }));
    await queryRunner.createTable(
      new Table({
        name: 'mfa_challenges',
        columns: [{ ...c.ascii('token_hash', 64), isPrimary: true }, c.id('user_id'), c.datetime('created_at'), c.datetime('expires_at'), c.datetime('used_at', true)],
        foreignKeys: [ofUser('mfa_challenges')],
      }),
    );
    await queryRunner.createIndex('mfa_challenges', new TableIndex({ name: 'ix_mfa_challenges_user', columnNames: ['user_id'] }));
    await queryRunner.createIndex('mfa_challenges', new TableIndex({ name: 'ix_mfa_challenges_expires', columnNames: ['expires_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('mfa_challenges');
    await queryRunner.dropTable('mfa_recovery_codes');
    await queryRunner.dropTable('mfa_factors');
  }
}
