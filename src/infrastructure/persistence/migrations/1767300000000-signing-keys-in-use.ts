import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `signing_keys_in_use`: the `kid` each replica signs with, noted at start and every minute (SigningKeyWatch), so a
 * replica can tell when another signs with a key it does not accept. Public key ids only; a row per key, not per replica.
 */
export class SigningKeysInUse1767300000000 implements MigrationInterface {
  name = 'SigningKeysInUse1767300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'signing_keys_in_use',
        columns: [{ ...c.ascii('kid', 64), isPrimary: true }, c.ascii('alg', 8), c.datetime('last_seen_at')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('signing_keys_in_use');
  }
}
