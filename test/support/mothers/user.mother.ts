import type { Role } from '../../../src/domain/roles/role';
import { User } from '../../../src/domain/users/user';
import { fakeHashOf } from '../fakes/fake-password-hasher';
import { DEFAULT_NOW } from '../fakes/fixed-clock';
import { SequentialIdGenerator } from '../fakes/sequential-id-generator';
import { RoleMother } from './role.mother';

const ids = new SequentialIdGenerator(0x0000000c);
let serial = 0;

export const DEFAULT_PASSWORD = 'correct horse battery staple';

export interface JoinedUserOptions {
  id?: string;
  email?: string;
  username?: string;
  name?: string;
  password?: string;
  role?: Role;
  invitedAt?: Date;
  invitedBy?: string;
  joinedAt?: Date;
}

export interface PendingUserOptions {
  id?: string;
  email?: string;
  name?: string;
  role?: Role;
  invitedAt?: Date;
  invitedBy?: string;
  /** A username or hash on a user that never joined (caught half-way): such a user must still not sign in. */
  username?: string;
  /** See `username`. */
  passwordHash?: string;
}

export const UserMother = {
  /** A user who accepted an invitation: has a username and a password (hashed by the fake hasher). */
  joined(options: JoinedUserOptions = {}): User {
    const n = ++serial;
    const invitedAt = options.invitedAt ?? new Date(DEFAULT_NOW.getTime() - 86_400_000);
    return User.restore({
      id: options.id ?? ids.next(),
      email: options.email ?? `joined.${n}@example.com`,
      name: options.name ?? `Joined User ${n}`,
      username: options.username ?? `joined.${n}`,
      passwordHash: fakeHashOf(options.password ?? DEFAULT_PASSWORD),
      roleId: (options.role ?? RoleMother.member()).id,
      invitedAt,
      invitedBy: options.invitedBy,
      joinedAt: options.joinedAt ?? new Date(invitedAt.getTime() + 3_600_000),
    });
  },

  /** An invitee who has not joined yet: no username, no password, no joined date. */
  pending(options: PendingUserOptions = {}): User {
    const n = ++serial;
    return User.restore({
      id: options.id ?? ids.next(),
      email: options.email ?? `pending.${n}@example.com`,
      name: options.name,
      username: options.username,
      passwordHash: options.passwordHash,
      roleId: (options.role ?? RoleMother.member()).id,
      invitedAt: options.invitedAt ?? new Date(DEFAULT_NOW.getTime() - 3_600_000),
      invitedBy: options.invitedBy ?? ids.next(),
    });
  },

  /** A user an admin deactivated: joined (it had a password) unless `pending` is said. */
  deactivated(options: JoinedUserOptions & { pending?: boolean } = {}): User {
    const user = options.pending ? UserMother.pending(options) : UserMother.joined(options);
    return User.restore({ ...user.toSnapshot(), status: 'deactivated' });
  },
};
