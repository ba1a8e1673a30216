import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `audit_events.entry_seal`: each entry's own seal, an HMAC under AUDIT_SEAL_KEY of its columns, written with it by
 * the process that inserts it (NULL without the key). The sealer links only entries whose seal verifies, so a row
 * inserted by someone who can write the table but has not the key is never sealed as genuine: it is marked refused
 * and `audit:verify` names it. `audit_chain.entry_seals_from`: when seals became required (ms), set by the first
 * sealing pass with a key to ten minutes after it, so entries that replicas of the version before write during a
 * rolling upgrade, which carry none, are still linked; `entry_seals_seal` is its HMAC under the key, so the window
 * cannot be moved or cleared to open it again. Additive.
 */
export class AuditEntrySeal1766400000000 implements MigrationInterface {
  name = 'AuditEntrySeal1766400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.addColumn('audit_events', new TableColumn(c.ascii('entry_seal', 64, true)));
    await queryRunner.addColumn('audit_chain', new TableColumn({ name: 'entry_seals_from', type: 'bigint', isNullable: true }));
    await queryRunner.addColumn('audit_chain', new TableColumn(c.ascii('entry_seals_seal', 64, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('audit_chain', 'entry_seals_seal');
    await queryRunner.dropColumn('audit_chain', 'entry_seals_from');
    await queryRunner.dropColumn('audit_events', 'entry_seal');
  }
}
