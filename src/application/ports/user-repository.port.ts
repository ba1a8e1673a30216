import type { User, UserStatus } from '../../domain/users/user';
import type { Slice } from '../shared/pagination';

/**
 * What the user list is narrowed to: every field given must hold (AND); none given is the whole list.
 * Values arrive validated and in the stored keys' form (lower-cased, as `Email.normalize`,
 * `Username.normalize` and `nameSearchKey` make them).
 */
export interface UserListFilter {
  roleId?: string;
  status?: UserStatus;
  /** An e-mail's key (`Email.normalize`), matched exactly. */
  emailKey?: string;
  /** Non-empty, lower-cased: the name key, e-mail key or username key starts with it (code point by code point, no wildcards). */
  prefix?: string;
}

/**
 * Users as stored. A deleted user is erased (see `erase`): no read finds it, and its e-mail and
 * username are free again; only its id stays, for the records that name it (`invited_by`, `updated_by`).
 */
export interface UserRepository {
  findById(id: string): Promise<User | null>;
  /**
   * Inside a unit of work: the user to change, read as committed now and held until the transaction ends, so that
   * concurrent changes without a version of their caller's (If-Match) take turns and each builds on the one before
   * rather than failing `update`'s version check. Outside one: as `findById`.
   */
  findForChange(id: string): Promise<User | null>;
  /** By username, compared case-insensitively. */
  findByUsername(username: string): Promise<User | null>;
  /** Whether a user, pending or joined, has this e-mail, compared case-insensitively. */
  existsWithEmail(email: string): Promise<boolean>;
  existsWithUsername(username: string): Promise<boolean>;
  /** Adds a new user; throws EmailAlreadyTakenError / UsernameAlreadyTakenError on a duplicate. */
  add(user: User): Promise<void>;
  /**
   * Saves a changed user if the stored one is still at `user.version` (optimistic concurrency), moving
   * the stored version and `user.version` on by one. Throws UserChangedConcurrentlyError when another
   * save came first (nothing is written), UserNotFoundError when the user is gone (deleted, erased),
   * EmailAlreadyTakenError / UsernameAlreadyTakenError when its e-mail or username belongs to another
   * user. Never writes the token version (see `incrementTokenVersion`).
   */
  update(user: User): Promise<void>;
  /**
   * Erases a user whose `delete()` was recorded, under the same version check as `update`: name,
   * e-mail, username and password hash are forgotten (the e-mail and the username are free again), its
   * invitation is deleted, its token version is bumped, and only the id and what other records need
   * (dates, `updated_by`) stay; the row holds the built-in member role from then on, whatever it held. From then on
   * no read finds it.
   */
  erase(user: User): Promise<void>;
  /**
   * Removes a pending user's row outright (a revoked invitation), and with it the user's invitation
   * (as the foreign key's ON DELETE CASCADE does), under the same version check as `update`: only a
   * user still pending at `user.version` goes. Throws UserChangedConcurrentlyError when it changed
   * meanwhile (joined, re-sent, deactivated: nothing is removed), UserNotFoundError when it is gone.
   */
  delete(user: User): Promise<void>;
  /**
   * Atomically bumps the user's token version (sign-out, deactivation), so every token issued before is
   * refused. `update` never writes the token version, so a concurrent save cannot undo a sign-out.
   */
  incrementTokenVersion(id: string): Promise<void>;
  /**
   * How many users holding the role are active, other than `exceptUserId`, as committed at this moment
   * (not as the transaction first saw it), and a turn: until the calling transaction ends, another transaction asking the same
   * about the same role waits. So two transactions that each check "another admin stays active"
   * before deactivating one cannot both pass on the same admins. Called inside a unit of work.
   */
  countActiveWithRole(roleId: string, exceptUserId?: string): Promise<number>;
  /**
   * In creation order, then id: a stable order across pages. Deleted users are not listed or counted.
   * With a filter, only the users it matches, and `total` counts exactly those.
   */
  list(slice: Slice, filter?: UserListFilter): Promise<{ items: User[]; total: number }>;
  /**
   * The cursor form of `list`, for a walk of every user: the first `limit` matches with an id above `after` (any
   * id, a user's or not: a cursor whose user was erased meanwhile still walks on), in the same order. `total` as
   * `list`'s; `before` how many matches have an id at or below `after`. A walk that passes the last id of each page
   * as the next `after` sees every user that exists throughout it exactly once, whatever is added meanwhile.
   */
  listAfter(slice: UserListSlice, filter?: UserListFilter): Promise<{ items: User[]; total: number; before: number }>;
}

/** A page of the list after a cursor: `after` a user id (lower-case), `limit` how many at most. */
export interface UserListSlice {
  after: string;
  limit: number;
}
