import { AggregateRoot } from '../shared/domain-event';
import type { Role } from '../roles/role';
import type { Email } from './email';
import type { Username } from './username';
import { UserAlreadyJoinedError } from '../invitations/invitation.errors';
import {
  USER_DEACTIVATED,
  USER_DELETED,
  USER_REACTIVATED,
  USER_ROLE_CHANGED,
  USER_UPDATED,
  type UserDeactivated,
  type UserDeleted,
  type UserReactivated,
  type UserRoleChanged,
  type UserUpdated,
} from './user-administration.events';
import { UserDeactivatedError } from './user.errors';
import { USER_INVITED, type UserInvited } from './user-invited.event';
import {
  USER_INVITATION_RESENT,
  USER_INVITATION_REVOKED,
  USER_JOINED,
  type UserInvitationResent,
  type UserInvitationRevoked,
  type UserJoined,
} from './user-events';

export type IdFactory = () => string;

/** What the interface shows: invited and not joined yet, joined, or locked out by an admin. */
export type UserStatus = 'pending' | 'active' | 'deactivated';
export const USER_STATUSES: readonly UserStatus[] = ['pending', 'active', 'deactivated'];

/** Who changes the user, and when; `newId` names the events recorded. */
export interface Change {
  by: string;
  now: Date;
  newId: IdFactory;
}

export interface UserProps {
  id: string;
  email: string;
  name?: string;
  username?: string;
  passwordHash?: string;
  roleId: string;
  invitedAt: Date;
  invitedBy?: string;
  joinedAt?: Date;
  updatedAt?: Date;
  updatedBy?: string;
  /** Bumped by sign-out: access tokens carrying an older version are refused. */
  tokenVersion?: number;
  /** Derived from `joinedAt` when absent. `deleted` only between `delete()` and the repository's erasure. */
  status?: UserStatus | 'deleted';
  /** The optimistic version: each save moves it on, and a save from an older version is refused. 1 when absent. */
  version?: number;
}

/**
 * A user is created pending (invited, no credentials) and becomes joined when it has
 * a username and a password. The bootstrap admin is created joined.
 */
export class User extends AggregateRoot {
  private constructor(private props: UserProps) {
    super();
  }

  static restore(props: UserProps): User {
    return new User({ ...props });
  }

  static invite(input: {
    id: string;
    email: Email;
    name?: string;
    role: Role;
    invitedBy: string;
    now: Date;
    newId: IdFactory;
  }): User {
    const user = new User({
      id: input.id,
      email: input.email.value,
      name: input.name,
      roleId: input.role.id,
      invitedAt: input.now,
      invitedBy: input.invitedBy,
      tokenVersion: 0,
      status: 'pending',
      version: 1,
    });
    const event: UserInvited = {
      id: input.newId(),
      type: USER_INVITED,
      aggregateId: input.id,
      occurredAt: input.now,
      data: {
        user_id: input.id,
        email: input.email.value,
        ...(input.name !== undefined ? { name: input.name } : {}),
        role: { _id: input.role.id, name: input.role.name },
        invited_by: input.invitedBy,
        invited_date: input.now.toISOString(),
      },
    };
    user.record(event);
    return user;
  }

  /**
   * A user that joins without an invitation (the bootstrap admin). With `newId` it records `UserJoined`,
   * which carries the whole user: without it, a consumer of the events would never learn of this user.
   * Only test fixtures that insert a user directly leave `newId` out.
   */
  static createJoined(input: {
    id: string;
    email: Email;
    name: string;
    username: Username;
    passwordHash: string;
    role: Role;
    now: Date;
    newId?: IdFactory;
  }): User {
    const user = new User({
      id: input.id,
      email: input.email.value,
      name: input.name,
      username: input.username.value,
      passwordHash: input.passwordHash,
      roleId: input.role.id,
      invitedAt: input.now,
      joinedAt: input.now,
      tokenVersion: 0,
      status: 'active',
      version: 1,
    });
    if (input.newId) user.recordJoined(input.role, input.now, input.newId);
    return user;
  }

