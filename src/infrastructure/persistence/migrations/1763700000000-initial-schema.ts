import { type MigrationInterface, type QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { columnsFor } from './dialect';

// Fixed ids so every database, and every test, sees the same seeded rows.
export const SEEDED_ROLES = {
  admin: '01a1fc94-6d91-7759-a289-8ec3215f8e87',
  member: '01a1fc94-6d94-7441-a6a7-5c24f14ccb6a',
} as const;

export const SEEDED_PERMISSIONS = [
  { id: '01a1fc94-6d95-7242-b4cc-f584d536f117', group: 'users', name: 'users:read' },
  { id: '01a1fc94-6d95-7242-b4cc-fa6d3722e5d9', group: 'users', name: 'users:invite' },
  { id: '01a1fc94-6d95-7242-b4cc-fcf1289eb5b1', group: 'permissions', name: 'permissions:read' },
] as const;

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columnsFor(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'roles',
        columns: [c.id(), c.key('name', 64), c.datetime('created_at')],
        uniques: [{ name: 'uq_roles_name', columnNames: ['name'] }],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'permissions',
        columns: [c.id(), c.key('group_name', 64), c.key('name', 128)],
        uniques: [{ name: 'uq_permissions_name', columnNames: ['name'] }],
        indices: [{ name: 'ix_permissions_group_name', columnNames: ['group_name', 'name'] }],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'role_permissions',
        columns: [
          { ...c.id('role_id'), isPrimary: true },
          { ...c.id('permission_id'), isPrimary: true },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_role_permissions_role',
            columnNames: ['role_id'],
            referencedTableName: 'roles',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'fk_role_permissions_permission',
            columnNames: ['permission_id'],
            referencedTableName: 'permissions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          c.id(),
          c.text('email', 254),
          c.key('email_key', 254),
          c.text('name', 200, true),
          c.text('username', 64, true),
          c.key('username_key', 64, true),
          c.ascii('password_hash', 255, true),
          c.id('role_id'),
          c.datetime('invited_at'),
          c.id('invited_by', true),
          c.datetime('joined_at', true),
          c.datetime('updated_at', true),
          c.id('updated_by', true),
        ],
        uniques: [
          { name: 'uq_users_email_key', columnNames: ['email_key'] },
          { name: 'uq_users_username_key', columnNames: ['username_key'] },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_users_role',
            columnNames: ['role_id'],
            referencedTableName: 'roles',
            referencedColumnNames: ['id'],
          }),
        ],
      }),
    );
    // Users are listed by id, which is a UUIDv7 and so sorts by creation: the primary key is the list index.
    await queryRunner.createIndex('users', new TableIndex({ name: 'ix_users_role', columnNames: ['role_id'] }));

    await queryRunner.createTable(
      new Table({
        name: 'outbox_events',
        columns: [
          c.id(),
          c.id('aggregate_id'),
          c.ascii('type', 64),
          c.longText('payload'),
          c.datetime('occurred_at'),
          c.datetime('published_at', true),
          c.integer('attempts', 0),
        ],
        indices: [{ name: 'ix_outbox_pending', columnNames: ['published_at', 'id'] }],
      }),
    );

    // `?` placeholders and a UTC datetime literal read the same on all three databases.
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    for (const [name, id] of Object.entries(SEEDED_ROLES)) {
      await queryRunner.query('INSERT INTO roles (id, name, created_at) VALUES (?, ?, ?)', [id, name, now]);
    }
    for (const p of SEEDED_PERMISSIONS) {
      await queryRunner.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [p.id, p.group, p.name]);
      await queryRunner.query('INSERT INTO role_permissions (role_id, permission_id) VALUES (?, ?)', [
        SEEDED_ROLES.admin,
        p.id,
      ]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['outbox_events', 'users', 'role_permissions', 'permissions', 'roles']) {
      await queryRunner.dropTable(table);
    }
  }
}
