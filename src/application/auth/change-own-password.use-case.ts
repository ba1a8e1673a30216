import { AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, lockFacts, userActor, userTarget } from '../audit/audit-recorder';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';
import { assertAcceptablePassword, assertPasswordNotAccountName } from '../../domain/users/password-policy';
import { UserNotFoundError } from '../../domain/users/user.errors';
import { Username } from '../../domain/users/username';
import type { MfaPolicy } from '../mfa/mfa-policy';
import type { Clock } from '../ports/clock.port';
import type { CommonPasswords } from '../ports/common-passwords.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';
import type { UserRepository } from '../ports/user-repository.port';
import { type Actor, isServiceAccount } from './actor';
import type { SessionIssuer, SessionTokens } from './session-issuer';
import { NotAUserError, WrongCurrentPasswordError } from './session.errors';

export interface ChangeOwnPasswordInput {
  actor: Actor;
  currentPassword: string;
  newPassword: string;
}

/**
 * The signed-in user changes its password. The current one is checked as a sign-in checks it (counted
 * against the same lockout, so a stolen access token cannot guess it any faster); the new one meets the
 * policy of accepting an invitation. Every token of the user ends (token version bumped in the same
 * transaction), and the caller gets a new session, so only the device that changed the password stays in.
 */
export class ChangeOwnPasswordUseCase {
  private readonly users: UserRepository;
  private readonly unitOfWork: UnitOfWork;
  private readonly hasher: PasswordHasher;
  private readonly commonPasswords: CommonPasswords | undefined;
  private readonly attempts: LoginAttempts;
  private readonly lockout: LockoutPolicy;
  private readonly sessions: SessionIssuer;
  private readonly clock: Clock;
  private readonly audit: AuditRecorder;
  private readonly mfaPolicy: MfaPolicy | undefined;

  constructor(deps: {
    auditRecorder: AuditRecorder;
    userRepository: UserRepository;
    unitOfWork: UnitOfWork;
    passwordHasher: PasswordHasher;
    commonPasswords?: CommonPasswords;
    loginAttempts: LoginAttempts;
    lockoutPolicy: LockoutPolicy;
    sessionIssuer: SessionIssuer;
    clock: Clock;
    /** MFA_REQUIRED_PERMISSIONS (#24): the new session's token is decided as a sign-in's. */
    mfaPolicy?: MfaPolicy;
  }) {
    this.mfaPolicy = deps.mfaPolicy;
    this.audit = deps.auditRecorder;
    this.users = deps.userRepository;
    this.unitOfWork = deps.unitOfWork;
    this.hasher = deps.passwordHasher;
    this.commonPasswords = deps.commonPasswords;
    this.attempts = deps.loginAttempts;
    this.lockout = deps.lockoutPolicy;
    this.sessions = deps.sessionIssuer;
    this.clock = deps.clock;
  }

  async execute({ actor, currentPassword, newPassword }: ChangeOwnPasswordInput): Promise<SessionTokens> {
    if (isServiceAccount(actor)) throw new NotAUserError();
    assertAcceptablePassword(newPassword, 'new_password', (p) => this.commonPasswords?.includes(p) ?? false);
    const user = await this.users.findById(actor.userId);
    if (!user || !user.isJoined) throw new UserNotFoundError();
    assertPasswordNotAccountName(newPassword, user, 'new_password');

    const key = Username.normalize(user.username ?? '');
    const claimed = await this.attempts.claim(key, this.clock.now(), this.lockout);
    // Verified in every case (against the dummy hash while locked): a locked account costs the same time.
    const matches = await this.hasher.verify(currentPassword, claimed ? user.passwordHash : undefined);
    const actorName = userActor(user)!;
    const refusal = { action: AuditActions.passwordChanged, outcome: 'failure' as const, actor: actorName, target: userTarget(user) };
    if (claimed) {
      if (matches) await this.attempts.succeeded(key);
      else
        await this.attempts.failed(key, this.clock.now(), this.lockout, (lockedUntil) =>
          this.audit.entries({ ...refusal, code: 'wrong_password' }, ...lockFacts(actorName, userTarget(user), lockedUntil)),
          claimed,
        );
    } else {
      await this.audit.record({ ...refusal, code: 'locked' });
    }
    if (!claimed || !matches) throw new WrongCurrentPasswordError();

    // Hashing is slow: done before the transaction, so no row stays locked meanwhile.
    const passwordHash = await this.hasher.hash(newPassword);
    const changed = await this.unitOfWork.run(async ({ users, audit, passwordResets }) => {
      // Read locking: changes of one's password sent at once take turns, and each checks that the password it verified
      // is still the one stored. Once another change committed, `current_password` no longer holds: refused as a
      // wrong one, never a 200 whose new password and session another change has already replaced.
      const current = await users.findForChange(actor.userId);
      if (!current || !current.isJoined || current.status !== 'active') throw new UserNotFoundError();
      if (current.passwordHash !== user.passwordHash) throw new WrongCurrentPasswordError();
      current.changePassword({ passwordHash, now: this.clock.now() });
      await users.update(current);
      await users.incrementTokenVersion(current.id);
      // An outstanding reset link would set another password over this one: it ends with the user's tokens.
      await passwordResets.deleteForUser(current.id);
      await this.audit.write(audit, { action: AuditActions.passwordChanged, actor: actorName, target: userTarget(current) });
      // Read back: a sign-out committed meanwhile moved it too, and the new session must carry the latest.
      return { roleId: current.roleId, tokenVersion: (await users.findById(current.id))?.tokenVersion ?? current.tokenVersion + 1 };
    });
    // A new session is a token issued like a sign-in's: a role that needs a second factor the user does not hold
    // gets an enrollment-only one (else a full token from before the role change, or from before the factor's
    // removal, renewed itself here without end).
    const enrollmentOnly = (await this.mfaPolicy?.enrollmentOnly({ id: actor.userId, roleId: changed.roleId })) ?? false;
    return this.sessions.start(actor.userId, changed.tokenVersion, { enrollmentOnly });
  }
}
