import { Email } from '../../../domain/users/email';
import { User } from '../../../domain/users/user';
import { nameSearchKey } from '../../../domain/users/display-name';
import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../../domain/users/user.errors';
import { Username } from '../../../domain/users/username';
import { RoleNotFoundError } from '../../../domain/roles/role-not-found.error';
import { foreignKeyViolationOn, uniqueViolationOn } from './database-errors';
import type { UserRecord } from './records';

/** A write a key refused, as the domain says it: an address or username taken, or a role deleted since it was read. */
export function refusedWriteError(error: unknown, user: User): unknown {
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
export function toDomain(r: UserRecord): User {
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
