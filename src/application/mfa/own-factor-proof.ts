import type { AuditAction } from '../../domain/audit/audit-entry';
import { InvalidMfaCodeError, isConfirmed, type MfaFactor } from '../../domain/mfa/mfa';
import { type LockoutPolicy, secondFactorClosed } from '../../domain/users/lockout-policy';
import type { User } from '../../domain/users/user';
import { Username } from '../../domain/users/username';
import { type AuditRecorder, lockFacts, userActor, userTarget } from '../audit/audit-recorder';
import { WrongCurrentPasswordError } from '../auth/session.errors';
import type { Clock } from '../ports/clock.port';
import type { ClaimOptions, LoginAttempts } from '../ports/login-attempts.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { SecretCipher } from '../ports/secret-cipher.port';
import type { Totp } from '../ports/totp.port';
import { totpDigits } from './mfa-codes';

/** What proves the caller is the account's owner before a factor goes: the password, or a current authenticator code. */
export type FactorProof = { password: string; code?: undefined } | { code: string; password?: undefined };

/**
 * Checks a proof as a sign-in checks it, against the account's lockout (a stolen access token alone cannot take a
 * factor off, nor guess on without limit). A code is used by the check: it cannot sign in afterwards.
 */
export class OwnFactorProof {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      passwordHasher: PasswordHasher;
      loginAttempts: LoginAttempts;
      lockoutPolicy: LockoutPolicy;
      mfaStore: MfaStore;
      totp: Totp;
      secretCipher: SecretCipher;
      clock: Clock;
    },
  ) {}

  /** Throws WrongCurrentPasswordError (a password) or InvalidMfaCodeError (a code) when refused; `action`'s failure audited. */
  async check(user: User, proof: FactorProof, action: AuditAction): Promise<void> {
    if (proof.code !== undefined) {
      const { code } = proof;
      // A code guessed here counts toward the second step's closing as one refused at sign-in does (MFA_MAX_FAILURES),
      // and while the step is closed no code proves anything here either: until the password is reset (review O).
      const holder = await this.deps.mfaStore.ticketHolder(user.id, accountKeyOf(user));
      const closed = secondFactorClosed(this.deps.lockoutPolicy, holder.factorFailures);
      await this.counted(
        user,
        action,
        closed ? 'second_factor_closed' : 'wrong_totp',
        () => new InvalidMfaCodeError(),
        (claimed) => this.currentCode(holder.factors, code, claimed && !closed),
        { factorFailure: true },
      );
      return;
    }
    await this.counted(user, action, 'wrong_password', () => new WrongCurrentPasswordError('password'), async (claimed) =>
      (await this.deps.passwordHasher.verify(proof.password, claimed ? user.passwordHash : undefined)) ? true : null,
    );
  }

  /**
   * One evaluation of the account's lockout around `attempt`: claimed first, `attempt` run whether the claim held or
   * not (so a locked account takes as long as a wrong proof), its outcome counted. `attempt` is told whether the claim
   * held (false: it writes nothing) and answers null for a wrong proof. Refused (a wrong proof, or locked): `action`'s
   * failure audited as `wrong` or `locked`, the lock's entry with the refusal that locked, then `refusal` thrown.
   */
  async counted<T>(
    user: User,
    action: AuditAction,
    wrong: string,
    refusal: () => Error,
    attempt: (claimed: boolean) => Promise<T | null>,
    claim: ClaimOptions = {},
  ): Promise<T> {
    const { loginAttempts, lockoutPolicy, clock, auditRecorder } = this.deps;
    const key = accountKeyOf(user);
    const claimed = await loginAttempts.claim(key, clock.now(), lockoutPolicy, claim);
    const proven = await attempt(Boolean(claimed));
    if (claimed && proven !== null) {
      await loginAttempts.succeeded(key);
      return proven;
    }
    const fact = { action, outcome: 'failure' as const, actor: userActor(user)!, target: userTarget(user), code: claimed ? wrong : 'locked' };
    // The refusal's entry, and the lock's when this refusal locked the account, as a sign-in's are.
    if (claimed) await loginAttempts.failed(key, clock.now(), lockoutPolicy, (lockedUntil) => auditRecorder.entries(fact, ...lockFacts(fact.actor, fact.target, lockedUntil)), claimed);
    else await auditRecorder.record(fact);
    throw refusal();
  }

  /**
   * A current code of the user's active app (among `factors`): its step used up (only when `settle`); null otherwise,
   * and always when not `settle` (not claimed, or the step closed). The same work either way.
   */
  private async currentCode(factors: MfaFactor[], code: string, settle: boolean): Promise<true | null> {
    const factor = factors.find((f) => f.type === 'totp' && isConfirmed(f));
    const digits = totpDigits(code);
    const secret = factor && digits ? this.deps.secretCipher.open(factor.sealedSecret) : null;
    const step = secret === null || digits === null ? null : await this.deps.totp.verify(secret, digits, this.deps.clock.now(), factor!.lastUsedStep);
    return step !== null && settle && (await this.deps.mfaStore.useTimeStep(factor!.id, step)) ? true : null;
  }
}

/** The account's lockout key: its username's. */
function accountKeyOf(user: User): string {
  return Username.normalize(user.username ?? '');
}
