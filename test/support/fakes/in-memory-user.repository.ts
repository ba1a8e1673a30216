import type { UserRepository } from '../../../src/application/ports/user-repository.port';
import type { Slice } from '../../../src/application/shared/pagination';
import { Email } from '../../../src/domain/users/email';
import { User, type UserProps } from '../../../src/domain/users/user';
import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { Username } from '../../../src/domain/users/username';
import { ioBoundary } from './io-boundary';

type Row = Readonly<UserProps>;

/**
 * Users kept as rows (snapshots), not as live objects: what comes out is a fresh `User`, as
 * a database read would be, and pending domain events never survive a save.
 * Unique keys are the e-mail and the username, both case-insensitive, like the real indexes.
 */
export class InMemoryUserRepository implements UserRepository {
  private rows = new Map<string, Row>();
  /** Ids added through this instance: what a transactional copy hands to `commit`. */
  private readonly added: string[] = [];
  private closed = false;

  constructor(users: readonly User[] = []) {
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
    this.added.push(row.id);
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
   * Checks that the copy's inserts still fit (a concurrent commit may have taken a key meanwhile,
   * which is what the unique index catches) and returns the step that applies them all.
   */
  prepareCommit(transaction: InMemoryUserRepository): () => void {
    const staged = new Map(this.rows);
    for (const id of transaction.added) insertInto(staged, transaction.rows.get(id)!);
    return () => {
      this.rows = staged;
    };
  }

  close(): void {
    this.closed = true;
  }

  private async io(): Promise<void> {
    await ioBoundary();
    if (this.closed) throw new Error('InMemoryUserRepository: used after its transaction ended');
  }

  private orderedRows(): Row[] {
    return [...this.rows.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

function insertInto(rows: Map<string, Row>, row: Row): void {
  if (rows.has(row.id)) throw new Error(`InMemoryUserRepository: duplicate primary key ${row.id}`);
  const emailKey = Email.normalize(row.email);
  const usernameKey = row.username === undefined ? undefined : Username.normalize(row.username);
  for (const other of rows.values()) {
    if (Email.normalize(other.email) === emailKey) throw new EmailAlreadyTakenError();
    if (usernameKey !== undefined && other.username !== undefined && Username.normalize(other.username) === usernameKey) {
      throw new UsernameAlreadyTakenError();
    }
  }
  rows.set(row.id, row);
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
