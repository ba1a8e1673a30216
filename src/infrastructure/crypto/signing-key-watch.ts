import type { DataSource } from 'typeorm';
import { describeError, type Logger } from '../logging/logger';
import type { SigningKey, VerificationKey } from './signing-keys';

/** How often a replica says which key it signs with, and reads which keys the others sign with. */
export const SIGNING_KEY_WATCH_EVERY_MS = 60_000;
/** A key not said for this long is forgotten (its row deleted): its tokens expired long ago. */
const FORGET_AFTER_MS = 7 * 86_400_000;

export interface SigningKeyWatchDeps {
  dataSource: DataSource;
  signingKey: SigningKey;
  /** The keys this replica accepts (the JWKS): the current one, the one to come, retired ones. */
  verificationKeys: readonly VerificationKey[];
  logger: Logger;
  /** The longest a token lives (ACCESS_TOKEN_TTL or SERVICE_TOKEN_TTL): a key said within it may still have tokens out. */
  longestTokenSeconds: number;
  everyMs?: number;
}

/**
 * Whether every key the replicas of this database sign with is one this replica accepts, told in the log rather than
 * left to the 401s. Each replica notes the `kid` it signs with in `signing_keys_in_use` at start and every minute, and
 * reads the keys noted within the longest token lifetime (and a minute): one it does not accept is an error, said once
 * when it appears, with what to do. That catches replicas given different JWT_PRIVATE_KEYs (two Secrets, a key pasted
 * wrong), a rotation that switched a replica to a new key before every replica had it in JWT_NEXT_PUBLIC_KEYS, and an
 * old key dropped from JWT_PREVIOUS_PUBLIC_KEYS while its tokens may still be out. Only public `kid`s are stored. On
 * SQLite there is one process and nothing to watch. A database that does not answer skips a round, said at debug.
 */
export class SigningKeyWatch {
  private timer: NodeJS.Timeout | null = null;
  /** The foreign keys already reported, so each is said once while it stays. */
  private reported = new Set<string>();

  constructor(private readonly deps: SigningKeyWatchDeps) {}

  start(): void {
    if (this.timer) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.deps.everyMs ?? SIGNING_KEY_WATCH_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Notes this replica's key and answers the keys in use that it does not accept; null when the database did not answer. */
  async check(now = new Date()): Promise<string[] | null> {
    const { dataSource, signingKey, verificationKeys, logger } = this.deps;
    const everyMs = this.deps.everyMs ?? SIGNING_KEY_WATCH_EVERY_MS;
    let inUse: { kid: string }[];
    try {
      await dataSource.query('INSERT INTO signing_keys_in_use (kid, alg, last_seen_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE last_seen_at = GREATEST(last_seen_at, ?)', [
        signingKey.kid,
        signingKey.alg,
        now,
        now,
      ]);
      const since = new Date(now.getTime() - this.deps.longestTokenSeconds * 1000 - everyMs);
      inUse = (await dataSource.query('SELECT kid FROM signing_keys_in_use WHERE last_seen_at > ?', [since])) as { kid: string }[];
      await dataSource.query('DELETE FROM signing_keys_in_use WHERE last_seen_at < ?', [new Date(now.getTime() - FORGET_AFTER_MS)]);
    } catch (error) {
      logger.debug({ reason: describeError(error) }, 'the signing keys in use were not compared with the ones this process accepts');
      return null;
    }
    const accepted = new Set(verificationKeys.map((key) => key.kid));
    const foreign = inUse.map((row) => row.kid).filter((kid) => !accepted.has(kid));
    for (const kid of foreign) {
      if (this.reported.has(kid)) continue;
      logger.error(
        { kid, signingKid: signingKey.kid },
        `a replica of this database signs tokens with a key (kid ${kid}) this process does not accept, or did within the longest token lifetime: those tokens are refused here (401). ` +
          'Give every replica the same JWT_PRIVATE_KEY; while rotating, publish the new public key on every replica first (JWT_NEXT_PUBLIC_KEYS), ' +
          "and keep the old one in JWT_PREVIOUS_PUBLIC_KEYS until its tokens have expired (docs/SECURITY.md, 'Rotating the signing key')",
      );
    }
    if (foreign.length === 0) {
      if (this.reported.size > 0) logger.info('every key the replicas of this database sign with is accepted by this process again');
      else logger.debug({ inUse: inUse.length }, 'every key the replicas of this database sign with is accepted by this process');
    }
    this.reported = new Set(foreign);
    return foreign;
  }
}
