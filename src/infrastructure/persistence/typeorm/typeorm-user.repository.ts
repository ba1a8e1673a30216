import { type EntityManager, Not, type Repository } from 'typeorm';
import type { UserListFilter, UserRepository } from '../../../application/ports/user-repository.port';
import type { Slice } from '../../../application/shared/pagination';
import { Email } from '../../../domain/users/email';
import { User } from '../../../domain/users/user';
import { nameSearchKey } from '../../../domain/users/display-name';
import {
  EmailAlreadyTakenError,
  UserChangedConcurrentlyError,
  UserNotFoundError,
  UsernameAlreadyTakenError,
} from '../../../domain/users/user.errors';
import { Username } from '../../../domain/users/username';
import { RoleNotFoundError } from '../../../domain/roles/role-not-found.error';
import { foreignKeyViolationOn, uniqueViolationOn } from './database-errors';
import type { PlainInsertStatements } from './plain-insert-statements';
import type { SqliteWriteQueue } from './sqlite-write-queue';
import { InvitationSchema, LoginAttemptSchema, RoleSchema, type UserRecord, UserSchema } from './records';
import type { UserChangeNotices } from './user-change-notices';
import type { UncommittedTotalChanges } from './filtered-user-totals';
import type { UserReadStatements } from './user-read-statements';
import type { UserTotalCache } from './user-total-cache';

/** Below this offset a page is read directly; beyond it through the primary key only (deferred join). */
const DIRECT_OFFSET = 1000;

/** Rows a read may return: an erased user's remaining row is not one. */
const LIVE = { status: Not('deleted' as const) };

/** The services of the process every user repository shares, whichever manager it is on. */
export interface UserPersistenceServices {
  userReadStatements: UserReadStatements;
  userTotalCache: UserTotalCache;
  userChangeNotices: UserChangeNotices;
  plainInsertStatements: PlainInsertStatements;
  /** Outside a transaction, every statement takes its turn on SQLite's one connection. */
  sqliteWriteQueue: SqliteWriteQueue;
}

export interface TypeOrmUserRepositoryDeps extends UserPersistenceServices {
  /** The data source's manager, or a transaction's (bound to its connection). */
  manager: EntityManager;
}

export class TypeOrmUserRepository implements UserRepository {
  private readonly manager: EntityManager;
  private readonly repository: Repository<UserRecord>;
  private readonly reads: UserReadStatements;
  private readonly total: UserTotalCache;
  private readonly changes: UserChangeNotices;
  private readonly inserts: PlainInsertStatements;
  private readonly queue: SqliteWriteQueue;

  constructor(deps: TypeOrmUserRepositoryDeps) {
    this.manager = deps.manager;
    this.repository = deps.manager.getRepository(UserSchema);
    this.reads = deps.userReadStatements;
    this.total = deps.userTotalCache;
    this.changes = deps.userChangeNotices;
    this.inserts = deps.plainInsertStatements;
    this.queue = deps.sqliteWriteQueue;
  }

  /** Users added minus users removed through this repository inside its transaction, not yet committed. */
  uncommittedUserDelta = 0;

  /** What this repository wrote inside its transaction that moves the filtered totals, not yet committed. */
  readonly uncommittedTotalChanges: UncommittedTotalChanges = { added: [], changed: false };

  /** A manager of the unit of work's transaction (bound to its connection), not the shared one. */
  private get inTransaction(): boolean {
    return this.manager.queryRunner !== undefined;
  }

  /** Outside a transaction the write is committed: the cached total moves now; inside, at commit (TypeOrmUnitOfWork). NaN: unknown. */
  private counted(delta: number): void {
    if (this.inTransaction) this.uncommittedUserDelta += delta;
    else this.total.adjust(delta);
  }

  /** The same for the filtered totals: `roleId` for a user added, none for any other write (status, role, removal). */
  private filteredTotalsMoved(roleId?: string): void {
    const changes = this.inTransaction ? this.uncommittedTotalChanges : { added: [], changed: false };
    if (roleId === undefined) changes.changed = true;
    else changes.added.push(roleId);
    if (!this.inTransaction) this.total.filtered.committed(changes);
  }

  async findById(id: string): Promise<User | null> {
    return this.queue.outside(this.manager, async () => {
      // Outside a transaction, concurrent look-ups (every authenticated request reads its user) share
      // round trips; inside one, the read must run on the transaction's connection.
      const record = this.inTransaction ? await this.reads.byId(this.manager, id) : await this.reads.byIdBatched(id);
      return record && record.status !== 'deleted' ? toDomain(record) : null;
    });
  }

