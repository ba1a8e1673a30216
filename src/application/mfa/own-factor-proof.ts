import type { AuditAction } from '../../domain/audit/audit-entry';
import { InvalidMfaCodeError, isConfirmed } from '../../domain/mfa/mfa';
import type { LockoutPolicy } from '../../domain/users/lockout-policy';
import type { User } from '../../domain/users/user';
import { Username } from '../../domain/users/username';
import { type AuditRecorder, lockFacts, userActor, userTarget } from '../audit/audit-recorder';
import { WrongCurrentPasswordError } from '../auth/session.errors';
import type { Clock } from '../ports/clock.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { PasswordHasher } from '../ports/password-hasher.port';
import type { SecretCipher } from '../ports/secret-cipher.port';
import type { Totp } from '../ports/totp.port';
import { looksLikeTotpCode } from './mfa-codes';

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
    const { loginAttempts, lockoutPolicy, clock, auditRecorder } = this.deps;
    const key = Username.normalize(user.username ?? '');
    const claimed = await loginAttempts.claim(key, clock.now(), lockoutPolicy);
    const proven = proof.code !== undefined ? claimed && (await this.currentCode(user.id, proof.code)) : await this.deps.passwordHasher.verify(proof.password, claimed ? user.passwordHash : undefined);
    if (claimed && proven) {
      await loginAttempts.succeeded(key);
      return;
    }
    const wrong = proof.code !== undefined ? 'wrong_totp' : 'wrong_password';
    const refusal = { action, outcome: 'failure' as const, actor: userActor(user)!, target: userTarget(user), code: claimed ? wrong : 'locked' };
    // The refusal's entry, and the lock's when this refusal locked the account, as a sign-in's are.
    if (claimed) await loginAttempts.failed(key, clock.now(), lockoutPolicy, (lockedUntil) => auditRecorder.entries(refusal, ...lockFacts(refusal.actor, refusal.target, lockedUntil)), claimed);
    else await auditRecorder.record(refusal);
    throw proof.code !== undefined ? new InvalidMfaCodeError() : new WrongCurrentPasswordError('password');
  }

  private async currentCode(userId: string, code: string): Promise<boolean> {
    if (!looksLikeTotpCode(code)) return false;
    const factor = (await this.deps.mfaStore.factorsOf(userId)).find((f) => f.type === 'totp' && isConfirmed(f));
    if (!factor) return false;
    const secret = this.deps.secretCipher.open(factor.sealedSecret);
    const step = secret === null ? null : await this.deps.totp.verify(secret, code, this.deps.clock.now(), factor.lastUsedStep);
    return step !== null && (await this.deps.mfaStore.useTimeStep(factor.id, step));
  }
}
