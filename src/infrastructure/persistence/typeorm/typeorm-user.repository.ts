import { type EntityManager, IsNull, Not, type Repository } from 'typeorm';
import type { UserListFilter, UserListSlice, UserRepository } from '../../../application/ports/user-repository.port';
import { SearchTooBroadError } from '../../../application/users/list-users.errors';
import type { Slice } from '../../../application/shared/pagination';
import { Email } from '../../../domain/users/email';
import type { User } from '../../../domain/users/user';
import { UserChangedConcurrentlyError, UserNotFoundError } from '../../../domain/users/user.errors';
import { Username } from '../../../domain/users/username';
import type { PlainInsertStatements } from './plain-insert-statements';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { InvitationSchema, LoginAttemptSchema, RoleSchema, type UserRecord, UserSchema } from './records';
import { retryDeadlocks } from './deadlock-retry';
import { bumpRevocationEpoch } from './revocation-epochs';
import type { UserChangeNotices } from './user-change-notices';
import { applyListChanges, type ListChange } from './user-list-bucket-writes';
import { type CountKey, countKeyOf } from './user-list-buckets';
import type { UserListIndex } from './user-list-index';
import type { IndexedFilter, UserPageStatements } from './user-page-statements';
import type { UserReadStatements } from './user-read-statements';
import { refusedWriteError, toDomain, toRecord } from './user-record-mapping';
import { isStatementTimeout } from './search-time-limit';
import type { LoginAttemptKeys } from './login-attempt-key';
import { SEEDED_ROLES } from '../migrations/1763700000000-initial-schema';

export { toRecord } from './user-record-mapping';

/** Rows a read may return: an erased user's remaining row is not one. */
const LIVE = { status: Not('deleted' as const) };

/** Placements of a page tried against the index before the page is counted and read directly (writes outran reads). */
const PLACEMENT_ATTEMPTS = 3;

/** The services of the process every user repository shares, whichever manager it is on. */
export interface UserPersistenceServices {
  userReadStatements: UserReadStatements;
  /** The list's pages, placed by the page index (user-list-buckets.ts). */
  userPageStatements: UserPageStatements;
  /** This process's copy of the page index's counts. */
  userListIndex: UserListIndex;
  userChangeNotices: UserChangeNotices;
  plainInsertStatements: PlainInsertStatements;
  /** Outside a transaction, every statement takes its turn on SQLite's one connection. */
  sqliteWriteQueue: SqliteWriteQueue;
  /** Where a user's sign-in counters are, to erase them with the user. */
  loginAttemptKeys: LoginAttemptKeys;
}

export interface TypeOrmUserRepositoryDeps extends UserPersistenceServices {
  /** The data source's manager, or a transaction's (bound to its connection). */
  manager: EntityManager;
}

/** A page of the list, its total, and (a cursor's page) how many matches come at or before the cursor. */
type Listed = { items: User[]; total: number; before: number };

export class TypeOrmUserRepository implements UserRepository {
  private readonly manager: EntityManager;
  private readonly repository: Repository<UserRecord>;
  private readonly reads: UserReadStatements;
  private readonly pages: UserPageStatements;
  private readonly index: UserListIndex;
  private readonly changes: UserChangeNotices;
  private readonly inserts: PlainInsertStatements;
  private readonly queue: SqliteWriteQueue;
  private readonly loginAttemptKeys: LoginAttemptKeys;

  constructor(deps: TypeOrmUserRepositoryDeps) {
    this.manager = deps.manager;
    this.repository = deps.manager.getRepository(UserSchema);
    this.reads = deps.userReadStatements;
    this.pages = deps.userPageStatements;
    this.index = deps.userListIndex;
    this.changes = deps.userChangeNotices;
    this.inserts = deps.plainInsertStatements;
    this.queue = deps.sqliteWriteQueue;
    this.loginAttemptKeys = deps.loginAttemptKeys;
  }

  /** What this repository wrote inside its transaction that moves the page index: written into it by flushListChanges. */
  private readonly uncommittedListChanges: ListChange[] = [];

  /** A manager of the unit of work's transaction (bound to its connection), not the shared one. */
  private get inTransaction(): boolean {
    return this.manager.queryRunner !== undefined;
  }

  /** Writes what the transaction changed into the page index, on its connection: the unit of work calls it last, before the commit. */
  async flushListChanges(): Promise<void> {
    this.index.tail.noteAdded(await applyListChanges(this.manager, this.uncommittedListChanges.splice(0)));
  }

