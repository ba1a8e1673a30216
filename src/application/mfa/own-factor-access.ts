import { UserNotFoundError } from '../../domain/users/user.errors';
import type { User } from '../../domain/users/user';
import { type Actor, isServiceAccount } from '../auth/actor';
import { NotAUserError } from '../auth/session.errors';
import type { UserRepository } from '../ports/user-repository.port';

/** The caller's own joined, active user: what every `/v1/me/mfa` route acts on. */
export async function ownUser(users: Pick<UserRepository, 'findById'>, actor: Actor): Promise<User> {
  if (isServiceAccount(actor)) throw new NotAUserError();
  const user = await users.findById(actor.userId);
  if (!user || !user.isJoined || user.status !== 'active') throw new UserNotFoundError();
  return user;
}
