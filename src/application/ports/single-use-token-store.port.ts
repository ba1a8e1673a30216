import type { SingleUseToken } from '../../domain/shared/single-use-token';

/**
 * The links mailed to a user that work once (invitations, password resets), as stored: the token's hash
 * only, one per user. One flow, two uses: issuing replaces the user's link, following it marks that
 * very link used. Used inside a unit of work.
 */
export interface SingleUseTokenStore<T extends SingleUseToken = SingleUseToken> {
  /** Stores the user's new link, replacing (and so killing) any older one. */
  replaceForUser(token: T): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<T | null>;
  /**
   * Marks this link used if it is still the user's link and not used yet. False when it was used, replaced
   * by a newer one or is gone meanwhile: matched by its hash, so a superseded link never uses up its successor.
   */
  markUsed(token: Pick<T, 'userId' | 'tokenHash'>, at: Date): Promise<boolean>;
}
