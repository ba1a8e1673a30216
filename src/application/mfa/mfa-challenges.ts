import { MFA_CHALLENGE_TTL_SECONDS, isConfirmed } from '../../domain/mfa/mfa';
import type { Passkey } from '../../domain/mfa/passkey';
import type { Clock } from '../ports/clock.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { SignInTickets } from '../ports/sign-in-tickets.port';
import { MfaRequiredError, type MfaMethod } from './mfa.errors';
import type { PasskeyCeremonies } from './passkey-ceremonies';

/** What completes a user's sign-in: the methods, and the passkeys a WebAuthn assertion may come from. */
export interface SecondStep {
  methods: MfaMethod[];
  passkeys: Passkey[];
}

/**
 * The password step's gate for a user with a factor: instead of a session, a short-lived single-use ticket
 * (sealed, not stored: SignInTickets) for `POST /v1/auth/signin/mfa`, the methods that can complete it and, for a
 * user with a passkey, the options of a WebAuthn assertion (their challenge stored, as every replica must find it).
 */
export class MfaChallenges {
  private readonly store: MfaStore;
  private readonly tickets: SignInTickets;
  private readonly clock: Clock;
  private readonly passkeys: PasskeyCeremonies | undefined;
  private lastIssuedMicros = 0;

  constructor(deps: { mfaStore: MfaStore; signInTickets: SignInTickets; clock: Clock; passkeyCeremonies?: PasskeyCeremonies }) {
    this.store = deps.mfaStore;
    this.tickets = deps.signInTickets;
    this.clock = deps.clock;
    this.passkeys = deps.passkeyCeremonies;
  }

  /** The second step of the user's sign-in when it holds an active factor; null when it holds none. */
  async methodsFor(userId: string): Promise<SecondStep | null> {
    // One read (two for a user with passkeys): it runs on every sign-in, with a factor or without.
    const held = await this.store.secondStepOf(userId, { passkeys: this.passkeys !== undefined });
    const factors = held.factors.filter(isConfirmed);
    const { passkeys } = held;
    if (factors.length === 0 && passkeys.length === 0) return null;
    const methods: MfaMethod[] = [...new Set(factors.map((f) => f.type))];
    if (passkeys.length > 0) methods.push('webauthn');
    if (held.recoveryCodes > 0) methods.push('recovery_code');
    return { methods, passkeys };
  }

  /**
   * Throws MfaRequiredError carrying a new ticket for the second step of the account `accountKey` (the password
   * step's lockout key). A wrong password (`passwordMatched` false) gets the same: a ticket of the same form and
   * length, the same methods and options (of the user's passkeys, their challenge stored), but one that no factor
   * completes. Nothing is written for the ticket itself.
   */
  async demand(userId: string, accountKey: string, step: SecondStep, { passwordMatched, tokenVersion }: { passwordMatched: boolean; tokenVersion: number }): Promise<never> {
    // Microseconds, one more than the last ticket's when the clock has not moved on since: of two tickets this process
    // hands out, the later is never used up by the earlier's use (ClaimOptions.ticketIssuedAt).
    const issuedAtMicros = Math.max(this.clock.now().getTime() * 1000, this.lastIssuedMicros + 1);
    this.lastIssuedMicros = issuedAtMicros;
    const token = this.tickets.issue({ userId, accountKey, issuedAtMicros, passwordMatched, tokenVersion });
    const webauthn = step.passkeys.length > 0 && this.passkeys ? await this.passkeys.signInOptions(userId, step.passkeys) : null;
    throw new MfaRequiredError(token, step.methods, MFA_CHALLENGE_TTL_SECONDS, webauthn);
  }
}
