import type { MfaFactor, MfaFactorType } from '../../domain/mfa/mfa';
import type { Passkey, WebAuthnCeremony, WebAuthnChallenge } from '../../domain/mfa/passkey';
import type { User } from '../../domain/users/user';

/** What the password step needs of a user's second factors, read at once. */
export interface SecondStepFactors {
  /** Pending ones included, oldest first. */
  factors: MfaFactor[];
  /** Empty when not asked for. */
  passkeys: Passkey[];
  /** Unused recovery codes. */
  recoveryCodes: number;
}

/** What a sign-in ticket's second step reads, in one read: its holder, the holder's factors, and its account's tickets' use. */
export interface TicketHolder {
  /** null when the user is gone (erased or deleted). */
  holder: User | null;
  /** The holder's factors, pending ones included. */
  factors: MfaFactor[];
  /**
   * The issue time up to which the account's sign-in tickets are used up (LoginAttempts, ClaimOptions.ticketIssuedAt),
   * read with the holder; null when none was.
   */
  ticketsUsedThrough: number | null;
  /** Second-factor codes refused on the account's right-password tickets since its last success (ClaimOptions.factorFailure). */
  factorFailures: number;
}

/**
 * Second factors, recovery codes and passkeys' challenges, shared by every replica. In a unit
 * of work (`scope.mfa`) the writes commit with the change; every write that changes which factors a user
 * holds moves the user's revocation signal on in the same transaction.
 */
export interface MfaStore {
  /** The user's factors, pending ones included. */
  factorsOf(userId: string): Promise<MfaFactor[]>;
  /** Stores a pending factor, replacing a pending one of the same type (a confirmed one is left alone: false). */
  savePending(factor: MfaFactor): Promise<boolean>;
  /** Activates the pending factor; false when it is gone or confirmed meanwhile. */
  confirm(userId: string, factorId: string, at: Date): Promise<boolean>;
  /**
   * Records `step` as the factor's last used time step, only when it is later than the one recorded: false when a
   * code of this step (or a later one) was accepted already, on any replica. Atomic: two uses of one code, one wins.
   */
  useTimeStep(factorId: string, step: number): Promise<boolean>;
  /**
   * Deletes the user's factors (of `type`; without one, every factor and passkey), pending enrollments included,
   * and, when no confirmed factor and no passkey remains, its recovery codes; how many confirmed factors and passkeys
   * went (a pending enrollment alone is 0: nobody held a factor).
   */
  removeFactors(userId: string, type?: MfaFactorType): Promise<number>;
  /** The user's recovery codes become these (hashes, under the set's `salt`): every older one dies. */
  replaceRecoveryCodes(userId: string, codeHashes: readonly string[], at: Date, salt?: string): Promise<void>;
  /** The salt the user's recovery codes are hashed under; null when they have none (codes stored before salts, or no code). */
  recoveryCodeSalt(userId: string): Promise<string | null>;
  /** Uses the user's unused code with this hash: how many unused remain then, or null when none matched. */
  useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<number | null>;
  /** Makes the user's used code with this hash unused again: a sign-in used it but could not complete (its ticket used meanwhile). */
  restoreRecoveryCode(userId: string, codeHash: string): Promise<void>;
  /** How many unused recovery codes the user holds. */
  remainingRecoveryCodes(userId: string): Promise<number>;
  /** The user's factors, passkeys (when `passkeys`) and unused recovery codes: what a sign-in's password step asks. */
  secondStepOf(userId: string, options: { passkeys: boolean }): Promise<SecondStepFactors>;
  /**
   * A sign-in ticket's holder (the user `userId`), its factors and how far the tickets of its account (`accountKey`,
   * the lockout key) are used up: one read, whether the user exists or not.
   */
  ticketHolder(userId: string, accountKey: string): Promise<TicketHolder>;

  /** The user's passkeys, oldest first. */
  passkeysOf(userId: string): Promise<Passkey[]>;
  /** Stores a registered passkey; false when its credential id is registered already (to anyone). */
  addPasskey(passkey: Passkey): Promise<boolean>;
  /** false when the user has no passkey with this id. */
  renamePasskey(userId: string, passkeyId: string, name: string): Promise<boolean>;
  /** Deletes the passkey and, when it was the user's last factor, the recovery codes; false when there was none. */
  removePasskey(userId: string, passkeyId: string): Promise<boolean>;
  /**
   * Records an assertion's counter and time, only when the counter advances on the stored one (or both are 0):
   * false otherwise, on any replica. Atomic: of two assertions carrying one counter, one wins.
   */
  usePasskey(passkeyId: string, counter: number, at: Date): Promise<boolean>;
  addWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void>;
  /** Deletes the user's unexpired challenge of this ceremony with this hash: true once, false ever after. */
  takeWebAuthnChallenge(challengeHash: string, userId: string, ceremony: WebAuthnCeremony, at: Date): Promise<boolean>;
  /**
   * Deletes up to `limit` WebAuthn challenges that expired before `now` (and sign-in tickets stored by a version that
   * stored them): how many went.
   */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
