/**
 * One refresh token as stored: never the token itself, only its SHA-256. Tokens of one sign-in form a
 * family (RFC 9700 §4.14.2): each exchange uses one up and adds its successor to the family.
 */
export interface RefreshToken {
  id: string;
  familyId: string;
  userId: string;
  /** SHA-256 (hex) of the opaque token. */
  tokenHash: string;
  /** The user's token version at sign-in: a sign-out, deactivation, deletion or password change moves it on. */
  tokenVersion: number;
  createdAt: Date;
  /** The family's absolute end (sign-in + REFRESH_TOKEN_TTL): every successor keeps it. */
  expiresAt: Date;
  /** Unused for this long (REFRESH_TOKEN_IDLE_TTL) and it is dead; never after `expiresAt`. */
  idleExpiresAt: Date;
  /** When it was exchanged; a used token presented again is a reuse. */
  usedAt: Date | null;
  /** When its family was revoked (a reuse was detected). */
  revokedAt: Date | null;
  /**
   * Whether the token names its family (every token issued since refresh-token-format.ts): once used, its
   * row may go, a reuse of it being caught by its family. An earlier version's token is caught by its row alone, kept
   * to its family's end.
   */
  familyInToken: boolean;
}

/** Refresh tokens, shared by every replica. Each write is atomic on its own. */
export interface RefreshTokenStore {
  /** Adds the first token of a new family. */
  add(token: RefreshToken): Promise<void>;
  findByHash(tokenHash: string): Promise<RefreshToken | null>;
  /**
   * Uses `usedId` up at `now` and adds `successor`, in one transaction, only when `usedId` is neither used
   * nor revoked at that moment: of two exchanges of one token, on any replicas, exactly one answers true.
   * False: nothing is written. Throws only when nothing was written, or when whether it was cannot be learnt: an
   * exchange the database committed answers true even if the commit's own answer was lost on the way.
   * `forgetUsedBefore`: in the same transaction, the family's tokens that name their family and were used before it
   * are deleted (a session refreshed every few minutes for a month would otherwise keep thousands of rows).
   */
  rotate(usedId: string, now: Date, successor: RefreshToken, options?: { forgetUsedBefore?: Date }): Promise<boolean>;
  /** The family's newest token, whatever its state; null when the family has none (never issued, or ended and purged). */
  findNewestOfFamily(familyId: string): Promise<RefreshToken | null>;
  /** Revokes every token of the family (a reuse was detected); tokens revoked already keep their date. Answers how many it revoked now. */
  revokeFamily(familyId: string, now: Date): Promise<number>;
  /** Deletes up to `limit` tokens whose family ended before `now`; answers how many went. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
