import type { DataSource } from 'typeorm';
import type { RoleRepository } from '../../../application/ports/role-repository.port';
import type { Role } from '../../../domain/roles/role';

/** Roles with their permission names, read in one query. */
export class TypeOrmRoleRepository implements RoleRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findAll(): Promise<Role[]> {
    return this.load();
  }

  async findById(id: string): Promise<Role | null> {
    return (await this.load()).find((role) => role.id === id) ?? null;
  }

  async findByName(name: string): Promise<Role | null> {
    return (await this.load()).find((role) => role.name === name) ?? null;
  }

  private async load(): Promise<Role[]> {
    const rows: { id: string; name: string; permission: string | null }[] = await this.dataSource
      .createQueryBuilder()
      .select(['r.id AS id', 'r.name AS name', 'p.name AS permission'])
      .from('roles', 'r')
      .leftJoin('role_permissions', 'rp', 'rp.role_id = r.id')
      .leftJoin('permissions', 'p', 'p.id = rp.permission_id')
      .orderBy('r.name', 'ASC')
      .addOrderBy('p.name', 'ASC')
      .getRawMany();
    const roles = new Map<string, { id: string; name: string; permissions: string[] }>();
    for (const row of rows) {
      const role = roles.get(row.id) ?? { id: row.id, name: row.name, permissions: [] };
      if (row.permission !== null) role.permissions.push(row.permission);
      roles.set(row.id, role);
    }
    return [...roles.values()];
  }
}