  async findById(id: string): Promise<User | null> {
    return this.queue.outside(this.manager, async () => {
      // Outside a transaction, concurrent look-ups (every authenticated request reads its user) share
      // round trips; inside one, the read must run on the transaction's connection.
      const record = this.inTransaction ? await this.reads.byId(this.manager, id) : await this.reads.byIdBatched(id);
      return record && record.status !== 'deleted' ? toDomain(record) : null;
    });
  }

  async findForChange(id: string): Promise<User | null> {
    if (!this.inTransaction) return this.findById(id);
    const record = await this.reads.byIdLocked(this.manager, id);
    return record && record.status !== 'deleted' ? toDomain(record) : null;
  }

  async findByUsername(username: string): Promise<User | null> {
    return this.queue.outside(this.manager, async () => {
      const key = Username.normalize(username);
      const record = await this.reads.byUsernameKey(this.manager, key);
      // MariaDB's and MySQL's utf8mb4_bin pad: `bob   ` = `bob`. The key must be the one asked for, byte for byte, as on
      // SQLite: else every spacing of a name would be an account's own lockout counter with the account's password.
      return record && record.status !== 'deleted' && record.usernameKey === key ? toDomain(record) : null;
    });
  }

  async existsWithEmail(email: string): Promise<boolean> {
    return this.queue.outside(this.manager, () => this.repository.exists({ where: { emailKey: Email.normalize(email) } }));
  }

  async existsWithUsername(username: string): Promise<boolean> {
    return this.queue.outside(this.manager, () => this.repository.exists({ where: { usernameKey: Username.normalize(username) } }));
  }

  async add(user: User): Promise<void> {
    await this.written(async (manager, listChanges) => {
      try {
        await this.inserts.insert(manager, UserSchema, [toRecord(user)]);
      } catch (error) {
        throw refusedWriteError(error, user);
      }
      listChanges.push({ id: user.id, to: countKeyOf(user.roleId, user.status) });
    });
  }

  async update(user: User): Promise<void> {
    await this.written(async (manager, listChanges, settled) => {
      // The token version is left out: only incrementTokenVersion moves it, atomically. The version
      // condition is checked on the row as committed now (an UPDATE reads the latest, not a snapshot).
      const { tokenVersion: _ignored, version, ...record } = toRecord(user);
      const before = await this.countedAs(manager, user.id);
      let affected: number | undefined;
      try {
        ({ affected } = await manager.getRepository(UserSchema).update({ id: user.id, version, ...LIVE }, { ...record, version: () => 'version + 1' }));
      } catch (error) {
        throw refusedWriteError(error, user);
      }
      await this.saved(user, affected, manager, settled);
      if (before) listChanges.push({ id: user.id, from: before, to: countKeyOf(user.roleId, user.status) });
    });
  }

  async erase(user: User): Promise<void> {
    await this.written(async (manager, listChanges, settled) => {
      const before = await this.countedAs(manager, user.id);
      const { affected } = await manager.getRepository(UserSchema).update(
        { id: user.id, version: user.version, ...LIVE },
        {
          email: null,
          emailKey: null,
          name: null,
          nameKey: null,
          username: null,
          usernameKey: null,
          passwordHash: null,
          status: 'deleted',
          // The built-in member role, whatever it held: the foreign key wants one, nothing reads it, and a custom role's
          // deletion then has no erased rows to move (ErasedRowsKeepMember1767100000000).
          roleId: SEEDED_ROLES.member,
          updatedAt: user.updatedAt ?? null,
          updatedBy: user.updatedBy ?? null,
          version: () => 'version + 1',
          tokenVersion: () => 'token_version + 1',
        },
      );
      await this.saved(user, affected, manager, settled);
      await manager.getRepository(InvitationSchema).delete({ userId: user.id });
      // The sign-in counters, under their key of the lower-cased username: personal data too.
      if (user.username !== undefined) {
        await manager.getRepository(LoginAttemptSchema).delete({ usernameKey: this.loginAttemptKeys.of(Username.normalize(user.username)) });
      }
      if (before) listChanges.push({ id: user.id, from: before, to: countKeyOf(user.roleId, 'deleted') });
    });
  }

