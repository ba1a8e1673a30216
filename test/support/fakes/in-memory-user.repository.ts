import type { UserListFilter, UserListSlice, UserRepository } from '../../../src/application/ports/user-repository.port';
import type { Slice } from '../../../src/application/shared/pagination';
import { nameSearchKey } from '../../../src/domain/users/display-name';
import { Email } from '../../../src/domain/users/email';
import { User, type UserProps } from '../../../src/domain/users/user';
import {
  EmailAlreadyTakenError,
  UserChangedConcurrentlyError,
  UserNotFoundError,
  UsernameAlreadyTakenError,
} from '../../../src/domain/users/user.errors';
import { Username } from '../../../src/domain/users/username';
import type { InMemoryInvitationRepository } from './in-memory-invitation.repository';
import { TransactionalFake } from './transactional-fake';

type Row = Readonly<UserProps>;

/** A write made through a transactional copy, replayed (and so re-checked) on commit. */
type Write =
  | { kind: 'add'; row: Row }
  | { kind: 'update'; row: Row }
  | { kind: 'erase'; row: Row }
  | { kind: 'delete'; row: Row }
  | { kind: 'bumpTokenVersion'; id: string };

/**
 * Users kept as rows (snapshots), not as live objects: what comes out is a fresh `User`, as
 * a database read would be, and pending domain events never survive a save.
 * Unique keys are the e-mail and the username, both case-insensitive, like the real indexes.
 * `update` and `delete` of a missing id change nothing, as an UPDATE or DELETE matching no row.
 * `update` never writes the token version; `incrementTokenVersion` bumps it on the row committed at
 * the time (replayed on commit like `SET token_version = token_version + 1`), so no bump is lost.
 * `update` and `erase` check the version again on commit, as `UPDATE … WHERE version = ?` does on
 * the row committed by then. An erased user stays as a row without its personal data (status
 * `deleted`) that no read finds. `delete` and `erase` delete the user's invitation in the
 * invitations store the unit of work links (`linkInvitations`), as the database's foreign key does.
 * `countActiveWithRole` takes a turn per role that lasts until the transaction ends.
 */
export class InMemoryUserRepository extends TransactionalFake implements UserRepository {
  private rows = new Map<string, Row>();
  /** Writes made through this instance, in order: what a transactional copy hands to `commit`. */
  private readonly writes: Write[] = [];
  private invitations: InMemoryInvitationRepository | undefined;
  /** The committed store a transactional copy was begun from, and the turns they share. */
  private committed: InMemoryUserRepository | undefined;
  private turns = new RoleTurns();
  private readonly heldTurns: (() => void)[] = [];
  private readonly heldRoles = new Set<string>();

  constructor(users: readonly User[] = []) {
    super();
    this.seed(...users);
  }

  /** Arranges existing users directly, without a transaction (test setup only). */
  seed(...users: User[]): void {
    for (const user of users) insertInto(this.rows, toRow(user));
  }

  /** The invitations store `delete` and `erase` cascade to (the unit of work links its own). */
  linkInvitations(invitations: InMemoryInvitationRepository): void {
    this.invitations = invitations;
  }

  async findById(id: string): Promise<User | null> {
    await this.io();
    const row = this.rows.get(id);
    return row && isLive(row) ? toUser(row) : null;
  }

  /**
   * As findById: the fake holds nothing, so two of its units of work changing one user still overlap and the second
   * fails its version check. Taking turns is the adapters' (row locks; SQLite's one transaction at a time), held by
   * test/e2e/user-administration.e2e.test.ts on SQLite, MariaDB and MySQL 8.
   */
  async findForChange(id: string): Promise<User | null> {
    return this.findById(id);
  }

  async findByUsername(username: string): Promise<User | null> {
    await this.io();
    const key = Username.normalize(username);
    const row = this.liveRows().find((r) => r.username !== undefined && Username.normalize(r.username) === key);
    return row ? toUser(row) : null;
  }

  async existsWithEmail(email: string): Promise<boolean> {
    await this.io();
    const key = Email.normalize(email);
    return this.liveRows().some((r) => Email.normalize(r.email) === key);
  }

  async existsWithUsername(username: string): Promise<boolean> {
    await this.io();
    const key = Username.normalize(username);
    return this.liveRows().some((r) => r.username !== undefined && Username.normalize(r.username) === key);
  }

  async add(user: User): Promise<void> {
    await this.io();
    const row = toRow(user);
    insertInto(this.rows, row);
    this.writes.push({ kind: 'add', row });
  }

  async update(user: User): Promise<void> {
    await this.io();
    const row = toRow(user);
    updateIn(this.rows, row);
    this.writes.push({ kind: 'update', row });
    user.markSaved();
  }

