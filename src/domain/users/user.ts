import { AggregateRoot } from '../shared/domain-event';
import type { Role } from '../roles/role';
import type { Email } from './email';
import type { Username } from './username';
import { UserAlreadyJoinedError } from '../invitations/invitation.errors';
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

  static createJoined(input: {
    id: string;
    email: Email;
    name: string;
    username: Username;
    passwordHash: string;
    role: Role;
    now: Date;
  }): User {
    return new User({
      id: input.id,
      email: input.email.value,
      name: input.name,
      username: input.username.value,
      passwordHash: input.passwordHash,
      roleId: input.role.id,
      invitedAt: input.now,
      joinedAt: input.now,
      tokenVersion: 0,
    });
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

  /** Only a joined user has credentials to sign in with. */
  get isJoined(): boolean {
    return this.props.joinedAt !== undefined && this.props.passwordHash !== undefined;
  }

  /** The invitee accepts: it gets its credentials, and `UserJoined` is recorded. */
  join(input: { name: string; username: Username; passwordHash: string; role: Role; now: Date; newId: IdFactory }): void {
    this.assertPending();
    this.props = {
      ...this.props,
      name: input.name,
      username: input.username.value,
      passwordHash: input.passwordHash,
      joinedAt: input.now,
      updatedAt: input.now,
      updatedBy: this.props.id,
    };
    const event: UserJoined = {
      id: input.newId(),
      type: USER_JOINED,
      aggregateId: this.props.id,
      occurredAt: input.now,
      data: {
        user_id: this.props.id,
        email: this.props.email,
        username: input.username.value,
        name: input.name,
        role: { _id: input.role.id, name: input.role.name },
        joined_date: input.now.toISOString(),
      },
    };
    this.record(event);
  }

  /** A new link is to be mailed; the old one dies when the mailer issues the new. */
  resendInvitation(input: { by: string; role: Role; now: Date; newId: IdFactory }): void {
    this.assertPending();
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

  private assertPending(): void {
    if (this.props.joinedAt !== undefined) throw new UserAlreadyJoinedError();
  }

  toSnapshot(): Readonly<UserProps> {
    return { ...this.props };
  }
}
