import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { roleNameKey } from '../../../domain/roles/role-name';
import { SEEDED_ROLES } from './1763700000000-initial-schema';
import { columnsFor } from './dialect';

/**
 * Role administration (#11): a lower-cased name key (unique: role names are unique case-insensitively),
 * `built_in` for the seeded `admin` and `member`, an optimistic version, who changed a role last and when,
 * and `role_catalogue`, one row whose revision every role change moves on in its transaction: each
 * process's role cache compares it on every read, so a change shows on every replica at once.
 */
export class RoleAdministration1764400000000 implements MigrationInterface {
  name = 'RoleAdministration1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);
    await queryRunner.addColumns('roles', [
      new TableColumn(c.key('name_key', 64, true)),
      new TableColumn(c.integer('built_in', 0)),
      new TableColumn(c.integer('version', 1)),
      new TableColumn(c.datetime('updated_at', true)),
      new TableColumn(c.id('updated_by', true)),
    ]);
    const roles = (await queryRunner.query('SELECT id, name FROM roles')) as { id: string; name: string }[];
    for (const role of roles) {
      await queryRunner.query('UPDATE roles SET name_key = ? WHERE id = ?', [roleNameKey(role.name), role.id]);
    }
    await queryRunner.query('UPDATE roles SET built_in = 1 WHERE id IN (?, ?)', [SEEDED_ROLES.admin, SEEDED_ROLES.member]);
    await queryRunner.createIndex('roles', new TableIndex({ name: 'uq_roles_name_key', columnNames: ['name_key'], isUnique: true }));

    await queryRunner.createTable(
      new Table({
        name: 'role_catalogue',
        columns: [
          { name: 'id', type: 'int', isPrimary: true },
          { name: 'revision', type: 'int', default: 1 },
        ],
      }),
    );
    await queryRunner.query('INSERT INTO role_catalogue (id, revision) VALUES (1, 1)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('role_catalogue');
    await queryRunner.dropIndex('roles', 'uq_roles_name_key');
    await queryRunner.dropColumns('roles', ['updated_by', 'updated_at', 'version', 'built_in', 'name_key']);
  }
}
