import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEEDED_ROLES } from './1763700000000-initial-schema';

export const TOKEN_PERMISSIONS = [{ id: '01a1fc94-6d95-7242-b4cc-fd0a5c3e7c01', group: 'tokens', name: 'tokens:introspect' }] as const;

/**
 * Token introspection (#21): `tokens:introspect`, in a group of its own, lets a service account ask
 * POST /oauth/introspect whether a token is valid now. Additive: one permission granted to admin (which
 * holds every permission), and the role catalogue's revision moved on so every process's role cache reads
 * admin's new set.
 */
export class TokenIntrospection1765100000000 implements MigrationInterface {
  name = 'TokenIntrospection1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const p of TOKEN_PERMISSIONS) {
      await queryRunner.query('INSERT INTO permissions (id, group_name, name) VALUES (?, ?, ?)', [p.id, p.group, p.name]);
      await queryRunner.query('INSERT INTO role_permissions (role_id, permission_id) VALUES (?, ?)', [SEEDED_ROLES.admin, p.id]);
    }
    await queryRunner.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const p of TOKEN_PERMISSIONS) {
      await queryRunner.query('DELETE FROM role_permissions WHERE permission_id = ?', [p.id]);
      await queryRunner.query('DELETE FROM permissions WHERE id = ?', [p.id]);
    }
    await queryRunner.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
  }
}
