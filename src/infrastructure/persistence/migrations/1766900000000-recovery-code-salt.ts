import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `mfa_recovery_codes.salt`: the salt of the set of codes the row belongs to (one per regeneration), under which each
 * code is stored as a raw argon2id (review J, 2026-12-06: ~49 random bits under an unsalted SHA-256 were one offline
 * pass from a table dump). NULL on codes stored before: they keep their SHA-256 until the user regenerates. Additive.
 */
export class RecoveryCodeSalt1766900000000 implements MigrationInterface {
  name = 'RecoveryCodeSalt1766900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('mfa_recovery_codes', new TableColumn(columnsFor(queryRunner).ascii('salt', 32, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('mfa_recovery_codes', 'salt');
  }
}
