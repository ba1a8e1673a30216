import type { User } from '../../domain/users/user';
import type { Slice } from '../shared/pagination';

export interface UserRepository {
  findById(id: string): Promise<User | null>;
  /** By username, compared case-insensitively. */
  findByUsername(username: string): Promise<User | null>;
  /** Whether a user, pending or joined, has this e-mail, compared case-insensitively. */
  existsWithEmail(email: string): Promise<boolean>;
  existsWithUsername(username: string): Promise<boolean>;
  /** Adds a new user; throws EmailAlreadyTakenError / UsernameAlreadyTakenError on a duplicate. */
  add(user: User): Promise<void>;
  /** Saves a changed user; throws UsernameAlreadyTakenError when its new username is taken. */
  update(user: User): Promise<void>;
  delete(id: string): Promise<void>;
  /**
   * Atomically bumps the user's token version (sign-out), so every token issued before is refused.
   * `update` never writes the token version, so a concurrent save cannot undo a sign-out.
   */
  incrementTokenVersion(id: string): Promise<void>;
  /** In creation order, then id: a stable order across pages. */
  list(slice: Slice): Promise<{ items: User[]; total: number }>;
}
