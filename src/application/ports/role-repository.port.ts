import type { Role, RoleDetails } from '../../domain/roles/role';
import type { RoleEntity } from '../../domain/roles/role.entity';

/** Roles as they are now (reads outside a transaction; a change committed by any process shows on the next read). */
export interface RoleRepository {
  findAll(): Promise<Role[]>;
  findById(id: string): Promise<Role | null>;
  /** Exact name (`Admin` is not `admin`). */
  findByName(name: string): Promise<Role | null>;
  /** Every role with its bookkeeping, ordered by name then id: what the administration lists and pages. */
  findAllDetails(): Promise<RoleDetails[]>;
}

/**
 * Roles inside a unit of work (TransactionScope.roles): read to change, and written with their events.
 * Role changes take turns: `findForChange` waits for any other role change to commit first.
 */
export interface RoleStore {
  /**
   * The role as this transaction sees it. A use case reads roles here, never through the RoleRepository,
   * once its unit of work has begun: that read would need a second connection while this one is held
   * (SQLite has only one: it waits for this transaction, which waits for it).
   */
  findById(id: string): Promise<Role | null>;
  /** Exact name, as RoleRepository.findByName. */
  findByName(name: string): Promise<Role | null>;
  findForChange(id: string): Promise<RoleEntity | null>;
  /** RoleNameTakenError when the name is taken (case-insensitively). */
  insert(role: RoleEntity): Promise<void>;
  /** RoleChangedConcurrentlyError when the row's version is no longer the one read; RoleNameTakenError as insert. */
  update(role: RoleEntity): Promise<void>;
  /**
   * Deletes the role. Users that hold it and are not erased make it RoleInUseError (nothing deleted);
   * erased users' remaining rows are moved to `fallbackRoleId` (they keep a role only for the foreign key).
   */
  delete(role: RoleEntity, fallbackRoleId: string): Promise<void>;
}
