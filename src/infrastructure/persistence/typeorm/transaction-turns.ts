/** A wait for a turn that lasted longer than a statement may: answered as a statement past its timeout is (503). */
export class TurnWaitTimedOutError extends Error {
  readonly code = 'TURN_WAIT_TIMEOUT';

  constructor(turn: string, waitedMs: number) {
    super(`no turn for '${turn}' work after waiting ${waitedMs} ms`);
  }
}

interface Waiter {
  take: () => void;
  timer: NodeJS.Timeout | null;
}

/**
 * The turns of this process's transactions (RunOptions.turn): one run of a turn at a time, the others waiting in line,
 * first come first served, holding no connection while they wait. Found at scale (review of 2026-12-07): ten role
 * changes waiting on the role catalogue's row, held by another replica's change for seconds, took every connection of
 * the pool, and the api's sign-ins waited with them until the statement timeout. Role changes take turns on that row
 * anyway: a line in the process costs them nothing, and leaves the pool's other connections to everyone else.
 */
export class TransactionTurns {
  private readonly waitMs: number;
  private readonly lines = new Map<string, { running: boolean; waiting: Waiter[] }>();

  /** `waitMs`: how long a run waits for its turn before it fails (TurnWaitTimedOutError); 0: as long as it takes. */
  constructor({ waitMs }: { waitMs: number }) {
    this.waitMs = waitMs;
  }

  /** `work` in its turn: run once every run of the turn that asked before it is done. */
  async inTurn<T>(turn: string, work: () => Promise<T>): Promise<T> {
    await this.take(turn);
    try {
      return await work();
    } finally {
      this.release(turn);
    }
  }

  /** How many runs of `turn` wait (for the tests). */
  waiting(turn: string): number {
    return this.lines.get(turn)?.waiting.length ?? 0;
  }

  private take(turn: string): Promise<void> {
    let line = this.lines.get(turn);
    if (!line) {
      line = { running: false, waiting: [] };
      this.lines.set(turn, line);
    }
    if (!line.running) {
      line.running = true;
      return Promise.resolve();
    }
    const queue = line.waiting;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { take: resolve, timer: null };
      if (this.waitMs > 0) {
        waiter.timer = setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(new TurnWaitTimedOutError(turn, this.waitMs));
        }, this.waitMs);
      }
      queue.push(waiter);
    });
  }

  private release(turn: string): void {
    const line = this.lines.get(turn)!;
    const next = line.waiting.shift();
    if (!next) {
      this.lines.delete(turn);
      return;
    }
    if (next.timer) clearTimeout(next.timer);
    // The turn passes straight on: `running` stays true, so no run that asks meanwhile jumps the line.
    next.take();
  }
}
