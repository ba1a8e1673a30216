import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';
import { SEEDED_ROLES } from './1763700000000-initial-schema';
import { columnsFor } from './dialect';

export const AUDIT_PERMISSIONS = [{ id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7d01', group: 'audit', name: 'audit:read' }] as const;

/** The chain's start, and what a checkpoint at an empty cut links to. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/**
 * The audit trail (#23). Additive: two new tables and one permission granted to admin.
 *
 * `audit_events` is written by every replica in the request's own transaction (a plain insert, no
 * counter row): `seq` and `chain_hash` stay NULL until the sealer links the entry into the hash chain
 * after it committed. Every read index ends with (occurred_at, id), the keyset the pages move by, so a
 * filter plus a cursor is one index range whatever its depth.
 *
 * `audit_chain` is the one row the sealer (never a request) moves: the chain's head, and the checkpoint
 * the retention sweeper leaves at its cut (`floor_*`) so what remains still verifies.
 */
export class AuditTrail1765300000000 implements MigrationInterface {
  name = 'AuditTrail1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    const bigint = (name: string, nullable = false) => ({ name, type: 'bigint', isNullable: nullable });
    await queryRunner.createTable(
      new Table({
        name: 'audit_events',
        columns: [
          c.id(),
          bigint('occurred_at'),
          c.ascii('action', 64),
          c.ascii('action_group', 32),
          c.ascii('outcome', 16),
          c.ascii('code', 64, true),
          c.ascii('actor_type', 24),
          c.ascii('actor_id', 64, true),
          c.text('actor_name', 255, true),
          c.ascii('target_type', 32, true),
          c.ascii('target_id', 64, true),
          c.text('target_snapshot', 255, true),
          c.ascii('source_address', 64, true),
          c.text('user_agent', 255, true),
          c.ascii('request_id', 64, true),
          { ...c.longText('changes'), isNullable: true },
          bigint('seq', true),
          c.ascii('chain_hash', 64, true),
        ],
        uniques: [{ name: 'uq_audit_events_seq', columnNames: ['seq'] }],
        indices: [
          { name: 'ix_audit_events_time', columnNames: ['occurred_at', 'id'] },
          { name: 'ix_audit_events_actor', columnNames: ['actor_id', 'occurred_at', 'id'] },
          { name: 'ix_audit_events_target', columnNames: ['target_id', 'occurred_at', 'id'] },
          { name: 'ix_audit_events_action', columnNames: ['action', 'occurred_at', 'id'] },
          { name: 'ix_audit_events_group', columnNames: ['action_group', 'occurred_at', 'id'] },
          { name: 'ix_audit_events_outcome', columnNames: ['outcome', 'occurred_at', 'id'] },
          { name: 'ix_audit_events_request', columnNames: ['request_id'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'audit_chain',
        columns: [
          { name: 'id', type: 'int', isPrimary: true },
          bigint('last_seq'),
          c.ascii('last_hash', 64),
          bigint('floor_seq'),
          c.ascii('floor_hash', 64),
        ],
      }),
    );
    await queryRunner.query('INSERT INTO audit_chain (id, last_seq, last_hash, floor_seq, floor_hash) VALUES (1, 0, ?, 0, ?)', [
      AUDIT_GENESIS_HASH,
      AUDIT_GENESIS_HASH,
    ]);
    for (const p of AUDIT_PERMISSIONS) {
      await queryRunner.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [p.id, p.group, p.name]);
      await queryRunner.query('INSERT INTO role_permissions (role_id, permission_id) VALUES (?, ?)', [SEEDED_ROLES.admin, p.id]);
    }
    await queryRunner.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const p of AUDIT_PERMISSIONS) {
      await queryRunner.query('DELETE FROM role_permissions WHERE permission_id = ?', [p.id]);
      await queryRunner.query('DELETE FROM permissions WHERE id = ?', [p.id]);
    }
    await queryRunner.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
    await queryRunner.dropTable('audit_chain');
    await queryRunner.dropTable('audit_events');
  }
}
