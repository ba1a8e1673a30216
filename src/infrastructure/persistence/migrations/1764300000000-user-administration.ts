import { type MigrationInterface, type QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { nameSearchKey } from '../../../domain/users/display-name';
import { SEEDED_ROLES } from './1763700000000-initial-schema';
import { columnsFor } from './dialect';

export const ADMINISTRATION_PERMISSIONS = [
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7a01', group: 'users', name: 'users:update' },
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7a02', group: 'users', name: 'users:deactivate' },
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7a03', group: 'users', name: 'users:delete' },
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7a04', group: 'roles', name: 'roles:read' },
  { id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7a05', group: 'roles', name: 'roles:write' },
] as const;

const NAME_KEY_BATCH = 500;

/**
 * User administration (#11): a status (`pending`, `active`, `deactivated`, and `deleted` for an erased
 * user's remaining row), an optimistic version, e-mail nullable so an erased user frees it, a
 * lower-cased name key for prefix search, the indexes the list's filters need, and the new permissions,
 * granted to the admin role.
 */
export class UserAdministration1764300000000 implements MigrationInterface {
  name = 'UserAdministration1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    await queryRunner.addColumns('users', [
      new TableColumn({ ...c.ascii('status', 16), default: "'active'" }),
      new TableColumn(c.integer('version', 1)),
      new TableColumn(c.key('name_key', 200, true)),
    ]);
    await queryRunner.query("UPDATE users SET status = 'pending' WHERE joined_at IS NULL");
    await this.fillNameKeys(queryRunner);

    // An erased user keeps its row without an e-mail (NULLs never collide in a unique index).
    if (c.mysqlFamily) {
      await queryRunner.query('ALTER TABLE users MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL');
      await queryRunner.query('ALTER TABLE users MODIFY email_key VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL');
    } else {
      // SQLite cannot alter a column: TypeORM rebuilds the table (foreign keys are off during migrations).
      const table = (await queryRunner.getTable('users'))!;
      await queryRunner.changeColumns(table, [
        { oldColumn: table.findColumnByName('email')!, newColumn: new TableColumn(c.text('email', 254, true)) },
        { oldColumn: table.findColumnByName('email_key')!, newColumn: new TableColumn(c.key('email_key', 254, true)) },
      ]);
    }

    // Each filter of the user list reads an index, in list order (id) where it can: the id is written out
    // because SQLite's secondary indexes carry the rowid, not the primary key (InnoDB's carry it anyway).
    // The e-mail (exact and prefix) and username (prefix) filters read the unique keys already there.
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_role_id', columnNames: ['role_id', 'id'] }));
    await queryRunner.dropIndex('users', 'ix_users_role');
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_status_id', columnNames: ['status', 'id'] }));
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_role_status_id', columnNames: ['role_id', 'status', 'id'] }));
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_name_key', columnNames: ['name_key'] }));

    for (const p of ADMINISTRATION_PERMISSIONS) {
      await queryRunner.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [p.id, p.group, p.name]);
      await queryRunner.query('INSERT INTO role_permissions (role_id, permission_id) VALUES (?, ?)', [SEEDED_ROLES.admin, p.id]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    for (const p of ADMINISTRATION_PERMISSIONS) {
      await queryRunner.query('DELETE FROM role_permissions WHERE permission_id = ?', [p.id]);
      await queryRunner.query('DELETE FROM permissions WHERE id = ?', [p.id]);
    }
    for (const index of ['ix_users_name_key', 'ix_users_role_status_id', 'ix_users_status_id']) await queryRunner.dropIndex('users', index);
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_role', columnNames: ['role_id'] }));
    await queryRunner.dropIndex('users', 'ix_users_role_id');
    // Erased users have no e-mail to put back: their rows go.
    await queryRunner.query("DELETE FROM users WHERE status = 'deleted'");
    if (c.mysqlFamily) {
      await queryRunner.query('ALTER TABLE users MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL');
      await queryRunner.query('ALTER TABLE users MODIFY email_key VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
    } else {
      const table = (await queryRunner.getTable('users'))!;
      await queryRunner.changeColumns(table, [
        { oldColumn: table.findColumnByName('email')!, newColumn: new TableColumn(c.text('email', 254)) },
        { oldColumn: table.findColumnByName('email_key')!, newColumn: new TableColumn(c.key('email_key', 254)) },
      ]);
    }
    await queryRunner.dropColumns('users', ['name_key', 'version', 'status']);
  }

  /** The key is computed as the application computes it (LOWER() differs between the databases), a batch at a time. */
  private async fillNameKeys(queryRunner: QueryRunner): Promise<void> {
    let after = '';
    for (;;) {
      const rows = (await queryRunner.query(
        'SELECT id, name FROM users WHERE name IS NOT NULL AND id > ? ORDER BY id LIMIT ?',
        [after, NAME_KEY_BATCH],
      )) as { id: string; name: string }[];
      if (rows.length === 0) return;
      const cases = rows.map(() => 'WHEN ? THEN ?').join(' ');
      await queryRunner.query(`UPDATE users SET name_key = CASE id ${cases} END WHERE id IN (${rows.map(() => '?').join(', ')})`, [
        ...rows.flatMap((row) => [row.id, nameSearchKey(row.name)]),
        ...rows.map((row) => row.id),
      ]);
      after = rows[rows.length - 1]!.id;
    }
  }
}
