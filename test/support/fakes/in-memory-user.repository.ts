import type { UserRepository } from '../../../src/application/ports/user-repository.port';
import type { Slice } from '../../../src/application/shared/pagination';
import { Email } from '../../../src/domain/users/email';
import { User, type UserProps } from '../../../src/domain/users/user';
import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { Username } from '../../../src/domain/users/username';
import { TransactionalFake } from './transactional-fake';

type Row = Readonly<UserProps>;

/** A write made through a transactional copy, replayed (and so re-checked) on commit. */
type Write =
  | { kind: 'add'; row: Row }
  | { kind: 'update'; row: Row }
  | { kind: 'delete'; id: string }
  | { kind: 'bumpTokenVersion'; id: string };

/**
 * Users kept as rows (snapshots), not as live objects: what comes out is a fresh `User`, as
 * a database read would be, and pending domain events never survive a save.
 * Unique keys are the e-mail and the username, both case-insensitive, like the real indexes.
 * `update` and `delete` of a missing id change nothing, as an UPDATE or DELETE matching no row.
 * `update` never writes the token version; `incrementTokenVersion` bumps it on the row committed at
 * the time (replayed on commit like `SET token_version = token_version + 1`), so no bump is lost.
 */
export class InMemoryUserRepository extends TransactionalFake implements UserRepository {
  private rows = new Map<string, Row>();
  /** Writes made through this instance, in order: what a transactional copy hands to `commit`. */
  private readonly writes: Write[] = [];

  constructor(users: readonly User[] = []) {
    super();
    this.seed(...users);
  }

  /** Arranges existing users directly, without a transaction (test setup only). */
  seed(...users: User[]): void {
    for (const user of users) insertInto(this.rows, toRow(user));
  }

  async findById(id: string): Promise<User | null> {
    await this.io();
    const row = this.rows.get(id);
    return row ? toUser(row) : null;
  }

  async findByUsername(username: string): Promise<User | null> {
    await this.io();
    const key = Username.normalize(username);
    const row = [...this.rows.values()].find((r) => r.username !== undefined && Username.normalize(r.username) === key);
    return row ? toUser(row) : null;
  }

  async existsWithEmail(email: string): Promise<boolean> {
    await this.io();
    const key = Email.normalize(email);
    return [...this.rows.values()].some((r) => Email.normalize(r.email) === key);
  }

  async existsWithUsername(username: string): Promise<boolean> {
    await this.io();
    const key = Username.normalize(username);
    return [...this.rows.values()].some((r) => r.username !== undefined && Username.normalize(r.username) === key);
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
  }

  async delete(id: string): Promise<void> {
    await this.io();
    this.rows.delete(id);
    this.writes.push({ kind: 'delete', id });
  }

  async incrementTokenVersion(id: string): Promise<void> {
    await this.io();
    bumpTokenVersionIn(this.rows, id);
    this.writes.push({ kind: 'bumpTokenVersion', id });
  }

  async list({ offset, limit }: Slice): Promise<{ items: User[]; total: number }> {
    await this.io();
    const ordered = this.orderedRows();
    return { items: ordered.slice(offset, offset + limit).map(toUser), total: ordered.length };
  }

  // ---- inspection, for assertions (synchronous: not part of the port) ----

  all(): User[] {
    return this.orderedRows().map(toUser);
  }

  get count(): number {
    return this.rows.size;
  }

  byEmail(email: string): User | undefined {
    const key = Email.normalize(email);
    const row = [...this.rows.values()].find((r) => Email.normalize(r.email) === key);
    return row ? toUser(row) : undefined;
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  /** A copy that reads what is committed now; its writes stay its own until committed. */
  beginTransaction(): InMemoryUserRepository {
    const copy = new InMemoryUserRepository();
    copy.rows = new Map(this.rows);
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
      else if (write.kind === 'bumpTokenVersion') bumpTokenVersionIn(staged, write.id);
      else staged.delete(write.id);
    }
    return () => {
      this.rows = staged;
    };
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

/** Replaces an existing row, its unique keys checked against every other row; no row, no change. */
function updateIn(rows: Map<string, Row>, row: Row): void {
  const current = rows.get(row.id);
  if (!current) return;
  assertKeysFree(rows, row);
  rows.set(row.id, Object.freeze({ ...row, tokenVersion: current.tokenVersion }));
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
    if (other.id === row.id) continue;
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