  async findByUsername(username: string): Promise<User | null> {
    return this.queue.outside(this.manager, async () => {
      const record = await this.reads.byUsernameKey(this.manager, Username.normalize(username));
      return record && record.status !== 'deleted' ? toDomain(record) : null;
    });
  }

  async existsWithEmail(email: string): Promise<boolean> {
    return this.queue.outside(this.manager, () => this.repository.exists({ where: { emailKey: Email.normalize(email) } }));
  }

  async existsWithUsername(username: string): Promise<boolean> {
    return this.queue.outside(this.manager, () => this.repository.exists({ where: { usernameKey: Username.normalize(username) } }));
  }

  async add(user: User): Promise<void> {
    return this.queue.outside(this.manager, async () => {
      try {
        await this.inserts.insert(this.manager, UserSchema, [toRecord(user)]);
        this.counted(+1);
        this.filteredTotalsMoved(user.roleId);
      } catch (error) {
        throw refusedWriteError(error, user);
      }
    });
  }

  async update(user: User): Promise<void> {
    return this.queue.outside(this.manager, async () => {
      // The token version is left out: only incrementTokenVersion moves it, atomically. The version
      // condition is checked on the row as committed now (an UPDATE reads the latest, not a snapshot).
      const { tokenVersion: _ignored, version, ...record } = toRecord(user);
      let affected: number | undefined;
      try {
        ({ affected } = await this.repository.update({ id: user.id, version, ...LIVE }, { ...record, version: () => 'version + 1' }));
      } catch (error) {
        throw refusedWriteError(error, user);
      }
      await this.saved(user, affected);
      this.filteredTotalsMoved();
    });
  }

  async erase(user: User): Promise<void> {
    return this.queue.outside(this.manager, async () => {
      const { affected } = await this.repository.update(
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
          roleId: user.roleId,
          updatedAt: user.updatedAt ?? null,
          updatedBy: user.updatedBy ?? null,
          version: () => 'version + 1',
          tokenVersion: () => 'token_version + 1',
        },
      );
      await this.saved(user, affected);
      await this.manager.getRepository(InvitationSchema).delete({ userId: user.id });
      // The sign-in counters are kept under the lower-cased username: personal data too.
      if (user.username !== undefined) {
        await this.manager.getRepository(LoginAttemptSchema).delete({ usernameKey: Username.normalize(user.username) });
      }
      this.counted(-1);
      this.filteredTotalsMoved();
    });
  }
  async delete(user: User): Promise<void> {
    return this.queue.outside(this.manager, async () => {
      // A DELETE reads the row as committed now: an acceptance that committed meanwhile moved the version on.
      const { affected } = await this.repository.delete({ id: user.id, version: user.version, status: 'pending' });
      await this.saved(user, affected ?? undefined);
      // The foreign key cascades on MySQL and MariaDB; said outright, it holds wherever keys are not enforced.
      await this.manager.getRepository(InvitationSchema).delete({ userId: user.id });
      // A driver that does not say how many rows went (affected undefined) makes the total unknown.
      this.counted(typeof affected === 'number' ? -affected : Number.NaN);
      this.filteredTotalsMoved();
    });
  }

  async incrementTokenVersion(id: string): Promise<void> {
    return this.queue.outside(this.manager, async () => {
      await this.repository.increment({ id }, 'tokenVersion', 1);
      this.changes.notify(id);
    });
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

  async list(slice: Slice, filter: UserListFilter = {}): Promise<{ items: User[]; total: number }> {
    if (Object.values(filter).some((value) => value !== undefined)) return this.listFiltered(slice, filter);
    return this.listAll(slice);
  }

  /**
   * A role and/or status filter's total comes from the filtered totals (filtered-user-totals.ts: the whole
   * list's freshness rules), outside a transaction. An e-mail or prefix filter's (a handful of index entries at
   * most) is counted in the page's own statement; past the end of the matches, by a count of its own. Outside a
   * transaction, identical pages asked for at once share that statement (never a cache, as every page).
   */
  private async listFiltered({ offset, limit }: Slice, filter: UserListFilter): Promise<{ items: User[]; total: number }> {
    return this.queue.outside(this.manager, async () => {
      const count = () => this.reads.filteredCount(this.manager, filter);
      if (!this.inTransaction && filter.emailKey === undefined && filter.prefix === undefined) {
        const total = await this.total.filtered.get({ roleId: filter.roleId, status: filter.status }, count);
        if (offset >= total) return { items: [], total };
        // Identical pages asked for at once share one query (never a cache), as the whole list's do.
        const records = await this.reads.filteredPageBatched(filter, offset, limit);
        return { items: records.map(toDomain), total };
      }
      const { records, total } = this.inTransaction
        ? await this.reads.filteredPageCounted(this.manager, filter, offset, limit)
        : await this.reads.filteredPageCountedBatched(filter, offset, limit);
      return { items: records.map(toDomain), total: total ?? (offset === 0 ? 0 : await count()) };
    });
  }

  private async listAll({ offset, limit }: Slice): Promise<{ items: User[]; total: number }> {
    return this.queue.outside(this.manager, async () => {
      // The total comes from a cache (see user-total-cache.ts for its freshness), not a COUNT(*) per request;
      // inside a transaction it is counted there (its uncommitted rows are not the process's to cache).
      const count = () => this.repository.count({ where: LIVE });
      const total = this.inTransaction ? await count() : await this.total.get(count);
      if (offset >= total) return { items: [], total };
      if (offset < DIRECT_OFFSET) {
        const records = this.inTransaction
          ? await this.reads.page(this.manager, offset, limit)
          : await this.reads.pageBatched(offset, limit);
        return { items: records.map(toDomain), total };
      }
      // Deep page: the offset is walked on ids only (deferred join), from whichever end is nearer,
      // then only the page's rows are read. From the end, the page is placed with the same total the
      // response reports.
      const fromEnd = total - offset - limit;
      const backwards = fromEnd < offset;
      const ids = await this.reads.pageIds(
        this.manager,
        backwards ? Math.max(0, fromEnd) : offset,
        backwards ? limit + Math.min(0, fromEnd) : limit,
        backwards,
      );
      if (ids.length === 0) return { items: [], total };
      const records = await this.reads.byIds(this.manager, ids);
      return { items: records.map(toDomain), total };
    });
  }

  /** After a version-checked write: moves the user's version on, or says why no row matched. */
  private async saved(user: User, affected: number | undefined): Promise<void> {
    if (affected === 0) {
      const exists = await this.repository.exists({ where: { id: user.id, ...LIVE } });
      throw exists ? new UserChangedConcurrentlyError() : new UserNotFoundError();
    }
    user.markSaved();
    this.changes.notify(user.id);
  }
}