  get id(): string {
    return this.props.id;
  }
  get email(): string {
    return this.props.email;
  }
  get name(): string | undefined {
    return this.props.name;
  }
  get username(): string | undefined {
    return this.props.username;
  }
  get passwordHash(): string | undefined {
    return this.props.passwordHash;
  }
  get roleId(): string {
    return this.props.roleId;
  }
  get invitedAt(): Date {
    return this.props.invitedAt;
  }
  get invitedBy(): string | undefined {
    return this.props.invitedBy;
  }
  get joinedAt(): Date | undefined {
    return this.props.joinedAt;
  }
  get updatedAt(): Date | undefined {
    return this.props.updatedAt;
  }
  get updatedBy(): string | undefined {
    return this.props.updatedBy;
  }
  get tokenVersion(): number {
    return this.props.tokenVersion ?? 0;
  }
  get status(): UserStatus | 'deleted' {
    return this.props.status ?? (this.props.joinedAt !== undefined ? 'active' : 'pending');
  }
  get version(): number {
    return this.props.version ?? 1;
  }

  /** Only a joined user has credentials to sign in with. */
  get isJoined(): boolean {
    return this.props.joinedAt !== undefined && this.props.passwordHash !== undefined;
  }

  /** The invitee accepts: it gets its credentials, and `UserJoined` is recorded. */
  join(input: { name: string; username: Username; passwordHash: string; role: Role; now: Date; newId: IdFactory }): void {
    this.assertPending();
    if (this.status === 'deactivated') throw new UserDeactivatedError();
    this.props = {
      ...this.props,
      status: 'active',
      name: input.name,
      username: input.username.value,
      passwordHash: input.passwordHash,
      joinedAt: input.now,
      updatedAt: input.now,
      updatedBy: this.props.id,
    };
    this.recordJoined(input.role, input.now, input.newId);
  }

  /** `UserJoined`: the whole user as it joined (no password hash), so a consumer can add it from this event alone. */
  private recordJoined(role: Role, now: Date, newId: IdFactory): void {
    const event: UserJoined = {
      id: newId(),
      type: USER_JOINED,
      aggregateId: this.props.id,
      occurredAt: now,
      data: {
        user_id: this.props.id,
        email: this.props.email,
        username: this.props.username!,
        name: this.props.name!,
        role: { _id: role.id, name: role.name },
        joined_date: now.toISOString(),
      },
    };
    this.record(event);
  }

  /** A new link is to be mailed; the old one dies when the mailer issues the new. */
  resendInvitation(input: { by: string; role: Role; now: Date; newId: IdFactory }): void {
    this.assertPending();
    if (this.status === 'deactivated') throw new UserDeactivatedError();
    this.props = { ...this.props, updatedAt: input.now, updatedBy: input.by };
    const event: UserInvitationResent = {
      id: input.newId(),
      type: USER_INVITATION_RESENT,
      aggregateId: this.props.id,
      occurredAt: input.now,
      data: {
        user_id: this.props.id,
        email: this.props.email,
        ...(this.props.name !== undefined ? { name: this.props.name } : {}),
        role: { _id: input.role.id, name: input.role.name },
        resent_by: input.by,
        resent_date: input.now.toISOString(),
      },
    };
    this.record(event);
  }

  /** The invitation is withdrawn: the pending user is to be removed. */
  revokeInvitation(input: { by: string; now: Date; newId: IdFactory }): void {
    this.assertPending();
    const event: UserInvitationRevoked = {
      id: input.newId(),
      type: USER_INVITATION_REVOKED,
      aggregateId: this.props.id,
      occurredAt: input.now,
      data: {
        user_id: this.props.id,
        email: this.props.email,
        revoked_by: input.by,
        revoked_date: input.now.toISOString(),
      },
    };
    this.record(event);
  }

