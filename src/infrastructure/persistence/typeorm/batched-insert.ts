interface Waiting<T> {
  row: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Inserts asked for at once that share a statement, each still answered with its own outcome.
 *
 * A row asked for while no batch is in flight is inserted at once; rows asked for while one is in flight
 * wait for it and go together in one multi-row INSERT. A statement is atomic, so when a batch fails (one of
 * its rows a duplicate, say) nothing of it was written, and each of its rows is then inserted alone: every
 * caller learns exactly what its own row met, as with a statement per row, with fewer statements and
 * commits under load.
 */
export class BatchedInsert<T> {
  private queued: Waiting<T>[] = [];
  private inFlight = false;

  constructor(
    private readonly insertMany: (rows: T[]) => Promise<void>,
    private readonly maxBatch = 100,
  ) {}

  insert(row: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ row, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.queued.length === 0) return;
    const batch = this.queued.splice(0, this.maxBatch);
    this.inFlight = true;
    this.run(batch).finally(() => {
      this.inFlight = false;
      this.pump();
    });
  }

  private async run(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.insertMany(batch.map((w) => w.row));
      for (const w of batch) w.resolve();
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    await Promise.all(
      batch.map(async (w) => {
        try {
          await this.insertMany([w.row]);
          w.resolve();
        } catch (error) {
          w.reject(error);
        }
      }),
    );
  }
}
