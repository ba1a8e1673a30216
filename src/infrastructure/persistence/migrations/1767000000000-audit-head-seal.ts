import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';
import { columnsFor } from './dialect';

/**
 * `audit_chain.head_seal`: the seal of the chain's head, HMAC under AUDIT_SEAL_KEY of its place and link, written by the
 * sealer with every move of the head. Moving the head back onto an earlier entry (its link copied, the entries after it
 * cleared, so that the next pass links them again without the ones deleted) then needs the key. NULL until the first
 * keyed pass of this version, which tells a head never sealed from one whose seal was cleared by the entry the head is
 * on (AuditSealer). Additive.
 */
export class AuditHeadSeal1767000000000 implements MigrationInterface {
  name = 'AuditHeadSeal1767000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('audit_chain', new TableColumn(columnsFor(queryRunner).ascii('head_seal', 64, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('audit_chain', 'head_seal');
  }
}
