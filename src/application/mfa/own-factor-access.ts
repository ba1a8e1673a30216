import { isConfirmed, MFA_CHALLENGE_TTL_SECONDS, type MfaFactor } from '../../domain/mfa/mfa';
import { Username } from '../../domain/users/username';
import { UserNotFoundError } from '../../domain/users/user.errors';
import type { User } from '../../domain/users/user';
import { type Actor, isServiceAccount } from '../auth/actor';
import { NotAUserError } from '../auth/session.errors';
import type { Clock } from '../ports/clock.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { SignInTicketClaims, SignInTickets } from '../ports/sign-in-tickets.port';
import type { UserRepository } from '../ports/user-repository.port';

/** The caller's own joined, active user: what every `/v1/me/mfa` route acts on. */
export async function ownUser(users: Pick<UserRepository, 'findById'>, actor: Actor): Promise<User> {
  if (isServiceAccount(actor)) throw new NotAUserError();
  const user = await users.findById(actor.userId);
  if (!user || !user.isJoined || user.status !== 'active') throw new UserNotFoundError();
  return user;
}

/** Whether the user holds an active second factor: a confirmed authenticator app, or a passkey. */
export async function holdsActiveFactor(store: Pick<MfaStore, 'factorsOf' | 'passkeysOf'>, userId: string): Promise<boolean> {
  return (await store.factorsOf(userId)).some(isConfirmed) || (await store.passkeysOf(userId)).length > 0;
}

/** No user has this id: what an unknown ticket's read, and a sign-in without a user's factors, look up. */
export const NO_USER = '00000000-0000-0000-0000-000000000000';

/** No account has this lockout key: what a ticket that does not open reads its tickets' use under. */
const NO_ACCOUNT = '';

/** A sign-in ticket that works, as the second step reads it: its claims, its holder and the holder's factors. */
export interface OpenTicket {
  claims: SignInTicketClaims;
  holder: User;
  factors: MfaFactor[];
  /** Codes refused on the account's right-password tickets since its last success (TicketHolder.factorFailures). */
  factorFailures: number;
}

/**
 * The sign-in ticket (mfa_token) opened and its holder read, while it is good: sealed by us, unexpired, not used up,
 * held by a joined user (active, for a right password's ticket) still named as when it was issued; null otherwise. Every token, one of ours or not,
 * costs the same one read, so a refusal takes as long whatever its reason. A wrong password's ticket is never used
 * up and stays good until it expires: it is refused at its code, as a wrong code is, never here.
 */
export async function openTicket(deps: { mfaStore: Pick<MfaStore, 'ticketHolder'>; signInTickets: SignInTickets; clock: Clock }, token: string): Promise<OpenTicket | null> {
  const claims = deps.signInTickets.open(token);
  const read = await deps.mfaStore.ticketHolder(claims?.userId ?? NO_USER, claims?.accountKey ?? NO_ACCOUNT);
  const user = read.holder;
  if (!claims || !user || !ticketWorks(claims, read.ticketsUsedThrough, deps.clock.now())) return null;
  // A wrong password's ticket opens whatever the holder's status (a locked or deactivated account's sign-in gets one,
  // as a wrong password does): it is refused at its code like any other, and never completes.
  if (!user.isJoined || (claims.passwordMatched && user.status !== 'active') || Username.normalize(user.username ?? '') !== claims.accountKey) return null;
  // A password change or reset, a sign-out or an admin's reset since the password step ends the ticket.
  if (user.tokenVersion !== claims.tokenVersion) return null;
  return { claims, holder: user, factors: read.factors, factorFailures: read.factorFailures };
}

/** Whether a sign-in ticket still works: unexpired, and (a right password's) issued after the last one used up. */
export function ticketWorks(ticket: SignInTicketClaims, usedThrough: number | null, now: Date): boolean {
  const unexpired = ticket.issuedAtMicros + MFA_CHALLENGE_TTL_SECONDS * 1_000_000 > now.getTime() * 1000;
  return unexpired && (!ticket.passwordMatched || usedThrough === null || ticket.issuedAtMicros > usedThrough);
}
