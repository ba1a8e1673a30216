import { isConfirmed, type MfaChallenge } from '../../domain/mfa/mfa';
import { UserNotFoundError } from '../../domain/users/user.errors';
import type { User } from '../../domain/users/user';
import { type Actor, isServiceAccount } from '../auth/actor';
import { NotAUserError } from '../auth/session.errors';
import type { MfaStore } from '../ports/mfa-store.port';
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

/**
 * The user a sign-in ticket (mfa_token) belongs to while it is good: unused and unexpired; null otherwise. Every
 * ticket, known or not, costs one user read, so a refusal takes as long whatever its reason. A wrong password's
 * ticket is stored used (see MfaChallenge) and stays good until it expires: it is refused at its code, as a wrong
 * code is, never here.
 */
export async function ticketHolder(users: Pick<UserRepository, 'findById'>, ticket: MfaChallenge | null, now: Date): Promise<User | null> {
  const holder = await users.findById(ticket?.userId ?? NO_USER);
  return ticket && ticketWorks(ticket, now) ? holder : null;
}

/** Whether a sign-in ticket still works: unused (a wrong password's, stored used, until it expires) and unexpired. */
export function ticketWorks(ticket: MfaChallenge, now: Date): boolean {
  return (!ticket.usedAt || !ticket.passwordMatched) && ticket.expiresAt > now;
}
