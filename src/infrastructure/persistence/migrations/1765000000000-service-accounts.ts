import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableForeignKey } from 'typeorm';
import { SEEDED_ROLES } from './1763700000000-initial-schema';
import { columnsFor } from './dialect';

export const SERVICE_ACCOUNT_PERMISSIONS = [
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7b01', group: 'service-accounts', name: 'service-accounts:read' },
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7b02', group: 'service-accounts', name: 'service-accounts:write' },
] as const;

/**
 * Service accounts (#21): identities of other services, not users (their own table, never in the user
 * list nor counted as admins). Each holds one role, as a user does, and authenticates with secrets
 * (`service_account_secrets`, only their SHA-256) or with its public keys (`jwks`, the inline JWK set
 * it registered: replaced whole and read whole to verify an assertion, so one column). A client
 * assertion's `jti` is remembered in `client_assertion_jtis` until the assertion expires, in the
 * database so every replica refuses a replay. The new permissions are granted to admin, and the role
 * catalogue's revision moves on so every process's role cache reads admin's new set.
 */
export class ServiceAccounts1765000000000 implements MigrationInterface {
  name = 'ServiceAccounts1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'service_accounts',
        columns: [
          c.id(),
          c.ascii('client_id', 64),
          c.text('name', 64),
          c.key('name_key', 64),
          new TableColumn({ ...c.text('description', 500, true) }),
          c.id('role_id'),
          c.integer('disabled', 0),
          { ...c.longText('jwks'), isNullable: true },
          c.integer('version', 1),
          c.datetime('created_at'),
          c.id('created_by', true),
          c.datetime('updated_at', true),
          c.id('updated_by', true),
        ],
        uniques: [
          { name: 'uq_service_accounts_client_id', columnNames: ['client_id'] },
          { name: 'uq_service_accounts_name_key', columnNames: ['name_key'] },
        ],
        indices: [{ name: 'ix_service_accounts_role_id', columnNames: ['role_id'] }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_service_accounts_role',
            columnNames: ['role_id'],
            referencedTableName: 'roles',
            referencedColumnNames: ['id'],
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'service_account_secrets',
        columns: [
          c.id(),
          c.id('service_account_id'),
          c.ascii('secret_hash', 64),
          c.datetime('created_at'),
          c.datetime('expires_at', true),
          c.datetime('last_used_at', true),
        ],
        uniques: [{ name: 'uq_service_account_secrets_hash', columnNames: ['secret_hash'] }],
        indices: [{ name: 'ix_service_account_secrets_account', columnNames: ['service_account_id'] }],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_service_account_secrets_account',
            columnNames: ['service_account_id'],
            referencedTableName: 'service_accounts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'client_assertion_jtis',
        columns: [
          // SHA-256 (hex) of `client_id` and `jti`: bounded whatever length the client chose.
          { ...c.ascii('id', 64), isPrimary: true },
          c.datetime('expires_at'),
        ],
        indices: [{ name: 'ix_client_assertion_jtis_expires', columnNames: ['expires_at'] }],
      }),
    );

    for (const p of SERVICE_ACCOUNT_PERMISSIONS) {
      await queryRunner.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [p.id, p.group, p.name]);
      await queryRunner.query('INSERT INTO role_permissions (role_id, permission_id) VALUES (?, ?)', [SEEDED_ROLES.admin, p.id]);
    }
    await queryRunner.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const p of SERVICE_ACCOUNT_PERMISSIONS) {
      await queryRunner.query('DELETE FROM role_permissions WHERE permission_id = ?', [p.id]);
      await queryRunner.query('DELETE FROM permissions WHERE id = ?', [p.id]);
    }
    await queryRunner.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
    await queryRunner.dropTable('client_assertion_jtis');
    await queryRunner.dropTable('service_account_secrets');
    await queryRunner.dropTable('service_accounts');
  }
}
