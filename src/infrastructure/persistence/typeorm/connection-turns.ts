import { AdmissionRefusedError, FairAdmission } from '../../system/fair-admission';

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

/**
 * Turns of this process's work that holds a database connection: at most a turn's number of slots run at once (one,
 * unless told otherwise), the others wait in line holding no connection while they wait.
 * - `roles` (RunOptions.turn, one slot): role changes take turns on the role catalogue's row anyway. Found at scale
 *   (review of 2026-12-07): ten waiting on that row, held by another replica's change for seconds, took every connection
 *   of the pool, and the api's sign-ins waited with them until the statement timeout.
 * - `search` (SEARCH_SLOTS): the statements of a prefix search, the one list statement whose work grows with what the
 *   caller typed (search-time-limit.ts).
 *
 * Each turn is a FairAdmission: a run may name its party (who asked: search-time-limit.ts gives the caller), each party
 * waits in a line of its own, first come first served, and the lines are served in turn, one run each, as sign-ins'
 * admission is: a caller that sent a hundred searches delays another's one by a turn per party waiting, not by its
 * hundred. Runs that name no party share one line.
 */
export class ConnectionTurns {
  private readonly waitMs: number;
  private readonly slots: Readonly<Record<string, number>>;
  private readonly admissions = new Map<string, FairAdmission>();

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
    let release: () => void;
    try {
      release = await this.admission(turn).admit(party);
    } catch (error) {
      throw error instanceof AdmissionRefusedError ? new TurnWaitTimedOutError(turn, this.waitMs) : error;
    }
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** How many runs of `turn` wait (for the tests). */
  waiting(turn: string): number {
    return this.admissions.get(turn)?.load.waiting ?? 0;
  }

  private admission(turn: string): FairAdmission {
    let admission = this.admissions.get(turn);
    if (!admission) {
      admission = new FairAdmission({ slots: this.slots[turn] ?? 1, waitMs: this.waitMs });
      this.admissions.set(turn, admission);
    }
    return admission;
  }
}
