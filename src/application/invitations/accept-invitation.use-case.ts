import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, userActor, userTarget } from '../audit/audit-recorder';
import { singleUseTokenStatus } from '../../domain/shared/single-use-token';
import { InvitationExpiredError, InvitationNotFoundError, InvitationUsedError } from '../../domain/invitations/invitation.errors';
import { ValidationError, type FieldProblem } from '../../domain/shared/domain-error';
import { parseDisplayName } from '../../domain/users/display-name';
import { assertAcceptablePassword, assertPasswordNotAccountName } from '../../domain/users/password-policy';
import { UsernameAlreadyTakenError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { CommonPasswords } from '../ports/common-passwords.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export interface AcceptInvitationInput {
  token: string;
  name: string;
  username: string;
  password: string;
}

/**
 * The invitee joins: name, username and password are set, the token is used up and `UserJoined`
 * is recorded, all in one transaction. Afterwards the user signs in like any other.
 */
export class AcceptInvitationUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly tokens: SecretTokens;
  private readonly hasher: PasswordHasher;
  private readonly commonPasswords: CommonPasswords | undefined;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly audit: AuditRecorder;

  constructor(deps: {
    auditRecorder: AuditRecorder;
    unitOfWork: UnitOfWork;
    secretTokens: SecretTokens;
    passwordHasher: PasswordHasher;
    /** When given, a password on its list is refused. */
    commonPasswords?: CommonPasswords;
    clock: Clock;
    idGenerator: IdGenerator;
  }) {
    this.audit = deps.auditRecorder;
    this.unitOfWork = deps.unitOfWork;
    this.tokens = deps.secretTokens;
    this.hasher = deps.passwordHasher;
    this.commonPasswords = deps.commonPasswords;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
  }

  execute(input: AcceptInvitationInput): Promise<{ userId: string }> {
    return this.audit.guard(ANONYMOUS, AuditActions.invitationAccepted, null, () => this.accept(input));
  }

  private async accept(input: AcceptInvitationInput): Promise<{ userId: string }> {
    const { name, username } = this.validate(input);
    const tokenHash = this.tokens.hash(input.token);
    // Hashing is slow: do it before the transaction, so no row stays locked meanwhile.
    const passwordHash = await this.hasher.hash(input.password);

    return this.unitOfWork.run(async ({ users, invitations, roles, outbox, audit }) => {
      const invitation = await invitations.findByTokenHash(tokenHash);
      if (!invitation) throw new InvitationNotFoundError();
      const now = this.clock.now();
      const status = singleUseTokenStatus(invitation, now);
      if (status === 'used') throw new InvitationUsedError();
      if (status === 'expired') throw new InvitationExpiredError();

      // First, so a concurrent acceptance of the same token finds it used (the row lock orders them).
      if (!(await invitations.markUsed(invitation, now))) throw new InvitationUsedError();
      // A locking read, as every change of a user takes: an admin's change of the invitee sent meanwhile goes first or
      // after, never fails the joining for a version it did not ask about.
      const user = await users.findForChange(invitation.userId);
      // A deactivated invitee's link does not work until it is reactivated; it reads as any dead link.
      if (!user || user.status === 'deactivated') throw new InvitationNotFoundError();
      // The address is known here; the transaction, the link's use with it, is undone.
      assertPasswordNotAccountName(input.password, { email: user.email });
      if (await users.existsWithUsername(username.normalized)) throw new UsernameAlreadyTakenError();
      const role = await roles.findById(user.roleId);
      user.join({
        name,
        username,
        passwordHash,
        role: role ?? { id: user.roleId, name: '', permissions: [] },
        now,
        newId: () => this.ids.next(),
      });
      await users.update(user);
      await outbox.append(user.pullDomainEvents());
      await this.audit.write(audit, {
        action: AuditActions.invitationAccepted,
        actor: userActor(user)!,
        target: userTarget(user),
        changes: [
          { field: 'status', before: 'pending', after: 'active' },
          { field: 'username', before: null, after: username.value },
        ],
      });
      return { userId: user.id };
    });
  }

  private validate(input: AcceptInvitationInput): { name: string; username: Username } {
    const problems: FieldProblem[] = [];
    const collect = <T>(check: () => T): T | undefined => {
      try {
        return check();
      } catch (error) {
        if (error instanceof ValidationError) problems.push(...error.problems);
        else throw error;
        return undefined;
      }
    };
    const name = collect(() => parseDisplayName(input.name));
    const username = collect(() => Username.parse(input.username));
    collect(() => assertAcceptablePassword(input.password, 'password', (p) => this.commonPasswords?.includes(p) ?? false));
    if (username !== undefined) collect(() => assertPasswordNotAccountName(input.password, { username: username.value }));
    if (problems.length > 0 || name === undefined || username === undefined) throw new ValidationError(problems);
    return { name, username };
  }
}
