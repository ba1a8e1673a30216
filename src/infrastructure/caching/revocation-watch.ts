const SETTLE_MARGIN_MS = 5;

/** What a replica knows, from its last trusted poll, of every subject's changes and of the roles. */
export interface RevocationView {
  /** The epoch of the subject's shard: it moves on with every change that can end or narrow its access. */
  epochOf(subjectId: string): number;
  rolesRevision: number;
}

/** The revocation signal as the caches read it: null whenever it cannot be trusted (fail closed: read afresh). */
export interface RevocationSignal {
  current(): RevocationView | null;
}

export interface RevocationWatchOptions {
  /** REVOCATION_WINDOW: a snapshot is trusted only if the poll that read it started at most this long ago. */
  windowMs: number;
  /** How often to poll; a poll still running when the next is due is not doubled. */
  pollEveryMs: number;
  read: () => Promise<{ epochs: readonly number[]; rolesRevision: number }>;
  shardOf: (subjectId: string) => number;
  /** True inside a request that itself moved an epoch on: it reads afresh, never its own stale cache. */
  bypass?: () => boolean;
  onPollFailed?: (error: unknown) => void;
  now?: () => number;
}

/**
 * The revocation signal every replica applies (#26): instead of reading the user (or service account) at
 * every request, each replica reads all shards' epochs and the role catalogue's revision in one statement a
 * few times a window, and its caches keep an actor only while the epochs it was read at are still current.
 *
 * The guarantee, with W the window: a change commits its epoch; the request that made it answers only after
 * waiting W more (`settle`); a replica trusts a snapshot only while the poll that read it started less than W
 * ago. So any request sent after that answer, to any replica, is judged on a snapshot read after the commit,
 * or read afresh from the database. A replica whose polls fail or stall stops trusting its snapshot within W
 * and reads every request's subject again (fail closed): never a stale grant, only a slower one.
 */
export class RevocationWatch implements RevocationSignal {
  private snapshot: { view: RevocationView; startedAt: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private readonly now: () => number;

  constructor(private readonly options: RevocationWatchOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  start(): void {
    if (this.timer) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.pollEveryMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    const startedAt = this.now();
    try {
      const { epochs, rolesRevision } = await this.options.read();
      const { shardOf } = this.options;
      if (!this.snapshot || startedAt >= this.snapshot.startedAt) {
        this.snapshot = { view: { epochOf: (subjectId) => epochs[shardOf(subjectId)] ?? 0, rolesRevision }, startedAt };
      }
    } catch (error) {
      this.options.onPollFailed?.(error);
    } finally {
      this.polling = false;
    }
  }

  current(): RevocationView | null {
    if (!this.snapshot || this.now() - this.snapshot.startedAt > this.options.windowMs) return null;
    if (this.options.bypass?.()) return null;
    return this.snapshot.view;
  }

  /** Waits out the window after a change committed: then no replica trusts a snapshot read before it. */
  settle(): Promise<void> {
    // A few milliseconds over: a poll that started at the very instant of the commit is not trusted to have seen it.
    return new Promise((resolve) => setTimeout(resolve, this.options.windowMs + SETTLE_MARGIN_MS));
  }
}
