import type { EachBatchPayload, KafkaMessage } from 'kafkajs';

/** Offsets may be committed at most this often while a batch is being handled (and always at its end). */
const COMMIT_INTERVAL_MS = 100;

export interface PartitionWindowOptions {
  /** Messages in flight at once within the batch (different keys side by side, one key's in order). */
  limit: number;
  /** Handles one message: true once it is handled for good (its offset may be committed), false when it must be left for later. */
  handle: (message: KafkaMessage, payload: EachBatchPayload) => Promise<boolean>;
  /** false once the worker stops or the partition is taken away: no new message is started. */
  canContinue: (payload: EachBatchPayload) => boolean;
  /** After each commit: messages of the partition behind its high watermark. */
  onCommitted?: (topic: string, partition: number, lag: number) => void;
}

/**
 * Handles a batch with up to `limit` messages in flight at once, a new one started as soon as one
 * ends (no barrier between groups): messages of different keys (users) run side by side, those of
 * one key one after another. The offset committed is always the end of the unbroken run of handled
 * messages from the start of the batch, at most every COMMIT_INTERVAL_MS and when the batch ends,
 * so a crash never skips a message.
 */
export async function consumeBatchInWindow(payload: EachBatchPayload, options: PartitionWindowOptions): Promise<void> {
  const { batch } = payload;
  const progress = new BatchProgress(batch.messages.length);
  const lastOfKey = new Map<string, Promise<boolean>>();
  const inFlight = new Set<Promise<boolean>>();
  let leftOne = false; // a message was left for later (stopping, partition lost): start no more
  let committing: Promise<void> = Promise.resolve();
  let committedAt = Date.now();
  const commit = (force: boolean): Promise<void> => {
    committing = committing.then(async () => {
      const upTo = progress.handledPrefix();
      if (upTo <= progress.committed || (!force && Date.now() - committedAt < COMMIT_INTERVAL_MS)) return;
      const last = batch.messages[upTo - 1]!;
      payload.resolveOffset(last.offset);
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }] }],
      });
      progress.committed = upTo;
      committedAt = Date.now();
      options.onCommitted?.(batch.topic, batch.partition, Number(batch.highWatermark) - Number(last.offset) - 1);
      await payload.heartbeat();
    });
    return committing;
  };

  for (const [index, message] of batch.messages.entries()) {
    while (inFlight.size >= options.limit && !leftOne) await Promise.race([...inFlight].map((task) => task.catch(() => false)));
    if (leftOne || !options.canContinue(payload)) break;
    const key = message.key ? `k:${message.key.toString('base64')}` : `i:${index}`;
    const before = lastOfKey.get(key) ?? Promise.resolve(true);
    // One key's messages in order: each waits for the one before it, and is left too if that one was.
    const task: Promise<boolean> = before.then(async (previousHandled) => {
      if (!previousHandled || leftOne) return false;
      const handled = await options.handle(message, payload);
      if (handled) progress.handled(index);
      else leftOne = true;
      return handled;
    });
    lastOfKey.set(key, task);
    inFlight.add(task);
    void task.then(
      () => {
        inFlight.delete(task);
        void commit(false).catch(() => undefined);
      },
      () => {
        inFlight.delete(task);
        leftOne = true;
      },
    );
  }
  // Every started message settles; a failure (a rebalance seen while heartbeating) is raised after.
  const outcomes = await Promise.allSettled([...inFlight, ...lastOfKey.values()]);
  await commit(true);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Which messages of a batch are handled, and how far an unbroken run of them reaches from its start. */
class BatchProgress {
  private readonly done: boolean[];
  private prefix = 0;
  /** Messages whose offsets are committed (a prefix of the batch). */
  committed = 0;

  constructor(size: number) {
    this.done = new Array<boolean>(size).fill(false);
  }

  handled(index: number): void {
    this.done[index] = true;
  }

  handledPrefix(): number {
    while (this.prefix < this.done.length && this.done[this.prefix]) this.prefix++;
    return this.prefix;
  }
}
