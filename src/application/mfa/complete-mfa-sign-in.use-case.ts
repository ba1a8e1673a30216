import { ANONYMOUS, AuditActions } from '../../domain/audit/audit-entry';
import { InvalidMfaCodeError, InvalidMfaTokenError, isConfirmed, type MfaFactor } from '../../domain/mfa/mfa';
import { type LockoutPolicy, secondFactorClosed } from '../../domain/users/lockout-policy';
import type { User } from '../../domain/users/user';
import { type AuditFact, type AuditRecorder, lockFacts, userActor, userTarget } from '../audit/audit-recorder';
import type { SessionIssuer } from '../auth/session-issuer';
import { type SignInResult, signInResult } from '../auth/sign-in.use-case';
import type { Clock } from '../ports/clock.port';
import type { LoginAttempts } from '../ports/login-attempts.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { RoleRepository } from '../ports/role-repository.port';
import type { RecoveryCodeHasher } from '../ports/recovery-code-hasher.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { SecretCipher } from '../ports/secret-cipher.port';
import type { SignInTickets } from '../ports/sign-in-tickets.port';
import type { Totp } from '../ports/totp.port';
import { recoveryCodeHash, totpDigits } from './mfa-codes';
import { openTicket } from './own-factor-access';
import type { PasskeyCeremonies } from './passkey-ceremonies';

export interface CompleteMfaSignInInput {
  mfaToken: string;
  code?: string;
  recoveryCode?: string;
  /** A WebAuthn assertion (the JSON of `navigator.credentials.get`'s credential), answering options of this sign-in's. */
  webauthn?: unknown;
}

/** A method's verdict: true (a passkey, or a code used up with its claim), the recovery codes left (a recovery code), or why it was refused. */
type Verdict = true | number | { refused: string };

/**
 * Every refusal of a code on a good ticket: a wrong code, and any code on a wrong password's ticket, which the
 * caller cannot tell apart (nor should a guesser), so the message names both.
 */
const CODE_REFUSED =
  'The code is not valid, or the password of this sign-in was not: use a current code of your authenticator app, an unused recovery code or a passkey, or sign in again. ' +
  'After many refused codes the second step stays closed until the password is reset';

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
 * code, whatever is given, counted the same way, and audited `wrong_password`. The ticket is sealed, not stored
 * (SignInTickets): its holder and factors are read at once, and it is used up with the success's lockout counters.
 */
export class CompleteMfaSignInUseCase {
  constructor(
    private readonly deps: {
      auditRecorder: AuditRecorder;
      roleRepository: RoleRepository;
      mfaStore: MfaStore;
      totp: Totp;
      secretCipher: SecretCipher;
      /** Absent: no assertion is accepted (WebAuthn is not wired). */
      passkeyCeremonies?: PasskeyCeremonies;
      secretTokens: SecretTokens;
      recoveryCodeHasher: RecoveryCodeHasher;
      signInTickets: SignInTickets;
      sessionIssuer: SessionIssuer;
      loginAttempts: LoginAttempts;
      lockoutPolicy: LockoutPolicy;
      clock: Clock;
    },
  ) {}

