/**
 * Admission to scarce work (a password's argon2id; a turn of database work, ConnectionTurns), fair between parties
 * (client addresses, callers): at most `slots` run at once, and a request beyond waits in its party's line; lines are
 * served in turn, one request each, so a party that queued hundreds delays another's single request by one turn per
 * party waiting, not by its hundreds. A request that waited `waitMs` without a slot is refused (AdmissionRefusedError)
 * and never runs: refused before it did any work.
 */
export class AdmissionRefusedError extends Error {
  constructor(readonly waitedMs: number) {
    super(`no room after waiting ${waitedMs} ms`);
  }
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout | null;
}

export interface FairAdmissionOptions {
  /** Requests admitted at once. */
  slots: number;
  /** How long a request waits for a slot before it is refused; 0: as long as it takes. */
  waitMs: number;
}

export class FairAdmission {
  private running = 0;
  /** Each party's line; the map's order is the turn order (a party served moves to the back). */
  private readonly lines = new Map<string, Waiter[]>();

  constructor(private readonly options: FairAdmissionOptions) {
    if (!(Number.isSafeInteger(options.slots) && options.slots >= 1)) throw new RangeError('slots must be a positive integer');
  }

  /** Requests admitted now, and waiting (for the metrics and the tests). */
  get load(): { running: number; waiting: number } {
    let waiting = 0;
    for (const line of this.lines.values()) waiting += line.length;
    return { running: this.running, waiting };
  }

  /** Resolves with the slot's release (call it once, when the work is done), or rejects after `waitMs` without one. */
  admit(party: string): Promise<() => void> {
    if (this.running < this.options.slots && this.lines.size === 0) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const line = this.lines.get(party) ?? [];
      const waiter: Waiter = {
        admit: () => resolve(this.releaser()),
        timer: null,
      };
      if (this.options.waitMs > 0) {
        waiter.timer = setTimeout(() => {
          this.leave(party, waiter);
          reject(new AdmissionRefusedError(this.options.waitMs));
        }, this.options.waitMs);
      }
      line.push(waiter);
      this.lines.set(party, line);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.next();
    };
  }

  /** Gives free slots to the lines in turn: the first party's first request, that party then to the back. */
  private next(): void {
    while (this.running < this.options.slots) {
      const first = this.lines.entries().next();
      if (first.done) return;
      const [party, line] = first.value;
      const waiter = line.shift()!;
      this.lines.delete(party);
      if (line.length > 0) this.lines.set(party, line);
      if (waiter.timer) clearTimeout(waiter.timer);
      this.running++;
      waiter.admit();
    }
  }

  private leave(party: string, waiter: Waiter): void {
    const line = this.lines.get(party);
    if (!line) return;
    const at = line.indexOf(waiter);
    if (at >= 0) line.splice(at, 1);
    if (line.length === 0) this.lines.delete(party);
  }
}