  async erase(user: User): Promise<void> {
    await this.io();
    const row = toRow(user);
    eraseIn(this.rows, row);
    this.writes.push({ kind: 'erase', row });
    user.markSaved();
    await this.invitations?.deleteForUser(user.id);
  }

  async delete(user: User): Promise<void> {
    await this.io();
    const row = toRow(user);
    deleteIn(this.rows, row);
    this.writes.push({ kind: 'delete', row });
    user.markSaved();
    await this.invitations?.deleteForUser(user.id);
  }

  async countActiveWithRole(roleId: string, exceptUserId?: string): Promise<number> {
    await this.io();
    // A transaction takes a role's turn once and holds it to its end, as a row lock is held.
    if (!this.heldRoles.has(roleId)) {
      const release = await this.turns.take(roleId);
      if (this.committed) {
        this.heldRoles.add(roleId);
        this.heldTurns.push(release);
      } else release();
    }
    // A locking read: what is committed now, with this transaction's own writes over it.
    const current = new Map(this.committed ? this.committed.rows : this.rows);
    for (const write of this.writes) {
      if (write.kind === 'delete') current.delete(write.row.id);
      else if (write.kind !== 'bumpTokenVersion') current.set(write.row.id, this.rows.get(write.row.id) ?? write.row);
    }
    return [...current.values()].filter((r) => r.roleId === roleId && r.id !== exceptUserId && statusOf(r) === 'active').length;
  }

  async incrementTokenVersion(id: string): Promise<void> {
    await this.io();
    bumpTokenVersionIn(this.rows, id);
    this.writes.push({ kind: 'bumpTokenVersion', id });
  }

  async list({ offset, limit }: Slice, filter: UserListFilter = {}): Promise<{ items: User[]; total: number }> {
    await this.io();
    const ordered = this.orderedRows().filter((row) => isLive(row) && matches(row, filter));
    return { items: ordered.slice(offset, offset + limit).map(toUser), total: ordered.length };
  }

  async listAfter({ after, limit }: UserListSlice, filter: UserListFilter = {}): Promise<{ items: User[]; total: number; before: number }> {
    await this.io();
    const ordered = this.orderedRows().filter((row) => isLive(row) && matches(row, filter));
    const before = ordered.filter((row) => row.id <= after).length;
    return { items: ordered.filter((row) => row.id > after).slice(0, limit).map(toUser), total: ordered.length, before };
  }

  // ---- inspection, for assertions (synchronous: not part of the port) ----

  /** The users any read finds (erased ones are not). */
  all(): User[] {
    return this.orderedRows().filter(isLive).map(toUser);
  }

  get count(): number {
    return this.liveRows().length;
  }

  /** Every row as committed, an erased user's included (the table keeps its id). */
  get rowCount(): number {
    return this.rows.size;
  }

  byEmail(email: string): User | undefined {
    const key = Email.normalize(email);
    const row = this.liveRows().find((r) => Email.normalize(r.email) === key);
    return row ? toUser(row) : undefined;
  }

  /** What is stored of an erased user (its tombstone), or undefined when the id has no row or a live one. */
  erased(id: string): Readonly<UserProps> | undefined {
    const row = this.rows.get(id);
    return row && !isLive(row) ? row : undefined;
  }

