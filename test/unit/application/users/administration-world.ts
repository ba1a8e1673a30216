import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import type { Actor } from '../../../../src/application/auth/actor';
import type { User } from '../../../../src/domain/users/user';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryInvitationRepository } from '../../../support/fakes/in-memory-invitation.repository';
import { InMemoryOutbox } from '../../../support/fakes/in-memory-outbox';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUnitOfWork } from '../../../support/fakes/in-memory-unit-of-work';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { SequentialIdGenerator } from '../../../support/fakes/sequential-id-generator';
import { ActorMother } from '../../../support/mothers/actor.mother';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

/** A helpdesk role: may change and lock out users, but holds none of the other permissions. */
export const HELPDESK = RoleMother.withPermissions('helpdesk', ['users:read', 'users:update', 'users:deactivate', 'users:delete']);

/**
 * The stores of the administration use cases: two active admins (one of them acting), a member,
 * an invitee; the deps every use case takes.
 */
export function administrationWorld() {
  const clock = new FixedClock();
  const ids = new SequentialIdGenerator(0xad);
  const users = new InMemoryUserRepository();
  const outbox = new InMemoryOutbox();
  const invitations = new InMemoryInvitationRepository();
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member(), HELPDESK]);
  const unitOfWork = new InMemoryUnitOfWork({ users, outbox, invitations, roles });
  const adminUser = UserMother.joined({ username: 'root', role: RoleMother.admin() });
  const otherAdmin = UserMother.joined({ username: 'second.admin', role: RoleMother.admin() });
  const member = UserMother.joined({ name: 'Ada Lovelace', username: 'ada', email: 'Ada@Example.com', role: RoleMother.member() });
  const invitee = UserMother.pending({ email: 'grace@example.com', role: RoleMother.member() });
  users.seed(adminUser, otherAdmin, member, invitee);
  const admin: Actor = ActorMother.admin(adminUser.id);
  const { auditRecorder } = auditRecorderFor({ clock, auditTrail: unitOfWork.audit });
  const deps = { auditRecorder, roleRepository: roles, unitOfWork, clock, idGenerator: ids };
  /** Throws unless nothing was committed since the world was built. */
  const snapshot = () => JSON.stringify([users.all().map((u) => u.toSnapshot()), outbox.events, invitations.all()]);
  const initial = snapshot();
  const expectNothingWritten = () => expect(snapshot()).toBe(initial);
  const stored = async (user: User) => (await users.findById(user.id))!;
  return { clock, ids, users, outbox, invitations, unitOfWork, roles, adminUser, otherAdmin, member, invitee, admin, deps, expectNothingWritten, stored };
}