  async delete(user: User): Promise<void> {
    await this.written(async (manager, listChanges, settled) => {
      const before = await this.countedAs(manager, user.id);
      // A DELETE reads the row as committed now: an acceptance that committed meanwhile moved the version on. Only
      // an invitee that never joined goes, pending or deactivated (its invitation is withdrawn all the same).
      const { affected } = await manager.getRepository(UserSchema).delete({ id: user.id, version: user.version, joinedAt: IsNull() });
      await this.saved(user, affected ?? undefined, manager, settled);
      // The foreign key cascades on MySQL and MariaDB; said outright, it holds wherever keys are not enforced.
      await manager.getRepository(InvitationSchema).delete({ userId: user.id });
      // A driver that does not say how many rows went: whether the row is still there says it.
      const gone = typeof affected === 'number' ? affected > 0 : !(await manager.getRepository(UserSchema).exists({ where: { id: user.id } }));
      if (before && gone) listChanges.push({ id: user.id, from: before });
    });
  }

  async incrementTokenVersion(id: string): Promise<void> {
    // With its revocation epoch, in one transaction (the unit of work's, or one of its own).
    await this.written(async (manager) => {
      await manager.getRepository(UserSchema).increment({ id }, 'tokenVersion', 1);
      await bumpRevocationEpoch(manager, id);
    });
    this.changes.notify(id);
  }

  async countActiveWithRole(roleId: string, exceptUserId = ''): Promise<number> {
    return this.queue.outside(this.manager, async () => {
      const { driver } = this.manager.connection;
      if (!['mysql', 'mariadb'].includes(driver.options.type)) {
        // SQLite: transactions take turns (SqliteWriteQueue), so what this one reads is the latest.
        return this.repository.count({ where: { roleId, status: 'active', id: Not(exceptUserId) } });
      }
      // The role's row is the turn; the count then reads locking, so it sees what is committed now
      // rather than this transaction's snapshot.
      const q = (name: string) => driver.escape(name);
      await this.manager.query(`SELECT ${q('id')} FROM ${q(this.manager.connection.getMetadata(RoleSchema).tableName)} WHERE ${q('id')} = ? FOR UPDATE`, [roleId]);
      const rows = (await this.manager.query(
        `SELECT COUNT(*) AS n FROM ${q('users')} WHERE ${q('role_id')} = ? AND ${q('status')} = 'active' AND ${q('id')} <> ? LOCK IN SHARE MODE`,
        [roleId, exceptUserId],
      )) as { n: number | string }[];
      return Number(rows[0]?.n ?? 0);
    });
  }

  async list({ offset, limit }: Slice, filter: UserListFilter = {}): Promise<{ items: User[]; total: number }> {
    return this.queue.outside(this.manager, () => searchWithin(async () => {
      const { items, total } = this.placeable(filter)
        ? await this.listPlaced(offset, limit, { roleId: filter.roleId, status: filter.status })
        : await this.listCounted(offset, limit, filter);
      return { items, total };
    }));
  }

  async listAfter({ after, limit }: UserListSlice, filter: UserListFilter = {}): Promise<Listed> {
    return this.queue.outside(this.manager, () => searchWithin(async () => {
      if (this.placeable(filter)) {
        const indexed = { roleId: filter.roleId, status: filter.status };
        await this.index.ready();
        for (let attempt = 0; attempt < PLACEMENT_ATTEMPTS; attempt++) {
          const bucket = this.index.bucketOf(indexed, after, limit);
          // The page past the cursor, with how many matches the cursor's bucket holds up to the cursor and the
          // revision, in one statement: the position of the cursor, and the page's bound above, are exact when the
          // revision is the index copy's.
          const { records, before, revision } = await this.pages.after(this.manager, indexed, bucket, after, limit);
          if (revision !== bucket.revision) {
            await this.index.refresh();
            continue;
          }
          return { items: records.map(toDomain), total: bucket.total, before: bucket.before + before };
        }
      }
      const { records, total, before } = await this.pages.afterCounted(this.manager, filter, after, limit);
      return { items: records.map(toDomain), total, before };
    }));
  }

  /**
   * Whether the page index places this list: the whole list, a role and/or a status, outside a transaction (the
   * index copy is of committed rows; a transaction's own uncommitted ones are counted where it reads). An e-mail
   * (one user at most) or a prefix search (no index counts every prefix) is counted in the page's own statement.
   */
  private placeable(filter: UserListFilter): boolean {
    return !this.inTransaction && filter.emailKey === undefined && filter.prefix === undefined;
  }