  /**
   * Changes the name and/or the role; what is the same already is no change. Records `UserUpdated`
   * (with the changed fields) and `UserRoleChanged` (with the previous role). False: nothing changed.
   */
  update(input: Change & { name?: string; role?: Role; previousRole: Role }): boolean {
    const renamed = input.name !== undefined && input.name !== this.props.name;
    const moved = input.role !== undefined && input.role.id !== this.props.roleId;
    if (!renamed && !moved) return false;
    this.touch(input);
    const date = input.now.toISOString();
    if (renamed) {
      this.props.name = input.name;
      const event: UserUpdated = {
        ...this.eventHead(input),
        type: USER_UPDATED,
        data: { user_id: this.props.id, changes: { name: input.name! }, updated_by: input.by, updated_date: date },
      };
      this.record(event);
    }
    if (moved) {
      const role = input.role!;
      this.props.roleId = role.id;
      const event: UserRoleChanged = {
        ...this.eventHead(input),
        type: USER_ROLE_CHANGED,
        data: {
          user_id: this.props.id,
          role: { _id: role.id, name: role.name },
          previous_role: { _id: input.previousRole.id, name: input.previousRole.name },
          changed_by: input.by,
          changed_date: date,
        },
      };
      this.record(event);
    }
    return true;
  }

  /** Locks the user out (the caller ends its tokens); an invitee can no longer join. False: it was already. */
  deactivate(input: Change): boolean {
    if (this.status === 'deactivated') return false;
    this.touch(input);
    this.props.status = 'deactivated';
    const event: UserDeactivated = {
      ...this.eventHead(input),
      type: USER_DEACTIVATED,
      data: { user_id: this.props.id, deactivated_by: input.by, deactivated_date: input.now.toISOString() },
    };
    this.record(event);
    return true;
  }

  /** Back to where it was: active with the same password once joined, else pending. False: it was not deactivated. */
  reactivate(input: Change): boolean {
    if (this.status !== 'deactivated') return false;
    this.touch(input);
    const status = this.props.joinedAt !== undefined ? 'active' : 'pending';
    this.props.status = status;
    const event: UserReactivated = {
      ...this.eventHead(input),
      type: USER_REACTIVATED,
      data: { user_id: this.props.id, status, reactivated_by: input.by, reactivated_date: input.now.toISOString() },
    };
    this.record(event);
    return true;
  }

  /**
   * The person is removed: the repository's `erase` then forgets name, e-mail, username and password
   * hash and keeps the id (other users' `invited_by` and `updated_by` still name it).
   */
  delete(input: Change): void {
    this.touch(input);
    this.props.status = 'deleted';
    const event: UserDeleted = {
      ...this.eventHead(input),
      type: USER_DELETED,
      data: { user_id: this.props.id, deleted_by: input.by, deleted_date: input.now.toISOString() },
    };
    this.record(event);
  }

  /**
   * The user sets a new password (already checked against the policy and hashed); the caller ends its
   * tokens. Records no event: nothing consumes one yet, and a later one is an additive change.
   */
  changePassword(input: { passwordHash: string; now: Date }): void {
    this.props = { ...this.props, passwordHash: input.passwordHash, updatedAt: input.now, updatedBy: this.props.id };
  }

  /** The repository saved this state: the stored version has moved on by one. */
  markSaved(): void {
    this.props.version = this.version + 1;
  }

  private touch({ by, now }: Change): void {
    this.props = { ...this.props, updatedAt: now, updatedBy: by };
  }

  private eventHead({ now, newId }: Change) {
    return { id: newId(), aggregateId: this.props.id, occurredAt: now } as const;
  }

  private assertPending(): void {
    if (this.props.joinedAt !== undefined) throw new UserAlreadyJoinedError();
  }

  toSnapshot(): Readonly<UserProps> {
    return { ...this.props };
  }
}
