import { AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, userTarget } from '../audit/audit-recorder';
import { Permissions } from '../../domain/permissions/permission';
import { PermissionDeniedError } from '../../domain/permissions/permission-denied.error';
import { missingPermissions, type Role, RoleNames } from '../../domain/roles/role';
import { RoleNotFoundError } from '../../domain/roles/role-not-found.error';
import { parseDisplayName } from '../../domain/users/display-name';
import { Email } from '../../domain/users/email';
import { User } from '../../domain/users/user';
import { type Actor, requirePermission } from '../auth/actor';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export interface InviteUserInput {
  actor: Actor;
  email: string;
  /** A role's name or `_id`; `member` when absent. */
  role?: string;
  name?: string;
}

/**
 * Creates the pending user and records `UserInvited` in the same transaction, so the event
 * exists exactly when the user does. Delivery (Kafka, mail) happens after commit.
 */
export class InviteUserUseCase {
  private readonly roles: RoleRepository;
  private readonly unitOfWork: UnitOfWork;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly audit: AuditRecorder;

  constructor(deps: { auditRecorder: AuditRecorder; roleRepository: RoleRepository; unitOfWork: UnitOfWork; clock: Clock; idGenerator: IdGenerator }) {
    this.audit = deps.auditRecorder;
    this.roles = deps.roleRepository;
    this.unitOfWork = deps.unitOfWork;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  execute(input: InviteUserInput): Promise<{ userId: string }> {
    return this.audit.guard(input.actor, AuditActions.invitationIssued, null, () => this.invite(input));
  }

  private async invite(input: InviteUserInput): Promise<{ userId: string }> {
    requirePermission(input.actor, Permissions.usersInvite);
    const email = Email.parse(input.email);
    const name = input.name === undefined ? undefined : parseDisplayName(input.name);
    const role = await this.resolveRole(input.role ?? RoleNames.member);

    // Nobody hands out more than they hold.
    const beyondInviter = missingPermissions(input.actor.permissions, role.permissions);
    if (beyondInviter.length > 0) throw new PermissionDeniedError(beyondInviter);

    // The aggregate is built inside the closure: a unit of work may run it again after a deadlock,
    // and each attempt must record its own UserInvited (pullDomainEvents() empties the list).
    return this.unitOfWork.run(async ({ users, outbox, audit }) => {
      const user = User.invite({
        id: this.ids.next(),
        email,
        name,
        role,
        invitedBy: input.actor.userId,
        now: this.clock.now(),
        newId: () => this.ids.next(),
      });
      // No look-up first: the unique index on the e-mail decides, and `add` reports a taken address
      // as EmailAlreadyTakenError (the transaction then writes nothing).
      await users.add(user);
      await outbox.append(user.pullDomainEvents());
      await this.audit.write(audit, {
        action: AuditActions.invitationIssued,
        actor: await this.audit.actorOf(input.actor, users),
        target: userTarget(user),
        changes: [{ field: 'role', before: null, after: role.name }],
      });
      return { userId: user.id };
    });
  }

  private async resolveRole(key: string): Promise<Role> {
    const role = (await this.roles.findByName(key)) ?? (await this.roles.findById(key));
    if (!role) throw new RoleNotFoundError(key);
    return role;
  }
}