/** A write a key refused, as the domain says it: an address or username taken, or a role deleted since it was read. */
function refusedWriteError(error: unknown, user: User): unknown {
  const index = uniqueViolationOn(error);
  if (index?.includes('email')) return new EmailAlreadyTakenError();
  if (index?.includes('username')) return new UsernameAlreadyTakenError();
  // The user's role is its row's one foreign key (SQLite does not name it): a role deleted meanwhile.
  const reference = foreignKeyViolationOn(error);
  const roleGone = reference !== null && reference.kind !== 'still-referenced' && (reference.constraint === '' || reference.constraint.includes('role'));
  if (roleGone) return new RoleNotFoundError(user.roleId);
  return error;
}

/** Only rows of users not erased reach here: they have an e-mail. */
function toDomain(r: UserRecord): User {
  return User.restore({
    id: r.id,
    email: r.email ?? '',
    name: r.name ?? undefined,
    username: r.username ?? undefined,
    passwordHash: r.passwordHash ?? undefined,
    roleId: r.roleId,
    invitedAt: r.invitedAt,
    invitedBy: r.invitedBy ?? undefined,
    joinedAt: r.joinedAt ?? undefined,
    updatedAt: r.updatedAt ?? undefined,
    updatedBy: r.updatedBy ?? undefined,
    tokenVersion: r.tokenVersion ?? 0,
    status: r.status === 'deleted' ? 'deleted' : r.status,
    version: r.version,
  });
}

export function toRecord(user: User): UserRecord {
  const u = user.toSnapshot();
  return {
    id: u.id,
    email: u.email,
    emailKey: Email.normalize(u.email),
    name: u.name ?? null,
    nameKey: u.name === undefined ? null : nameSearchKey(u.name),
    username: u.username ?? null,
    usernameKey: u.username === undefined ? null : Username.normalize(u.username),
    passwordHash: u.passwordHash ?? null,
    roleId: u.roleId,
    invitedAt: u.invitedAt,
    invitedBy: u.invitedBy ?? null,
    joinedAt: u.joinedAt ?? null,
    updatedAt: u.updatedAt ?? null,
    updatedBy: u.updatedBy ?? null,
    tokenVersion: u.tokenVersion ?? 0,
    status: user.status,
    version: user.version,
  };
}
