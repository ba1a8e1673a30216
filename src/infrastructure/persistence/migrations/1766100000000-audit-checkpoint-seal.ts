import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * `audit_chain.floor_seal`: the retention checkpoint's own seal, H(`floor`, floor_seq, floor_hash) (an HMAC under
 * AUDIT_SEAL_KEY when set), written by the retention sweeper with the checkpoint. Without it a checkpoint could be
 * moved by copying an existing entry's link into it, and every entry before it deleted unseen, key or not. NULL
 * while the checkpoint is the chain's start (floor_seq 0). Additive; a sweeper of the version before writes no seal,
 * and a checkpoint it moved reads as unsealed to `audit:verify` (AUDIT_RETENTION is a year by default).
 */
export class AuditCheckpointSeal1766100000000 implements MigrationInterface {
  name = 'AuditCheckpointSeal1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('audit_chain', new TableColumn({ name: 'floor_seal', type: 'varchar', length: '64', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('audit_chain', 'floor_seal');
  }
}
