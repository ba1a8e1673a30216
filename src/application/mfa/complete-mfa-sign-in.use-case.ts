import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import { InvalidMfaCodeError, InvalidMfaTokenError, isConfirmed } from '../../domain/mfa/mfa';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';
import type { User } from '../../domain/users/user';
import { Username } from '../../domain/users/username';
import { type AuditFact, type AuditRecorder, userActor, userTarget } from '../audit/audit-recorder';
import type { SessionIssuer } from '../auth/session-issuer';
import { type SignInResult, signInResult } from '../auth/sign-in.use-case';
import type { Clock } from '../ports/clock.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { SecretCipher } from '../ports/secret-cipher.port';
import type { Totp } from '../ports/totp.port';
import type { UserRepository } from '../ports/user-repository.port';
import { looksLikeTotpCode, recoveryCodeHash } from './mfa-codes';

export interface CompleteMfaSignInInput {
  mfaToken: string;
  code?: string;
  recoveryCode?: string;
}

export interface MfaSignInResult extends SignInResult {
  /** Set when a recovery code was used: how many unused ones remain. */
  recoveryCodesRemaining?: number;
}

/**
 * The second step of a sign-in: the password step's ticket and a current TOTP code (each time step accepted
 * once, on every replica) or an unused recovery code. Every code checked claims an evaluation of the account's
 * lockout, as a password does, so a known password does not buy unlimited guesses of the code. The ticket
 * works until it succeeds once or its five minutes end.
 */
export class CompleteMfaSignInUseCase {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      userRepository: UserRepository;
      roleRepository: RoleRepository;
      mfaStore: MfaStore;
      totp: Totp;
      secretCipher: SecretCipher;
      secretTokens: SecretTokens;
      sessionIssuer: SessionIssuer;
      loginAttempts: LoginAttempts;
      lockoutPolicy: LockoutPolicy;
      clock: Clock;
    },
  ) {}

  async execute({ mfaToken, code, recoveryCode }: CompleteMfaSignInInput): Promise<MfaSignInResult> {
    const { mfaStore, secretTokens, userRepository, loginAttempts, lockoutPolicy, clock, auditRecorder } = this.deps;
    const tokenHash = secretTokens.hash(mfaToken);
    const challenge = await mfaStore.findChallenge(tokenHash);
    const now = clock.now();
    const user = challenge && !challenge.usedAt && challenge.expiresAt > now ? await userRepository.findById(challenge.userId) : null;
    if (!user || !user.isJoined || user.status !== 'active') {
      await auditRecorder.record({ action: AuditActions.mfaSignInFailed, outcome: 'failure', code: 'invalid_mfa_token', actor: ANONYMOUS, target: null });
      throw new InvalidMfaTokenError();
    }
    const key = Username.normalize(user.username ?? '');
    const actor = userActor(user)!;
    const target = userTarget(user);
    const refusal = (why: string): AuditFact => ({ action: AuditActions.mfaSignInFailed, outcome: 'failure', code: why, actor, target });
    if (!(await loginAttempts.claim(key, now, lockoutPolicy))) {
      // The password step's claim may have spent the allowance: `failed` turns that into the lock's wait.
      await loginAttempts.failed(key, now, lockoutPolicy, (lockedUntil) => this.refusalEntries(refusal('locked'), lockedUntil, user));
      throw new InvalidMfaCodeError();
    }
    const method = code !== undefined ? 'totp' : 'recovery_code';
    const remaining = code !== undefined ? await this.useTotp(user.id, code, now) : await this.useRecoveryCode(user.id, recoveryCode ?? '', now);
    if (remaining === false) {
      await loginAttempts.failed(key, clock.now(), lockoutPolicy, (lockedUntil) => this.refusalEntries(refusal(`wrong_${method}`), lockedUntil, user));
      throw new InvalidMfaCodeError();
    }
    if (!(await mfaStore.useChallenge(tokenHash, now))) {
      await auditRecorder.record(refusal('invalid_mfa_token'));
      throw new InvalidMfaTokenError();
    }
    await loginAttempts.succeeded(key);
    const role = await this.deps.roleRepository.findById(user.roleId);
    if (!role) {
      await auditRecorder.record(refusal('no_role'));
      throw new InvalidMfaTokenError();
    }
    const tokens = await this.deps.sessionIssuer.start(user.id, user.tokenVersion);
    const facts: AuditFact[] = [{ action: AuditActions.signInSucceeded, actor, target, code: method }];
    if (remaining !== true) facts.push({ action: AuditActions.mfaRecoveryCodeUsed, actor, target, changes: [{ field: 'recovery_codes_remaining', before: remaining + 1, after: remaining }] });
    await auditRecorder.record(...facts);
    return { ...signInResult(user, role, tokens), ...(remaining !== true ? { recoveryCodesRemaining: remaining } : {}) };
  }

  /** True when the code is right and its time step was not used yet (then it is used); false otherwise. */
  private async useTotp(userId: string, code: string, now: Date): Promise<boolean> {
    if (!looksLikeTotpCode(code)) return false;
    const factor = (await this.deps.mfaStore.factorsOf(userId)).find((f) => f.type === 'totp' && isConfirmed(f));
    if (!factor) return false;
    const step = await this.deps.totp.verify(this.deps.secretCipher.open(factor.sealedSecret), code, now, factor.lastUsedStep);
    return step !== null && (await this.deps.mfaStore.useTimeStep(factor.id, step));
  }

  /** How many recovery codes remain after using this one; false when it is not an unused code of the user's. */
  private async useRecoveryCode(userId: string, recoveryCode: string, now: Date): Promise<number | false> {
    const remaining = await this.deps.mfaStore.useRecoveryCode(userId, recoveryCodeHash(this.deps.secretTokens, recoveryCode), now);
    return remaining ?? false;
  }

  private refusalEntries(fact: AuditFact, lockedUntil: Date | null, user: User) {
    const lock: AuditFact[] = lockedUntil
      ? [{ action: AuditActions.lockedOut, code: 'threshold_reached', actor: ANONYMOUS, target: userTarget(user), changes: [{ field: 'locked_until', before: null, after: lockedUntil.toISOString() }] }]
      : [];
    return this.deps.auditRecorder.entries(fact, ...lock);
  }
}
