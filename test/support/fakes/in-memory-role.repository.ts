import type { RoleRepository } from '../../../src/application/ports/role-repository.port';
import type { Role } from '../../../src/domain/roles/role';
import { ioBoundary } from './io-boundary';

/** Roles as the migration seeds them; names match exactly, as in the database. */
export class InMemoryRoleRepository implements RoleRepository {
  private readonly roles = new Map<string, Role>();

  constructor(roles: readonly Role[] = []) {
    for (const role of roles) this.save(role);
  }

  /** Arranges (or changes) a role, as an operator editing the table would. */
  save(role: Role): void {
    this.roles.set(role.id, copy(role));
  }

  remove(id: string): void {
    this.roles.delete(id);
  }

  async findAll(): Promise<Role[]> {
    await ioBoundary();
    return [...this.roles.values()].sort((a, b) => compare(a.name, b.name)).map(copy);
  }

  async findById(id: string): Promise<Role | null> {
    await ioBoundary();
    const role = this.roles.get(id);
    return role ? copy(role) : null;
  }

  async findByName(name: string): Promise<Role | null> {
    await ioBoundary();
    const role = [...this.roles.values()].find((r) => r.name === name);
    return role ? copy(role) : null;
  }
}

// Callers get their own copies, as rows read from a database would be.
function copy(role: Role): Role {
  return { id: role.id, name: role.name, permissions: [...role.permissions] };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
