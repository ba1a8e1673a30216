import { AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, userTarget } from '../audit/audit-recorder';
import { RoleNames } from '../../domain/roles/role';
import { RoleNotFoundError } from '../../domain/roles/role-not-found.error';
import { parseDisplayName } from '../../domain/users/display-name';
import { Email } from '../../domain/users/email';
import { assertAcceptablePassword, assertPasswordNotAccountName } from '../../domain/users/password-policy';
import { User } from '../../domain/users/user';
import { EmailAlreadyTakenError, UsernameAlreadyTakenError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { CommonPasswords } from '../ports/common-passwords.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export interface CreateAdminInput {
  username: string;
  password: string;
  email: string;
  name?: string;
}

export type CreateAdminOutcome = { created: true; userId: string } | { created: false; reason: 'exists' };

/**
 * Creates a joined admin unless a user with that username or e-mail exists already;
 * an existing account is never changed (its password is not reset from the environment).
 */
export class CreateAdminUseCase {
  private readonly roles: RoleRepository;
  private readonly unitOfWork: UnitOfWork;
  private readonly hasher: PasswordHasher;
  private readonly commonPasswords: CommonPasswords | undefined;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly audit: AuditRecorder;

  constructor(deps: {
    auditRecorder: AuditRecorder;
    roleRepository: RoleRepository;
    unitOfWork: UnitOfWork;
    passwordHasher: PasswordHasher;
    /** When given, a password on its list is refused. */
    commonPasswords?: CommonPasswords;
    clock: Clock;
    idGenerator: IdGenerator;
  }) {
    this.audit = deps.auditRecorder;
    this.roles = deps.roleRepository;
    this.unitOfWork = deps.unitOfWork;
    this.hasher = deps.passwordHasher;
    this.commonPasswords = deps.commonPasswords;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  async execute(input: CreateAdminInput): Promise<CreateAdminOutcome> {
    const username = Username.parse(input.username, 'ADMIN_USERNAME');
    const email = Email.parse(input.email, 'ADMIN_EMAIL');
    assertAcceptablePassword(input.password, 'ADMIN_PASSWORD', (p) => this.commonPasswords?.includes(p) ?? false);
    assertPasswordNotAccountName(input.password, { username: username.value, email: email.value }, 'ADMIN_PASSWORD');
    const name = parseDisplayName(input.name ?? input.username, 'ADMIN_NAME');
    const role = await this.roles.findByName(RoleNames.admin);
    if (!role) throw new RoleNotFoundError(RoleNames.admin);

    const passwordHash = await this.hasher.hash(input.password);
    const exists = { created: false, reason: 'exists' } as const;
    try {
      return await this.unitOfWork.run(async ({ users, outbox, audit }) => {
        if ((await users.existsWithUsername(username.normalized)) || (await users.existsWithEmail(email.normalized))) {
          return exists;
        }
        // Built inside the closure: a retried run records its own UserJoined (pullDomainEvents() empties the list).
        const user = User.createJoined({
          id: this.ids.next(),
          email,
          name,
          username,
          passwordHash,
          role,
          now: this.clock.now(),
          newId: () => this.ids.next(),
        });
        await users.add(user);
        // Consumers learn of the admin as of any user that joins: the topic alone holds the whole user set.
        await outbox.append(user.pullDomainEvents());
        // An operator's act (the CLI, or ADMIN_* at start): no signed-in actor.
        await this.audit.write(audit, {
          action: AuditActions.userCreated,
          actor: { type: 'anonymous', id: null, name: 'operator' },
          target: userTarget(user),
          changes: [{ field: 'role', before: null, after: role.name }],
        });
        return { created: true, userId: user.id } as const;
      });
    } catch (error) {
      // Replicas starting together race to create the same admin: the loser finds it exists.
      if (error instanceof UsernameAlreadyTakenError || error instanceof EmailAlreadyTakenError) return exists;
      throw error;
    }
  }
}
