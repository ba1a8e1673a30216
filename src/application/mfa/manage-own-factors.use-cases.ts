import { AuditActions } from '../../domain/audit/audit-entry';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';
import { MfaNotEnabledError, RECOVERY_CODE_COUNT, isConfirmed } from '../../domain/mfa/mfa';
import { userMfaRemoved } from '../../domain/mfa/mfa.events';
import { Username } from '../../domain/users/username';
import { type AuditRecorder, userActor, userTarget } from '../audit/audit-recorder';
import type { Actor } from '../auth/actor';
import { WrongCurrentPasswordError } from '../auth/session.errors';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { RecoveryCodeGenerator } from '../ports/totp.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';
import type { UserRepository } from '../ports/user-repository.port';
import { recoveryCodeHash } from './mfa-codes';
import { ownUser } from './own-factor-access';

export interface OwnFactors {
  factors: { type: 'totp'; confirmed: boolean; createdAt: Date; confirmedAt: Date | null }[];
  recoveryCodesRemaining: number;
}

/** The caller's factors (no secret), pending ones included, and how many recovery codes are left. */
export class ListOwnFactorsUseCase {
  constructor(private readonly deps: { userRepository: UserRepository; mfaStore: MfaStore }) {}

  async execute({ actor }: { actor: Actor }): Promise<OwnFactors> {
    const user = await ownUser(this.deps.userRepository, actor);
    const factors = await this.deps.mfaStore.factorsOf(user.id);
    return {
      factors: factors.map((f) => ({ type: f.type, confirmed: isConfirmed(f), createdAt: f.createdAt, confirmedAt: f.confirmedAt })),
      recoveryCodesRemaining: await this.deps.mfaStore.remainingRecoveryCodes(user.id),
    };
  }
}

/**
 * Removes the caller's authenticator app, on the password (checked as a sign-in checks it, against the same
 * lockout): a stolen access token alone cannot take the factor off. The recovery codes go with the last factor.
 */
export class RemoveOwnTotpUseCase {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      userRepository: UserRepository;
      unitOfWork: UnitOfWork;
      passwordHasher: PasswordHasher;
      loginAttempts: LoginAttempts;
      lockoutPolicy: LockoutPolicy;
      idGenerator: IdGenerator;
      clock: Clock;
    },
  ) {}

  async execute({ actor, password }: { actor: Actor; password: string }): Promise<void> {
    const { userRepository, loginAttempts, lockoutPolicy, passwordHasher, clock, auditRecorder, unitOfWork } = this.deps;
    const user = await ownUser(userRepository, actor);
    const actorName = userActor(user)!;
    const key = Username.normalize(user.username ?? '');
    const claimed = await loginAttempts.claim(key, clock.now(), lockoutPolicy);
    const matches = await passwordHasher.verify(password, claimed ? user.passwordHash : undefined);
    if (claimed && matches) await loginAttempts.succeeded(key);
    else {
      const refusal = { action: AuditActions.mfaRemoved, outcome: 'failure' as const, actor: actorName, target: userTarget(user), code: claimed ? 'wrong_password' : 'locked' };
      if (claimed) await loginAttempts.failed(key, clock.now(), lockoutPolicy, () => auditRecorder.entries(refusal));
      else await auditRecorder.record(refusal);
      throw new WrongCurrentPasswordError();
    }
    const { idGenerator } = this.deps;
    await unitOfWork.run(async ({ mfa, outbox, audit }) => {
      if ((await mfa.removeFactors(user.id, 'totp')) === 0) throw new MfaNotEnabledError();
      await outbox.append([userMfaRemoved(idGenerator.next(), user.id, ['totp'], user.id, clock.now())]);
      await auditRecorder.write(audit, { action: AuditActions.mfaRemoved, actor: actorName, target: userTarget(user), code: 'totp' });
    });
  }
}

/** Ten new recovery codes, shown once; every older one dies. Only for a user with an active factor. */
export class RegenerateRecoveryCodesUseCase {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      userRepository: UserRepository;
      unitOfWork: UnitOfWork;
      recoveryCodeGenerator: RecoveryCodeGenerator;
      secretTokens: SecretTokens;
      clock: Clock;
    },
  ) {}

  async execute({ actor }: { actor: Actor }): Promise<{ recoveryCodes: string[] }> {
    const { userRepository, unitOfWork, recoveryCodeGenerator, secretTokens, clock, auditRecorder } = this.deps;
    const user = await ownUser(userRepository, actor);
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCodeGenerator.next());
    const hashes = recoveryCodes.map((c) => recoveryCodeHash(secretTokens, c));
    const now = clock.now();
    await unitOfWork.run(async ({ mfa, audit }) => {
      if (!(await mfa.factorsOf(user.id)).some(isConfirmed)) throw new MfaNotEnabledError();
      await mfa.replaceRecoveryCodes(user.id, hashes, now);
      await auditRecorder.write(audit, { action: AuditActions.mfaRecoveryCodesRegenerated, actor: userActor(user)!, target: userTarget(user) });
    });
    return { recoveryCodes };
  }
}
