import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * An audit entry's `request_id` as long as the `x-request-id` the service takes (128 characters, as the outbox's): it
 * was cut at 64, so an entry of a longer id named another request than its events did, and `?request_id=` found
 * neither (review H). Entries written before keep what they hold; their chain is over the stored value.
 * SQLite does not enforce a VARCHAR's length: nothing to change there (a rebuild would copy the whole trail).
 */
export class AuditRequestIdLength1766800000000 implements MigrationInterface {
  name = 'AuditRequestIdLength1766800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!columnsFor(queryRunner).mysqlFamily) return;
    await queryRunner.query('ALTER TABLE audit_events MODIFY request_id VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (!columnsFor(queryRunner).mysqlFamily) return;
    // Refused (strict mode) while an entry holds a longer id: cutting it would break the entry's chain.
    await queryRunner.query('ALTER TABLE audit_events MODIFY request_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL');
  }
}
