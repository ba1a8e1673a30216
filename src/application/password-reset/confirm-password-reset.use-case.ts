import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import { type AuditRecorder, userTarget } from '../audit/audit-recorder';
import { singleUseTokenStatus } from '../../domain/shared/single-use-token';
import { PasswordResetExpiredError, PasswordResetNotFoundError, PasswordResetUsedError } from '../../domain/users/password-reset';
import { assertAcceptablePassword, assertPasswordNotAccountName } from '../../domain/users/password-policy';
import { Username } from '../../domain/users/username';
import type { Clock } from '../ports/clock.port';
import type { CommonPasswords } from '../ports/common-passwords.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export interface ConfirmPasswordResetInput {
  token: string;
  password: string;
}

/**
 * The link's holder sets a new password (the policy of accepting an invitation). In one transaction the
 * token is used up, the password set and the token version bumped, so every access and refresh token
 * of the user ends; then the sign-in lockout of the account is cleared (the owner proved the mailbox).
 */
export class ConfirmPasswordResetUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly tokens: SecretTokens;
  private readonly hasher: PasswordHasher;
  private readonly commonPasswords: CommonPasswords | undefined;
  private readonly attempts: LoginAttempts;
  private readonly clock: Clock;
  private readonly audit: AuditRecorder;

  constructor(deps: {
    auditRecorder: AuditRecorder;
    unitOfWork: UnitOfWork;
    secretTokens: SecretTokens;
    passwordHasher: PasswordHasher;
    commonPasswords?: CommonPasswords;
    loginAttempts: LoginAttempts;
    clock: Clock;
  }) {
    this.audit = deps.auditRecorder;
    this.unitOfWork = deps.unitOfWork;
    this.tokens = deps.secretTokens;
    this.hasher = deps.passwordHasher;
    this.commonPasswords = deps.commonPasswords;
    this.attempts = deps.loginAttempts;
    this.clock = deps.clock;
  }

  execute(input: ConfirmPasswordResetInput): Promise<{ userId: string }> {
    return this.audit.guard(ANONYMOUS, AuditActions.passwordResetConfirmed, null, () => this.confirm(input));
  }

  private async confirm(input: ConfirmPasswordResetInput): Promise<{ userId: string }> {
    assertAcceptablePassword(input.password, 'password', (p) => this.commonPasswords?.includes(p) ?? false);
    const tokenHash = this.tokens.hash(input.token);
    // Hashing is slow: done before the transaction, so no row stays locked meanwhile.
    const passwordHash = await this.hasher.hash(input.password);

    const username = await this.unitOfWork.run(async ({ users, passwordResets, audit }) => {
      const reset = await passwordResets.findByTokenHash(tokenHash);
      if (!reset) throw new PasswordResetNotFoundError();
      const now = this.clock.now();
      const status = singleUseTokenStatus(reset, now);
      if (status === 'used') throw new PasswordResetUsedError();
      if (status === 'expired') throw new PasswordResetExpiredError();
      // First, so a concurrent confirmation of the same token finds it used (the row lock orders them).
      if (!(await passwordResets.markUsed(reset, now))) throw new PasswordResetUsedError();
      const user = await users.findById(reset.userId);
      // Deactivated or deleted since the mail: the link reads as any dead one.
      if (!user || !user.isJoined || user.status !== 'active') throw new PasswordResetNotFoundError();
      // Refused here, where the account is known; the transaction, the link's use with it, is undone.
      assertPasswordNotAccountName(input.password, user);
      user.changePassword({ passwordHash, now });
      await users.update(user);
      await users.incrementTokenVersion(user.id);
      await this.audit.write(audit, { action: AuditActions.passwordResetConfirmed, actor: ANONYMOUS, target: userTarget(user) });
      return { userId: user.id, username: user.username ?? '' };
    });
    await this.attempts.succeeded(Username.normalize(username.username));
    return { userId: username.userId };
  }
}