  /** Ends the transaction of this copy: the turns it took are given back. */
  override close(): void {
    super.close();
    for (const release of this.heldTurns.splice(0)) release();
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  /** A copy that reads what is committed now; its writes stay its own until committed. */
  beginTransaction(): InMemoryUserRepository {
    const copy = new InMemoryUserRepository();
    copy.rows = new Map(this.rows);
    copy.committed = this;
    copy.turns = this.turns;
    return copy;
  }

  /**
   * Replays the copy's writes on what is committed now, so its inserts and updates are checked
   * again (a concurrent commit may have taken a key meanwhile, which is what the unique index
   * catches), and returns the step that applies them all. Throws, applying nothing, on a conflict.
   */
  prepareCommit(transaction: InMemoryUserRepository): () => void {
    const staged = new Map(this.rows);
    for (const write of transaction.writes) {
      if (write.kind === 'add') insertInto(staged, write.row);
      else if (write.kind === 'update') updateIn(staged, write.row);
      else if (write.kind === 'erase') eraseIn(staged, write.row);
      else if (write.kind === 'bumpTokenVersion') bumpTokenVersionIn(staged, write.id);
      else deleteIn(staged, write.row);
    }
    return () => {
      this.rows = staged;
    };
  }


  private liveRows(): Row[] {
    return [...this.rows.values()].filter(isLive);
  }

  private orderedRows(): Row[] {
    return [...this.rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

function insertInto(rows: Map<string, Row>, row: Row): void {
  if (rows.has(row.id)) throw new Error(`InMemoryUserRepository: duplicate primary key ${row.id}`);
  assertKeysFree(rows, row);
  rows.set(row.id, row);
}

/** The stored row `row` was read from, still at its version; throws as the adapter does otherwise. */
function currentFor(rows: Map<string, Row>, row: Row): Row {
  const current = rows.get(row.id);
  if (!current || !isLive(current)) throw new UserNotFoundError();
  if (versionOf(current) !== versionOf(row)) throw new UserChangedConcurrentlyError();
  return current;
}

/** Replaces the row read at the same version, its unique keys checked against every other row. */
function updateIn(rows: Map<string, Row>, row: Row): void {
  const current = currentFor(rows, row);
  assertKeysFree(rows, row);
  rows.set(row.id, Object.freeze({ ...row, tokenVersion: current.tokenVersion, version: versionOf(row) + 1 }));
}

/** Removes the row read at the same version, when it never joined (a revoked invitation, pending or deactivated). */
function deleteIn(rows: Map<string, Row>, row: Row): void {
  const current = currentFor(rows, row);
  if (current.joinedAt !== undefined) throw new UserChangedConcurrentlyError();
  rows.delete(row.id);
}

/** Leaves the id, role and dates; forgets the person. */
function eraseIn(rows: Map<string, Row>, row: Row): void {
  const current = currentFor(rows, row);
  rows.set(
    row.id,
    Object.freeze({
      id: row.id,
      email: '',
      roleId: row.roleId,
      invitedAt: row.invitedAt,
      invitedBy: row.invitedBy,
      joinedAt: row.joinedAt,
      updatedAt: row.updatedAt,
      updatedBy: row.updatedBy,
      tokenVersion: (current.tokenVersion ?? 0) + 1,
      status: 'deleted',
      version: versionOf(row) + 1,
    }),
  );
}

const versionOf = (row: Row): number => row.version ?? 1;
const statusOf = (row: Row) => row.status ?? (row.joinedAt !== undefined ? 'active' : 'pending');
const isLive = (row: Row): boolean => statusOf(row) !== 'deleted';

/** The filter as the adapter's SQL applies it, on the keys it stores. */
function matches(row: Row, { roleId, status, emailKey, prefix }: UserListFilter): boolean {
  const keys = [row.name === undefined ? undefined : nameSearchKey(row.name), Email.normalize(row.email), row.username === undefined ? undefined : Username.normalize(row.username)];
  return (
    (roleId === undefined || row.roleId === roleId) &&
    (status === undefined || statusOf(row) === status) &&
    (emailKey === undefined || keys[1] === emailKey) &&
    (prefix === undefined || keys.some((key) => key?.startsWith(prefix)))
  );
}

/** One turn at a time per role, each held until its transaction gives it back. */
class RoleTurns {
  private readonly tails = new Map<string, Promise<void>>();

  async take(roleId: string): Promise<() => void> {
    const before = this.tails.get(roleId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(roleId, before.then(() => mine));
    await before;
    return release;
  }
}

function bumpTokenVersionIn(rows: Map<string, Row>, id: string): void {
  const current = rows.get(id);
  if (current) rows.set(id, Object.freeze({ ...current, tokenVersion: (current.tokenVersion ?? 0) + 1 }));
}

/** What the unique indexes check: no *other* row has the e-mail or the username, in any case. */
function assertKeysFree(rows: Map<string, Row>, row: Row): void {
  const emailKey = Email.normalize(row.email);
  const usernameKey = row.username === undefined ? undefined : Username.normalize(row.username);
  for (const other of rows.values()) {
    if (other.id === row.id || !isLive(other)) continue;
    if (Email.normalize(other.email) === emailKey) throw new EmailAlreadyTakenError();
    if (usernameKey !== undefined && other.username !== undefined && Username.normalize(other.username) === usernameKey) {
      throw new UsernameAlreadyTakenError();
    }
  }
}

function toRow(user: User): Row {
  return Object.freeze(cloneProps(user.toSnapshot()));
}

function toUser(row: Row): User {
  return User.restore(cloneProps(row));
}

function cloneProps(p: Readonly<UserProps>): UserProps {
  return {
    ...p,
    invitedAt: new Date(p.invitedAt),
    joinedAt: p.joinedAt === undefined ? undefined : new Date(p.joinedAt),
    updatedAt: p.updatedAt === undefined ? undefined : new Date(p.updatedAt),
  };
}
