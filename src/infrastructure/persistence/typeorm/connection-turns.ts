/** A wait for a turn that lasted longer than a statement may: answered as a statement past its timeout is (503). */
export class TurnWaitTimedOutError extends Error {
  readonly code = 'TURN_WAIT_TIMEOUT';

  constructor(turn: string, waitedMs: number) {
    super(`no turn for '${turn}' work after waiting ${waitedMs} ms`);
  }
}

/**
 * How many prefix searches (`q`) of a process run at once; the others wait in line for a slot. A search may hold its
 * connection up to SEARCH_TIME_LIMIT (2 s): thirty broad ones sent at once by one reader (review of 2026-12-07) held all
 * ten of the pool's connections, and sign-ins waited 5–6 s for one. Three leave seven for everything else, and keep a
 * search box typed into by a few admins at once answering without a wait.
 */
export const SEARCH_SLOTS = 3;

interface Waiter {
  take: () => void;
  timer: NodeJS.Timeout | null;
}

interface Line {
  running: number;
  /** Each party's waiters; the map's order is the order parties are served in (a party served moves to the back). */
  parties: Map<string, Waiter[]>;
}

/**
 * Turns of this process's work that holds a database connection: at most a turn's number of slots run at once (one,
 * unless told otherwise), the others wait in line holding no connection while they wait.
 * - `roles` (RunOptions.turn, one slot): role changes take turns on the role catalogue's row anyway. Found at scale
 *   (review of 2026-12-07): ten waiting on that row, held by another replica's change for seconds, took every connection
 *   of the pool, and the api's sign-ins waited with them until the statement timeout.
 * - `search` (SEARCH_SLOTS): the statements of a prefix search, the one list statement whose work grows with what the
 *   caller typed (search-time-limit.ts).
 *
 * A run may name its party (who asked: search-time-limit.ts gives the caller). Each party waits in a line of its own,
 * first come first served, and the lines are served in turn, one run each, as FairAdmission serves sign-ins: a caller
 * that sent a hundred searches delays another's one by a turn per party waiting, not by its hundred. Runs that name no
 * party share one line.
 */
export class ConnectionTurns {
  private readonly waitMs: number;
  private readonly slots: Readonly<Record<string, number>>;
  private readonly lines = new Map<string, Line>();

  /**
   * `waitMs`: how long a run waits for its turn before it fails (TurnWaitTimedOutError); 0: as long as it takes.
   * `slots`: the runs of a turn admitted at once, where not one.
   */
  constructor({ waitMs, slots = {} }: { waitMs: number; slots?: Readonly<Record<string, number>> }) {
    for (const [turn, n] of Object.entries(slots)) {
      if (!(Number.isSafeInteger(n) && n >= 1)) throw new RangeError(`slots of '${turn}' must be a positive integer`);
    }
    this.waitMs = waitMs;
    this.slots = slots;
  }

  /**
   * `work` in its turn: run once a slot of the turn is free for it, after every run of its party's that asked before
   * it, and after one run of each party whose line is served before its own.
   */
  async inTurn<T>(turn: string, work: () => Promise<T>, party = ''): Promise<T> {
    await this.take(turn, party);
    try {
      return await work();
    } finally {
      this.release(turn);
    }
  }

  /** How many runs of `turn` wait (for the tests). */
  waiting(turn: string): number {
    let waiting = 0;
    for (const queue of this.lines.get(turn)?.parties.values() ?? []) waiting += queue.length;
    return waiting;
  }

  private take(turn: string, party: string): Promise<void> {
    let line = this.lines.get(turn);
    if (!line) {
      line = { running: 0, parties: new Map() };
      this.lines.set(turn, line);
    }
    if (line.running < (this.slots[turn] ?? 1)) {
      line.running++;
      return Promise.resolve();
    }
    const parties = line.parties;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { take: resolve, timer: null };
      if (this.waitMs > 0) {
        waiter.timer = setTimeout(() => {
          const queue = parties.get(party);
          const place = queue?.indexOf(waiter) ?? -1;
          // Handed its turn already (release cleared this timer in the same turn of the loop): it runs.
          if (place < 0) return;
          queue!.splice(place, 1);
          if (queue!.length === 0) parties.delete(party);
          reject(new TurnWaitTimedOutError(turn, this.waitMs));
        }, this.waitMs);
      }
      const queue = parties.get(party);
      if (queue) queue.push(waiter);
      else parties.set(party, [waiter]);
    });
  }

  private release(turn: string): void {
    const line = this.lines.get(turn)!;
    const first = line.parties.entries().next();
    if (first.done) {
      line.running--;
      if (line.running === 0) this.lines.delete(turn);
      return;
    }
    const [party, queue] = first.value;
    const next = queue.shift()!;
    // The party served goes to the back of the order, behind every party that waits.
    line.parties.delete(party);
    if (queue.length > 0) line.parties.set(party, queue);
    if (next.timer) clearTimeout(next.timer);
    // The slot passes straight on: `running` stays as it is, so no run that asks meanwhile jumps the line.
    next.take();
  }
}