  async execute({ mfaToken, code, recoveryCode, webauthn }: CompleteMfaSignInInput): Promise<MfaSignInResult> {
    const { loginAttempts, lockoutPolicy, clock, auditRecorder } = this.deps;
    // The ticket opened, its holder, the holder's factors and the account's tickets' use in one read: one statement
    // whatever the ticket, one of ours or not, so a refusal takes as long whatever its reason.
    const ticket = await openTicket(this.deps, mfaToken);
    const now = clock.now();
    if (!ticket) {
      await auditRecorder.record({ action: AuditActions.mfaSignInFailed, outcome: 'failure', code: 'invalid_mfa_token', actor: ANONYMOUS, target: null });
      throw new InvalidMfaTokenError();
    }
    const { holder: user, claims: issued } = ticket;
    const key = issued.accountKey;
    const actor = userActor(user)!;
    const target = userTarget(user);
    const refusal = (why: string): AuditFact => ({ action: AuditActions.mfaSignInFailed, outcome: 'failure', code: why, actor, target });
    /** `claimed`: the count of this check's claim, when it claimed (LoginAttempts.failed); absent when refused as locked. */
    const refuseCode = async (why: string, claimed?: number): Promise<never> => {
      await loginAttempts.failed(key, clock.now(), lockoutPolicy, (lockedUntil) => this.refusalEntries(refusal(why), lockedUntil, user), claimed);
      throw new InvalidMfaCodeError(CODE_REFUSED);
    };
    // A right password's ticket, but its account's second step closed (SECOND_FACTOR_FAILURE_LIMIT codes refused since
    // its last success): refused as a wrong password's ticket is, with the same work, whatever is given.
    const closed = issued.passwordMatched && secondFactorClosed(lockoutPolicy, ticket.factorFailures);
    const decoy = !issued.passwordMatched || closed;
    const method = code !== undefined ? 'totp' : webauthn !== undefined ? 'webauthn' : 'recovery_code';
    // The password step claimed this account moments ago: its counters are there (one statement). A refused code of a
    // right password's ticket is also counted apart, where a lock does not start it over (the same statement, else).
    const claim = { claimedBefore: true, factorFailure: issued.passwordMatched };
    const decoyReason = closed ? 'second_factor_closed' : 'wrong_password';
    let remaining: Verdict;
    /** What a counting claim of this check answered (a right code's claim starts the counters over instead). */
    let counted: number | undefined;
    if (code !== undefined) {
      // A code is checked in memory first (nothing is used up by a check). A right one on a good ticket claims its
      // evaluation, starts the counters over and uses the ticket and its time step up, in one statement where the
      // database can; anything else (a wrong code, any code on a wrong password's ticket) claims as a wrong password
      // does. Refused while locked, both do the same work. A right code's claim refused for a ticket used meanwhile
      // (the same ticket completed on another request) is refused as a locked one is: that race is the only way to
      // it past the read above.
      const pending = await this.totpStep(ticket.factors, code, now);
      const right = decoy ? null : pending;
      const claimed = right
        ? await loginAttempts.claimSucceeded(key, now, lockoutPolicy, { ...claim, ticketIssuedAt: issued.issuedAtMicros, timeStep: right })
        : await loginAttempts.claim(key, now, lockoutPolicy, claim);
      // The password step's claim may have spent the allowance: `failed` turns that into the lock's wait.
      if (!claimed) return refuseCode('locked');
      if (claimed === 'step_used') {
        // Taken meanwhile (the same code on another ticket or replica): a replay, refused and counted as a wrong
        // code, its claim made again (the right code's claim started the counters over).
        const again = await loginAttempts.claim(key, clock.now(), lockoutPolicy, claim);
        return refuseCode('wrong_totp', again === false ? undefined : again);
      }
      if (typeof claimed === 'number') counted = claimed;
      remaining = right ? true : { refused: decoy ? decoyReason : 'wrong_totp' };
    } else {
      const claimed = await loginAttempts.claim(key, now, lockoutPolicy, claim);
      if (!claimed) return refuseCode('locked');
      counted = claimed;
      // A wrong password's ticket: the same checks as a real ticket's (the same work), but nothing is used up and
      // nothing completes it, so a right code cannot confirm a guessed password.
      const verdict = await this.verdict(user.id, { recoveryCode, webauthn }, now, !decoy);
      remaining = decoy ? { refused: decoyReason } : verdict;
    }
    if (typeof remaining === 'object') return refuseCode(remaining.refused, counted);
    if (method !== 'totp' && !(await loginAttempts.succeeded(key, { ticketIssuedAt: issued.issuedAtMicros }))) {
      // A recovery code or a passkey: the counters start over and the ticket is used up together; refused when the
      // ticket was used meanwhile (the same ticket completed on another request), and then the recovery code this
      // request used is given back: a refused request uses nothing up (review I).
      if (typeof remaining === 'number') await this.deps.mfaStore.restoreRecoveryCode(user.id, await this.recoveryCodeHashOf(user.id, recoveryCode ?? ''));
      await auditRecorder.record(refusal('invalid_mfa_token'));
      throw new InvalidMfaTokenError();
    }
    const role = await this.deps.roleRepository.findById(user.roleId);
    if (!role) {
      await auditRecorder.record(refusal('no_role'));
      throw new InvalidMfaTokenError();
    }
    const tokens = await this.deps.sessionIssuer.start(user.id, user.tokenVersion);
    const left = typeof remaining === 'number' ? remaining : undefined;
    const facts: AuditFact[] = [{ action: AuditActions.signInSucceeded, actor, target, code: method }];
    if (left !== undefined) facts.push({ action: AuditActions.mfaRecoveryCodeUsed, actor, target, changes: [{ field: 'recovery_codes_remaining', before: left + 1, after: left }] });
    await auditRecorder.record(...facts);
    return { ...signInResult(user, role, tokens), ...(left !== undefined ? { recoveryCodesRemaining: left } : {}) };
  }

