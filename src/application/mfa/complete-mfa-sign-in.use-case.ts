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
import { ticketHolder } from './own-factor-access';
import type { PasskeyCeremonies } from './passkey-ceremonies';

export interface CompleteMfaSignInInput {
  mfaToken: string;
  code?: string;
  recoveryCode?: string;
  /** A WebAuthn assertion (the JSON of `navigator.credentials.get`'s credential), answering options of this sign-in's. */
  webauthn?: unknown;
}

/** A method's verdict: true, the recovery codes left (a recovery code), or why it was refused. */
type Verdict = true | number | { refused: string };

/**
 * Every refusal of a code on a good ticket: a wrong code, and any code on a wrong password's ticket, which the
 * caller cannot tell apart (nor should a guesser), so the message names both.
 */
const CODE_REFUSED =
  'The code is not valid, or the password of this sign-in was not: use a current code of your authenticator app, an unused recovery code or a passkey, or sign in again';

export interface MfaSignInResult extends SignInResult {
  /** Set when a recovery code was used: how many unused ones remain. */
  recoveryCodesRemaining?: number;
}

/**
 * The second step of a sign-in: the password step's ticket and a current TOTP code (each time step accepted
 * once, on every replica) or an unused recovery code. Every code checked claims an evaluation of the account's
 * lockout, as a password does, so a known password does not buy unlimited guesses of the code. A passkey's
 * assertion counts the same way when it does not verify. The ticket works until it succeeds once or its five
 * minutes end. A wrong password's ticket (see MfaChallenges.demand) is checked the same way and refused as a wrong
 * code, whatever is given, counted the same way, and audited `wrong_password`.
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
      /** Absent: no assertion is accepted (WebAuthn is not wired). */
      passkeyCeremonies?: PasskeyCeremonies;
      secretTokens: SecretTokens;
      sessionIssuer: SessionIssuer;
      loginAttempts: LoginAttempts;
      lockoutPolicy: LockoutPolicy;
      clock: Clock;
    },
  ) {}

  async execute({ mfaToken, code, recoveryCode, webauthn }: CompleteMfaSignInInput): Promise<MfaSignInResult> {
    const { mfaStore, secretTokens, userRepository, loginAttempts, lockoutPolicy, clock, auditRecorder } = this.deps;
    const tokenHash = secretTokens.hash(mfaToken);
    const challenge = await mfaStore.findChallenge(tokenHash);
    const now = clock.now();
    const user = await ticketHolder(userRepository, challenge, now);
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
      throw new InvalidMfaCodeError(CODE_REFUSED);
    }
    const method = code !== undefined ? 'totp' : webauthn !== undefined ? 'webauthn' : 'recovery_code';
    // A wrong password's ticket: the same checks as a real ticket's (the same work), but nothing is used up and
    // nothing completes it, so a right code cannot confirm a guessed password.
    const decoy = !challenge!.passwordMatched;
    const verdict = await this.verdict(user.id, { code, recoveryCode, webauthn }, now, !decoy);
    const remaining: Verdict = decoy ? { refused: 'wrong_password' } : verdict;
    if (typeof remaining === 'object') {
      await loginAttempts.failed(key, clock.now(), lockoutPolicy, (lockedUntil) => this.refusalEntries(refusal(remaining.refused), lockedUntil, user));
      throw new InvalidMfaCodeError(CODE_REFUSED);
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

  /** `settle` false (a wrong password's ticket): checked as usual, but no time step, recovery code or counter is used up. */
  private async verdict(userId: string, given: Omit<CompleteMfaSignInInput, 'mfaToken'>, now: Date, settle: boolean): Promise<Verdict> {
    if (given.code !== undefined) return (await this.useTotp(userId, given.code, now, settle)) || { refused: 'wrong_totp' };
    if (given.webauthn !== undefined) {
      const check = this.deps.passkeyCeremonies ? await this.deps.passkeyCeremonies.verifyAssertion(userId, given.webauthn, { record: settle }) : { ok: false as const, why: 'unknown_passkey' };
      // A regressed counter is told apart in the trail: a cloned authenticator, or a replayed assertion.
      return check.ok || { refused: check.why === 'counter_regressed' ? 'webauthn_counter_regressed' : 'wrong_webauthn' };
    }
    const left = await this.useRecoveryCode(userId, given.recoveryCode ?? '', now, settle);
    return left === false ? { refused: 'wrong_recovery_code' } : left;
  }

  /**
   * True when the code is right and its time step was not used yet (then it is used, when `settle`); false
   * otherwise. Unsettled, a right code costs what a wrong one does: no write.
   */
  private async useTotp(userId: string, code: string, now: Date, settle: boolean): Promise<boolean> {
    if (!looksLikeTotpCode(code)) return false;
    const factor = (await this.deps.mfaStore.factorsOf(userId)).find((f) => f.type === 'totp' && isConfirmed(f));
    if (!factor) return false;
    const step = await this.deps.totp.verify(this.deps.secretCipher.open(factor.sealedSecret), code, now, factor.lastUsedStep);
    return step !== null && settle && (await this.deps.mfaStore.useTimeStep(factor.id, step));
  }

  /**
   * How many recovery codes remain after using this one; false when it is not an unused code of the user's.
   * Unsettled, the same statement runs with a hash no code has (a wrong code's work), so no code is used up.
   */
  private async useRecoveryCode(userId: string, recoveryCode: string, now: Date, settle: boolean): Promise<number | false> {
    const hash = recoveryCodeHash(this.deps.secretTokens, recoveryCode);
    const remaining = await this.deps.mfaStore.useRecoveryCode(userId, settle ? hash : this.deps.secretTokens.hash(`unsettled:${hash}`), now);
    return remaining ?? false;
  }

  private refusalEntries(fact: AuditFact, lockedUntil: Date | null, user: User) {
    const lock: AuditFact[] = lockedUntil
      ? [{ action: AuditActions.lockedOut, code: 'threshold_reached', actor: ANONYMOUS, target: userTarget(user), changes: [{ field: 'locked_until', before: null, after: lockedUntil.toISOString() }] }]
      : [];
    return this.deps.auditRecorder.entries(fact, ...lock);
  }
}
