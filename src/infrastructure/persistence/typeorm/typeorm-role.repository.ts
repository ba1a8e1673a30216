import type { EntityManager } from 'typeorm';
import type { RoleRepository, RoleStore } from '../../../application/ports/role-repository.port';
import type { Role, RoleDetails } from '../../../domain/roles/role';
import { type HeldPermission, RoleEntity, type RoleState } from '../../../domain/roles/role.entity';
import { RoleChangedConcurrentlyError, RoleInUseError, RoleNameTakenError } from '../../../domain/roles/role.errors';
import { roleNameKey } from '../../../domain/roles/role-name';
import { BatchedLookup } from './batched-lookup';
import { foreignKeyViolationOn, uniqueViolationOn } from './database-errors';
import { isMysqlFamily } from './data-source';
import { type RoleRecord, RoleSchema } from './records';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { markRequestRevoking } from './revocation-epochs';

export interface TypeOrmRoleRepositoryDeps {
  /** The data source's manager, or a unit of work's transaction's. */
  manager: EntityManager;
  sqliteWriteQueue: SqliteWriteQueue;
}

/**
 * Roles with their permissions. Reads (RoleRepository) read every role in two statements; inside a unit
 * of work it is also the RoleStore: every role change first moves `role_catalogue.revision` on, which
 * both makes role changes take turns (the row's lock) and tells every process's cache to read again.
 */
export class TypeOrmRoleRepository implements RoleRepository, RoleStore {
  private readonly manager: EntityManager;
  private readonly queue: SqliteWriteQueue;
  private turnTaken = false;

  constructor(deps: TypeOrmRoleRepositoryDeps) {
    this.manager = deps.manager;
    this.queue = deps.sqliteWriteQueue;
  }

  /**
   * The catalogue's revision: it moves on with every committed role change. Every request reads it (the
   * role cache checks it), so concurrent reads outside a transaction share round trips as the user reads
   * do (BatchedLookup): each caller is answered by a read sent after it asked, never by one in flight.
   */
  async revision(): Promise<number> {
    if (this.manager.queryRunner) return this.readRevision();
    return (await this.sharedRevision.get(0)) ?? 0;
  }

  private readonly sharedRevision = new BatchedLookup<0, number>(async () => new Map([[0, await this.queue.outside(this.manager, () => this.readRevision())]]));

  private async readRevision(): Promise<number> {
    const rows = (await this.manager.query('SELECT revision FROM role_catalogue WHERE id = 1')) as { revision: number | string }[];
    return Number(rows[0]?.revision ?? 0);
  }

  async findAll(): Promise<Role[]> {
    return this.findAllDetails();
  }

  async findById(id: string): Promise<Role | null> {
    const state = (await this.queue.outside(this.manager, () => this.loadStates(id)))[0];
    return state ? RoleEntity.restore(state).toDetails() : null;
  }

  async findByName(name: string): Promise<Role | null> {
    return (await this.findAllDetails()).find((role) => role.name === name) ?? null;
  }

  async findAllDetails(): Promise<RoleDetails[]> {
    return this.queue.outside(this.manager, async () => (await this.loadStates()).map((state) => RoleEntity.restore(state).toDetails()));
  }

  async findForChange(id: string): Promise<RoleEntity | null> {
    await this.takeTurn();
    const state = (await this.loadStates(id))[0];
    return state ? RoleEntity.restore(state) : null;
  }

  async insert(role: RoleEntity): Promise<void> {
    await this.takeTurn();
    const { state } = role.snapshot();
    try {
      await this.manager.getRepository(RoleSchema).insert(toRecord(state));
    } catch (error) {
      throw uniqueViolationOn(error) !== null ? new RoleNameTakenError(state.name) : error;
    }
    await this.writePermissions(state.id, state.permissions);
  }

  async update(role: RoleEntity): Promise<void> {
    await this.takeTurn();
    const { state, readVersion } = role.snapshot();
    const { id, ...fields } = toRecord(state);
    let affected: number | null | undefined;
    try {
      ({ affected } = await this.manager
        .createQueryBuilder()
        .update(RoleSchema)
        .set({ name: fields.name, nameKey: fields.nameKey, version: fields.version, updatedAt: fields.updatedAt, updatedBy: fields.updatedBy })
        .where('id = :id AND version = :readVersion', { id, readVersion })
        .execute());
    } catch (error) {
      throw uniqueViolationOn(error) !== null ? new RoleNameTakenError(state.name) : error;
    }
    if (affected === 0) throw new RoleChangedConcurrentlyError();
    await this.manager.query('DELETE FROM role_permissions WHERE role_id = ?', [id]);
    await this.writePermissions(id, state.permissions);
  }

