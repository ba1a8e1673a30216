/** The window a hit was counted in. */
export interface RateLimitWindow {
  /** Hits in the window so far, this one included. */
  hits: number;
  /** When the window ends; the first hit after it starts a new one. */
  endsAt: Date;
}

/**
 * Hits per key in fixed windows, shared by every replica: a key's window starts at its first hit
 * and lasts `windowMs`. Each hit is counted atomically, so N parallel hits anywhere answer the
 * counts 1…N, each once.
 */
export interface RateLimitCounter {
  hit(key: string, now: Date, windowMs: number): Promise<RateLimitWindow>;
  /** The key's live window as it stands, counting nothing; null when it has none (never hit, or ended by `now`). */
  peek(key: string, now: Date): Promise<RateLimitWindow | null>;
}
