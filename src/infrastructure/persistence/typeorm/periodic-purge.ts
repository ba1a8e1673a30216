/**
 * The schedule of a store's purge that runs after a write (a hit, a sign-in, a claim) once an interval has passed, in
 * the background, one at a time: never in the writer's path, and its failure only reported. Every replica purges, so
 * the interval bounds what is left over. The first write sets the clock going: a process purges one interval after it
 * starts writing, then every interval.
 */
export class PeriodicPurge {
  private nextAt: number | null = null;
  private running = false;

  constructor(
    private readonly everyMs: number,
    private readonly onFailed: (error: unknown) => void = () => undefined,
  ) {}

  /** Starts `purge` when one is due at `nowMs` and none is running; returns at once. */
  runIfDue(nowMs: number, purge: () => Promise<unknown>): void {
    if (this.nextAt === null) this.nextAt = nowMs + this.everyMs;
    if (this.running || nowMs < this.nextAt) return;
    this.running = true;
    this.nextAt = nowMs + this.everyMs;
    purge()
      .catch((error: unknown) => this.onFailed(error))
      .finally(() => {
        this.running = false;
      });
  }
}