  async delete(role: RoleEntity, fallbackRoleId: string): Promise<void> {
    await this.takeTurn();
    const { state, readVersion } = role.snapshot();
    // A locking read on MySQL/MariaDB: it sees what is committed now, and holds off users given the role meanwhile.
    const lock = isMysqlFamily(this.manager.connection) ? ' LOCK IN SHARE MODE' : '';
    const rows = (await this.manager.query(`SELECT COUNT(*) AS n FROM users WHERE role_id = ? AND status <> 'deleted'${lock}`, [
      state.id,
    ])) as { n: number | string }[];
    // Service accounts hold roles too (#21): their rows are never erased, so each counts.
    const accounts = (await this.manager.query(`SELECT COUNT(*) AS n FROM service_accounts WHERE role_id = ?${lock}`, [state.id])) as {
      n: number | string;
    }[];
    const holders = Number(rows[0]?.n ?? 0) + Number(accounts[0]?.n ?? 0);
    if (holders > 0) throw new RoleInUseError(holders);
    // An erased user's row keeps a role only because the foreign key wants one. Rows are erased onto the member role
    // (ErasedRowsKeepMember1767100000000): only rows an older replica erased meanwhile are left to move, found by the
    // index of (role, status), not by an index merge that also locked every erased row of every role.
    const byRoleAndStatus = isMysqlFamily(this.manager.connection) ? ' FORCE INDEX (ix_users_role_status_id)' : '';
    await this.manager.query(`UPDATE users${byRoleAndStatus} SET role_id = ? WHERE role_id = ? AND status = 'deleted'`, [fallbackRoleId, state.id]);
    let affected: number | null | undefined;
    try {
      ({ affected } = await this.manager
        .createQueryBuilder()
        .delete()
        .from(RoleSchema)
        .where('id = :id AND version = :readVersion', { id: state.id, readVersion })
        .execute());
    } catch (error) {
      // A user given the role after the count (the foreign key refuses the delete).
      throw foreignKeyViolationOn(error) !== null ? new RoleInUseError(0) : error;
    }
    if (affected === 0) throw new RoleChangedConcurrentlyError();
  }

  /** Once per transaction, before anything else of a role change: the catalogue row's lock is the turn. */
  private async takeTurn(): Promise<void> {
    if (this.turnTaken) return;
    if (!this.manager.queryRunner) throw new Error('TypeOrmRoleRepository: role changes run in a unit of work');
    await this.manager.query('UPDATE role_catalogue SET revision = revision + 1 WHERE id = 1');
    // Every replica's caches follow the revision through the revocation signal: the answer waits out its window.
    markRequestRevoking();
    this.turnTaken = true;
  }

  private async writePermissions(roleId: string, permissions: readonly HeldPermission[]): Promise<void> {
    if (permissions.length === 0) return;
    await this.manager.query(
      `INSERT INTO role_permissions (role_id, permission_id) VALUES ${permissions.map(() => '(?, ?)').join(', ')}`,
      permissions.flatMap((p) => [roleId, p.id]),
    );
  }

  private async loadStates(id?: string): Promise<RoleState[]> {
    const roles = this.manager.getRepository(RoleSchema);
    const records = await roles.find({ ...(id !== undefined ? { where: { id } } : {}), order: { name: 'ASC', id: 'ASC' } });
    if (records.length === 0) return [];
    const query = this.manager
      .createQueryBuilder()
      .select(['rp.role_id AS role_id', 'p.id AS id', 'p.name AS name'])
      .from('role_permissions', 'rp')
      .innerJoin('permissions', 'p', 'p.id = rp.permission_id')
      .orderBy('p.name', 'ASC');
    if (id !== undefined) query.where('rp.role_id = :id', { id });
    const rows: { role_id: string; id: string; name: string }[] = await query.getRawMany();
    const byRole = new Map<string, HeldPermission[]>();
    for (const row of rows) byRole.set(row.role_id, [...(byRole.get(row.role_id) ?? []), { id: row.id, name: row.name }]);
    return records.map((record) => ({
      id: record.id,
      name: record.name,
      permissions: byRole.get(record.id) ?? [],
      builtIn: Number(record.builtIn) === 1,
      version: record.version,
      createdAt: record.createdAt,
      ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
      ...(record.updatedBy ? { updatedBy: record.updatedBy } : {}),
    }));
  }
}

function toRecord(state: RoleState): RoleRecord {
  return {
    id: state.id,
    name: state.name,
    nameKey: roleNameKey(state.name),
    builtIn: state.builtIn ? 1 : 0,
    version: state.version,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt ?? null,
    updatedBy: state.updatedBy ?? null,
  };
}
