import { AggregateRoot } from '../shared/domain-event';
import { missingPermissions, type RoleDetails, RoleNames } from './role';
import { BuiltInRoleError } from './role.errors';
import { ROLE_CHANGED, ROLE_CREATED, ROLE_DELETED, type RoleChanged, type RoleCreated, type RoleDeleted } from './role-events';
import { parseRoleName } from './role-name';

/** A permission as a role holds it: its id (what is stored) and its name (what is shown). */
export interface HeldPermission {
  readonly id: string;
  readonly name: string;
}

export interface RoleState {
  id: string;
  name: string;
  permissions: HeldPermission[];
  builtIn: boolean;
  version: number;
  createdAt: Date;
  updatedAt?: Date;
  updatedBy?: string;
}

/** Who changes a role, when, and the ids of the events the change records. */
export interface RoleChangeBy {
  by: string;
  now: Date;
  newId: () => string;
}

/**
 * A role being administered. Its rules: a valid name; built-in roles (`admin`, `member`) are never
 * deleted nor renamed; `admin` never loses a permission. Each change records its event.
 */
export class RoleEntity extends AggregateRoot {
  /** The version the role had when read: the row must still have it for a write to apply. */
  private readonly readVersion: number;

  private constructor(private state: RoleState) {
    super();
    this.readVersion = state.version;
  }

  /** As stored: permissions in the order the store keeps them (by name). */
  static restore(state: RoleState): RoleEntity {
    return new RoleEntity({ ...state, permissions: [...state.permissions] });
  }

  static create(input: { id: string; name: string; permissions: HeldPermission[] } & RoleChangeBy): RoleEntity {
    const name = parseRoleName(input.name);
    const role = new RoleEntity({
      id: input.id,
      name,
      permissions: sorted(unique(input.permissions)),
      builtIn: false,
      version: 1,
      createdAt: input.now,
    });
    role.record({
      id: input.newId(),
      type: ROLE_CREATED,
      aggregateId: role.id,
      occurredAt: input.now,
      data: { role_id: role.id, name, permissions: role.permissionNames, created_by: input.by, created_date: input.now.toISOString() },
    } satisfies RoleCreated);
    return role;
  }

  get id(): string {
    return this.state.id;
  }

  get name(): string {
    return this.state.name;
  }

  get version(): number {
    return this.state.version;
  }

  get builtIn(): boolean {
    return this.state.builtIn;
  }

  get permissions(): readonly HeldPermission[] {
    return this.state.permissions;
  }

  get permissionNames(): string[] {
    return this.state.permissions.map((p) => p.name);
  }

  get isAdmin(): boolean {
    return this.state.builtIn && this.state.name === RoleNames.admin;
  }

  /** Changes the name and/or the permissions; returns false (and records nothing) when nothing differs. */
  change(input: { name?: string; permissions?: HeldPermission[] } & RoleChangeBy): boolean {
    const changes: RoleChanged['data']['changes'] = {};
    const previous: RoleChanged['data']['previous'] = {};
    let name = this.state.name;
    let permissions = this.state.permissions;

    if (input.name !== undefined && input.name !== this.state.name) {
      if (this.state.builtIn) throw new BuiltInRoleError('renamed');
      name = parseRoleName(input.name);
      changes.name = name;
      previous.name = this.state.name;
    }
    if (input.permissions !== undefined) {
      const next = sorted(unique(input.permissions));
      const nextNames = next.map((p) => p.name);
      if (nextNames.join('\n') !== this.permissionNames.join('\n')) {
        if (this.isAdmin && missingPermissions(nextNames, this.permissionNames).length > 0) {
          throw new BuiltInRoleError('stripped of a permission (admin holds every permission)');
        }
        permissions = next;
        changes.permissions = nextNames;
        previous.permissions = this.permissionNames;
      }
    }
    if (Object.keys(changes).length === 0) return false;

    this.state = { ...this.state, name, permissions, version: this.state.version + 1, updatedAt: input.now, updatedBy: input.by };
    this.record({
      id: input.newId(),
      type: ROLE_CHANGED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: { role_id: this.id, changes, previous, changed_by: input.by, changed_date: input.now.toISOString() },
    } satisfies RoleChanged);
    return true;
  }

  /** Records the deletion; whether users still hold the role is the store's to check, in the same transaction. */
  delete(input: RoleChangeBy): void {
    if (this.state.builtIn) throw new BuiltInRoleError('deleted');
    this.record({
      id: input.newId(),
      type: ROLE_DELETED,
      aggregateId: this.id,
      occurredAt: input.now,
      data: { role_id: this.id, name: this.name, deleted_by: input.by, deleted_date: input.now.toISOString() },
    } satisfies RoleDeleted);
  }

  /** The state to store, and the version the row must still have (the one read) for the write to apply. */
  snapshot(): { state: RoleState; readVersion: number } {
    return { state: { ...this.state, permissions: [...this.state.permissions] }, readVersion: this.readVersion };
  }

  toDetails(): RoleDetails {
    const { id, name, builtIn, version, createdAt, updatedAt, updatedBy } = this.state;
    return {
      id,
      name,
      permissions: this.permissionNames,
      builtIn,
      version,
      createdAt,
      ...(updatedAt ? { updatedAt } : {}),
      ...(updatedBy ? { updatedBy } : {}),
    };
  }
}

function unique(permissions: HeldPermission[]): HeldPermission[] {
  return [...new Map(permissions.map((p) => [p.id, p])).values()];
}

function sorted(permissions: readonly HeldPermission[]): HeldPermission[] {
  return [...permissions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