  /**
   * A page placed by the page index: its bucket found by the running counts of this process's copy, then a seek
   * from the bucket's first id over at most a bucket's rows. The page's statement reads the index revision: a page
   * of another revision than the copy's makes the copy read what changed and the page be placed again.
   */
  private async listPlaced(offset: number, limit: number, filter: IndexedFilter): Promise<{ items: User[]; total: number }> {
    await this.index.ready();
    for (let attempt = 0; attempt < PLACEMENT_ATTEMPTS; attempt++) {
      const placed = this.index.place(filter, offset, limit);
      if (placed.start === null) {
        if ((await this.pages.revision(this.manager)) === placed.revision) return { items: [], total: placed.total };
      } else {
        const page = await this.pages.seekBatched(filter, { start: placed.start, end: placed.end, gaps: placed.gaps }, placed.skip, limit);
        if (page.revision === placed.revision) return { items: page.records.map(toDomain), total: placed.total };
      }
      await this.index.refresh();
    }
    return this.listCounted(offset, limit, filter);
  }

  /** A page and its total counted in one statement over every match (COUNT(*) OVER ()); past the end, by a count of its own. */
  private async listCounted(offset: number, limit: number, filter: UserListFilter): Promise<{ items: User[]; total: number }> {
    if (filter.emailKey !== undefined && offset > 0 && !this.inTransaction) {
      // An e-mail matches one user at most (email_key is unique): every later page is past the end, with the first
      // page's total. Those pages read the first match alone, whatever their number, so deep pages asked for at once
      // share one statement as page 1's requests do.
      const { total } = await this.reads.filteredPageCountedBatched(filter, 0, 1);
      return { items: [], total: total ?? 0 };
    }
    const { records, total } = this.inTransaction
      ? await this.reads.filteredPageCounted(this.manager, filter, offset, limit)
      : await this.reads.filteredPageCountedBatched(filter, offset, limit);
    return { items: records.map(toDomain), total: total ?? (offset === 0 ? 0 : await this.reads.filteredCount(this.manager, filter)) };
  }

  /**
   * A write and the page index's counts it moves, in one transaction: the unit of work's (the counts written at its
   * end, flushListChanges), or one of its own.
   */
  private written(work: (manager: EntityManager, listChanges: ListChange[], settled: (() => void)[]) => Promise<void>): Promise<void> {
    return this.queue.outside(this.manager, async () => {
      const settled: (() => void)[] = [];
      if (this.inTransaction) {
        await work(this.manager, this.uncommittedListChanges, settled);
        for (const settle of settled) settle();
        return;
      }
      // A deadlock's victim runs again whole (every row it writes is built inside it); what it does to the
      // aggregates it was handed waits for the commit, so a second attempt finds them as the first did.
      const added = await retryDeadlocks(() =>
        this.manager.transaction(async (manager) => {
          const listChanges: ListChange[] = [];
          settled.length = 0;
          await work(manager, listChanges, settled);
          return applyListChanges(manager, listChanges);
        }),
      );
      for (const settle of settled) settle();
      this.index.tail.noteAdded(added);
    });
  }

  /** What the user's row is counted as in the page index now, read locking (the latest committed) on MySQL and MariaDB. */
  private async countedAs(manager: EntityManager, id: string): Promise<CountKey | null> {
    const lock = ['mysql', 'mariadb'].includes(manager.connection.driver.options.type) ? ' FOR UPDATE' : '';
    const [row] = (await manager.query(`SELECT role_id, status FROM users WHERE id = ?${lock}`, [id])) as { role_id: string; status: string }[];
    return row ? countKeyOf(row.role_id, row.status) : null;
  }

  /** After a version-checked write: moves the user's version on, or says why no row matched. */
  private async saved(user: User, affected: number | undefined, manager: EntityManager, settled: (() => void)[]): Promise<void> {
    if (affected === 0) {
      const exists = await manager.getRepository(UserSchema).exists({ where: { id: user.id, ...LIVE } });
      throw exists ? new UserChangedConcurrentlyError() : new UserNotFoundError();
    }
    // Every replica's caches drop the user once they see its shard's epoch move (revocation-watch.ts).
    await bumpRevocationEpoch(manager, user.id);
    settled.push(() => {
      user.markSaved();
      this.changes.notify(user.id);
    });
  }
}

/** A list whose prefix search ran past SEARCH_TIME_LIMIT (search-time-limit.ts) is refused as too broad. */
async function searchWithin<T>(list: () => Promise<T>): Promise<T> {
  try {
    return await list();
  } catch (error) {
    if (isStatementTimeout(error)) throw new SearchTooBroadError();
    throw error;
  }
}
