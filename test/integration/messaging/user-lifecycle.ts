/**
 * Writes real domain events through the real write path (TypeOrmUnitOfWork → TypeOrmOutbox), so
 * the messaging tests publish exactly what the service would.
 */
import type { TransactionScope, UnitOfWork } from '../../../src/application/ports/unit-of-work.port';
import { userMfaEnrolled, userMfaRemoved } from '../../../src/domain/mfa/mfa.events';
import type { Role } from '../../../src/domain/roles/role';
import { Email } from '../../../src/domain/users/email';
import { User } from '../../../src/domain/users/user';
import { Username } from '../../../src/domain/users/username';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';

const ids = new UuidV7IdGenerator();
const newId = () => ids.next();
export const MEMBER: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };
export const INVITER = '019a0000-0000-7000-8000-0000000000aa';
/** What a real hash looks like: it must never reach an event. */
export const PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA';

/** What a sealed second-factor secret looks like: it must never reach an event. */
export const SEALED_SECRET = 'v1.bm9uY2Vub25jZQ.dGFndGFndGFndGFn.c2VjcmV0c2VjcmV0';

export interface Written {
  userId: string;
  eventIds: string[];
  types: string[];
}

const ADMIN_ROLE: Role = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };
const by = () => ({ by: INVITER, now: new Date(), newId });

/** The user events, each committed in a transaction of `unitOfWork` with the change that caused it. */
export class UserLifecycle {
  constructor(private readonly unitOfWork: UnitOfWork) {}

  /** Invites a user (UserInvited). */
  async invite(email: string, name?: string): Promise<Written> {
    const user = User.invite({ id: newId(), email: Email.parse(email), name, role: MEMBER, invitedBy: INVITER, now: new Date(), newId });
    return this.commit(user, (scope) => scope.users.add(user));
  }

  /** The invitee joins (UserJoined): the user now has a password hash, which the event must not carry. */
  async join(userId: string, username: string): Promise<Written> {
    const user = await this.load(userId);
    user.join({ name: 'Zoë 🚀 Ünïcode', username: Username.parse(username), passwordHash: PASSWORD_HASH, role: MEMBER, now: new Date(), newId });
    return this.commit(user, (scope) => scope.users.update(user));
  }

  /** A user created joined, as the bootstrap admin is (UserJoined with no UserInvited before it). */
  async createJoined(email: string, username: string): Promise<Written> {
    const user = User.createJoined({
      id: newId(),
      email: Email.parse(email),
      name: 'Boot Strap',
      username: Username.parse(username),
      passwordHash: PASSWORD_HASH,
      role: ADMIN_ROLE,
      now: new Date(),
      newId,
    });
    return this.commit(user, (scope) => scope.users.add(user));
  }

  async resend(userId: string): Promise<Written> {
    const user = await this.load(userId);
    user.resendInvitation({ by: INVITER, role: MEMBER, now: new Date(), newId });
    return this.commit(user, (scope) => scope.users.update(user));
  }

  async revoke(userId: string): Promise<Written> {
    const user = await this.load(userId);
    user.revokeInvitation({ by: INVITER, now: new Date(), newId });
    return this.commit(user, (scope) => scope.users.delete(user));
  }

  /** An admin renames the user and gives it the admin role (UserUpdated, UserRoleChanged). */
  async renameAndPromote(userId: string, name: string): Promise<Written> {
    const user = await this.load(userId);
    user.update({ ...by(), name, role: ADMIN_ROLE, previousRole: MEMBER });
    return this.commit(user, (scope) => scope.users.update(user));
  }

  async deactivate(userId: string): Promise<Written> {
    const user = await this.load(userId);
    user.deactivate(by());
    return this.commit(user, async (scope) => {
      await scope.users.update(user);
      await scope.users.incrementTokenVersion(user.id);
    });
  }

  async reactivate(userId: string): Promise<Written> {
    const user = await this.load(userId);
    user.reactivate(by());
    return this.commit(user, (scope) => scope.users.update(user));
  }

  /** UserDeleted: the user is erased, so its e-mail, name and username must not travel. */
  async erase(userId: string): Promise<Written> {
    const user = await this.load(userId);
    user.delete(by());
    return this.commit(user, (scope) => scope.users.erase(user));
  }

  /** An authenticator app enrolled and confirmed, as the use case writes it (UserMfaEnrolled): the sealed secret must not travel. */
  async enrollMfa(userId: string): Promise<Written> {
    const event = userMfaEnrolled(newId(), userId, 'totp', new Date());
    await this.unitOfWork.run(async (scope) => {
      const factor = { id: newId(), userId, type: 'totp' as const, sealedSecret: SEALED_SECRET, createdAt: new Date(), confirmedAt: null, lastUsedStep: null };
      await scope.mfa.savePending(factor);
      await scope.mfa.confirm(userId, factor.id, new Date());
      await scope.outbox.append([event]);
    });
    return { userId, eventIds: [event.id], types: [event.type] };
  }

  /** An admin resets the user's factors (UserMfaRemoved). */
  async resetMfa(userId: string): Promise<Written> {
    const event = userMfaRemoved(newId(), userId, { types: ['totp'], remaining: [] }, INVITER, new Date());
    await this.unitOfWork.run(async (scope) => {
      await scope.mfa.removeFactors(userId);
      await scope.outbox.append([event]);
    });
    return { userId, eventIds: [event.id], types: [event.type] };
  }

  private async load(userId: string): Promise<User> {
    const found = await this.unitOfWork.run((scope) => scope.users.findById(userId));
    if (!found) throw new Error(`no user ${userId}`);
    return found;
  }

  private async commit(user: User, change: (scope: TransactionScope) => Promise<void>): Promise<Written> {
    const events = user.pullDomainEvents();
    await this.unitOfWork.run(async (scope) => {
      await change(scope);
      await scope.outbox.append(events);
    });
    return { userId: user.id, eventIds: events.map((e) => e.id), types: events.map((e) => e.type) };
  }
}
