import type { RoleRepository, RoleStore } from '../../../src/application/ports/role-repository.port';
import type { UserRepository } from '../../../src/application/ports/user-repository.port';
import { type Role, type RoleDetails, RoleNames } from '../../../src/domain/roles/role';
import { RoleEntity, type RoleState } from '../../../src/domain/roles/role.entity';
import { RoleChangedConcurrentlyError, RoleInUseError, RoleNameTakenError } from '../../../src/domain/roles/role.errors';
import { roleNameKey } from '../../../src/domain/roles/role-name';
import { ioBoundary } from './io-boundary';
import { TransactionalFake } from './transactional-fake';

/** Epoch: the creation date of a role arranged without one. */
const ARRANGED_AT = new Date(0);

/**
 * Roles as the migration seeds them; names match exactly, as in the database. As a RoleStore it is a
 * transaction's copy (InMemoryUnitOfWork): writes are replayed on commit, where the unique name
 * (case-insensitive) and the version are checked again against what is committed by then.
 */
export class InMemoryRoleRepository implements RoleRepository {
  private states = new Map<string, RoleState>();

  /** A role given as `Role` is `builtIn` when named admin or member (as seeded), at version 1. */
  constructor(roles: readonly (Role | RoleDetails)[] = []) {
    for (const role of roles) this.save(role);
  }

  /** Arranges (or changes) a role, as an operator editing the table would. Permission ids are their names. */
  save(role: Role | RoleDetails): void {
    const details = role as Partial<RoleDetails>;
    this.states.set(role.id, {
      id: role.id,
      name: role.name,
      permissions: role.permissions.map((name) => ({ id: name, name })),
      builtIn: details.builtIn ?? (role.name === RoleNames.admin || role.name === RoleNames.member),
      version: details.version ?? 1,
      createdAt: details.createdAt ?? ARRANGED_AT,
      ...(details.updatedAt ? { updatedAt: details.updatedAt } : {}),
      ...(details.updatedBy ? { updatedBy: details.updatedBy } : {}),
    });
  }

  remove(id: string): void {
    this.states.delete(id);
  }

  async findAll(): Promise<Role[]> {
    return this.findAllDetails();
  }

  async findById(id: string): Promise<Role | null> {
    return (await this.findAllDetails()).find((r) => r.id === id) ?? null;
  }

  async findByName(name: string): Promise<Role | null> {
    return (await this.findAllDetails()).find((r) => r.name === name) ?? null;
  }

  async findAllDetails(): Promise<RoleDetails[]> {
    await ioBoundary();
    return [...this.states.values()].sort((a, b) => compare(a.name, b.name) || compare(a.id, b.id)).map((s) => RoleEntity.restore(s).toDetails());
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  /** A copy for one transaction; `users` (and `serviceAccounts`, #21) are that transaction's, for counting a role's holders. */
  beginTransaction(users: UserRepository & { all(): { roleId: string }[] }, serviceAccounts?: { all(): { roleId: string }[] }): InMemoryRoleStore {
    return new InMemoryRoleStore(new Map(this.states), users, serviceAccounts);
  }

  /** Replays the copy's writes on what is committed now; throws (applying nothing) on a conflict. */
  prepareCommit(transaction: InMemoryRoleStore): () => void {
    const staged = new Map(this.states);
    for (const write of transaction.writes) apply(staged, write);
    return () => {
      this.states = staged;
    };
  }
}

type Write =
  | { kind: 'insert'; state: RoleState }
  | { kind: 'update'; state: RoleState; readVersion: number }
  | { kind: 'delete'; id: string; readVersion: number };

export class InMemoryRoleStore extends TransactionalFake implements RoleStore {
  readonly writes: Write[] = [];

  constructor(
    private readonly states: Map<string, RoleState>,
    private readonly users: { all(): { roleId: string }[] },
    private readonly serviceAccounts?: { all(): { roleId: string }[] },
  ) {
    super();
  }

  async findById(id: string): Promise<Role | null> {
    await this.io();
    const state = this.states.get(id);
    return state ? RoleEntity.restore(state).toDetails() : null;
  }

  async findByName(name: string): Promise<Role | null> {
    await this.io();
    const state = [...this.states.values()].find((s) => s.name === name);
    return state ? RoleEntity.restore(state).toDetails() : null;
  }

  async findForChange(id: string): Promise<RoleEntity | null> {
    await this.io();
    const state = this.states.get(id);
    return state ? RoleEntity.restore(state) : null;
  }

  async insert(role: RoleEntity): Promise<void> {
    await this.io();
    this.write({ kind: 'insert', state: role.snapshot().state });
  }

  async update(role: RoleEntity): Promise<void> {
    await this.io();
    const { state, readVersion } = role.snapshot();
    this.write({ kind: 'update', state, readVersion });
  }

  async delete(role: RoleEntity): Promise<void> {
    await this.io();
    const holders = [...this.users.all(), ...(this.serviceAccounts?.all() ?? [])].filter((u) => u.roleId === role.id).length;
    if (holders > 0) throw new RoleInUseError(holders);
    this.write({ kind: 'delete', id: role.id, readVersion: role.snapshot().readVersion });
  }

  private write(write: Write): void {
    apply(this.states, write);
    this.writes.push(write);
  }
}

function apply(states: Map<string, RoleState>, write: Write): void {
  if (write.kind === 'delete') {
    if (states.get(write.id)?.version !== write.readVersion) throw new RoleChangedConcurrentlyError();
    states.delete(write.id);
    return;
  }
  const { state } = write;
  if (write.kind === 'update' && states.get(state.id)?.version !== write.readVersion) throw new RoleChangedConcurrentlyError();
  const key = roleNameKey(state.name);
  if ([...states.values()].some((other) => other.id !== state.id && roleNameKey(other.name) === key)) throw new RoleNameTakenError(state.name);
  states.set(state.id, { ...state, permissions: [...state.permissions] });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