  /** A recovery code's or a passkey's verdict. `settle` false (a wrong password's ticket): checked as usual, but no recovery code or counter is used up. */
  private async verdict(userId: string, given: Pick<CompleteMfaSignInInput, 'recoveryCode' | 'webauthn'>, now: Date, settle: boolean): Promise<Verdict> {
    if (given.webauthn !== undefined) {
      const check = this.deps.passkeyCeremonies ? await this.deps.passkeyCeremonies.verifyAssertion(userId, given.webauthn, { record: settle }) : { ok: false as const, why: 'unknown_passkey' };
      // A regressed counter is told apart in the trail: a cloned authenticator, or a replayed assertion.
      return check.ok || { refused: check.why === 'counter_regressed' ? 'webauthn_counter_regressed' : 'wrong_webauthn' };
    }
    const left = await this.useRecoveryCode(userId, given.recoveryCode ?? '', now, settle);
    return left === false ? { refused: 'wrong_recovery_code' } : left;
  }

  /**
   * The time step of a right code not used yet (after the factor's last used step), to be used up with its claim;
   * null otherwise. Nothing is written here: a right code costs what a wrong one does until it is used.
   */
  private async totpStep(factors: MfaFactor[], code: string, now: Date): Promise<{ factorId: string; step: number } | null> {
    const digits = totpDigits(code);
    if (digits === null) return null;
    const factor = factors.find((f) => f.type === 'totp' && isConfirmed(f));
    if (!factor) return null;
    // A secret that does not open (a lost or rotated key) verifies no code: refused as a wrong one, counted as one.
    const secret = this.deps.secretCipher.open(factor.sealedSecret);
    const step = secret === null ? null : await this.deps.totp.verify(secret, digits, now, factor.lastUsedStep);
    return step === null ? null : { factorId: factor.id, step };
  }

  /**
   * How many recovery codes remain after using this one; false when it is not an unused code of the user's.
   * Unsettled, the same statement runs with a hash no code has (a wrong code's work), so no code is used up.
   */
  private async useRecoveryCode(userId: string, recoveryCode: string, now: Date, settle: boolean): Promise<number | false> {
    const hash = await this.recoveryCodeHashOf(userId, recoveryCode);
    const remaining = await this.deps.mfaStore.useRecoveryCode(userId, settle ? hash : this.deps.secretTokens.hash(`unsettled:${hash}`), now);
    return remaining ?? false;
  }

  /** The code typed as the user's set stores it: a slow hash under the set's salt (one per attempt, as a password's). */
  private async recoveryCodeHashOf(userId: string, recoveryCode: string): Promise<string> {
    return recoveryCodeHash(this.deps, recoveryCode, await this.deps.mfaStore.recoveryCodeSalt(userId));
  }

  private refusalEntries(fact: AuditFact, lockedUntil: Date | null, user: User) {
    return this.deps.auditRecorder.entries(fact, ...lockFacts(ANONYMOUS, userTarget(user), lockedUntil));
  }
}
