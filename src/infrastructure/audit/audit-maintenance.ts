import type { Clock } from '../../application/ports/clock.port';
import { describeError, type Logger } from '../logging/logger';
import { type AuditRetentionSweeper, AuditTrailBrokenError } from '../persistence/typeorm/audit/audit-retention-sweeper';
import { AuditChainCutError, AuditHeadMovedError, type AuditSealer } from '../persistence/typeorm/audit/audit-sealer';
import { ClockAlarm } from '../system/clock-alarm';

export interface AuditMaintenanceDeps {
  auditSealer: AuditSealer;
  auditRetentionSweeper: AuditRetentionSweeper;
  clock: Clock;
  logger: Logger;
  sealEveryMs?: number;
  sweepEveryMs?: number;
  /** How soon the next sweep runs after one that stopped at its cap with entries left; 10 s by default. */
  sweepCatchUpMs?: number;
  /** How often the chain's head is logged (after the first pass, which logs it); every hour by default. */
  headLogEveryMs?: number;
}

/**
 * The trail's background work in the API process (beside the outbox relay): seal what committed, every
 * `sealEveryMs`; sweep what is past the retention, every `sweepEveryMs`. Every replica runs it; they take
 * turns on the chain row, so running it twice costs a wait, never a fork of the chain.
 */
export class AuditMaintenance {
  private running = false;
  private alarm: ClockAlarm | undefined;
  private loop: Promise<void> | undefined;
  private nextSweepAt = 0;
  private nextHeadLogAt = 0;
  private cutToldAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: AuditMaintenanceDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.alarm?.ring();
    await this.loop;
  }

  /**
   * One seal (and a sweep when due) now: what a test or the CLI calls instead of waiting. `goOn`, asked between the
   * seal's batches: the loop's says stop once stop() is called, so a stop waits for the batch under way, not for a
   * backlog (review of 2026-12-07: 31 s, past the shutdown's limit).
   */
  async pass(goOn: () => boolean = () => true): Promise<void> {
    const { auditSealer, auditRetentionSweeper, clock, logger } = this.deps;
    try {
      await auditSealer.sealAll(goOn);
    } catch (error) {
      if (!(error instanceof AuditChainCutError || error instanceof AuditHeadMovedError)) {
        logger.warn({ reason: describeError(error) }, 'audit sealing failed; retrying at the next pass');
      } else if (clock.now().getTime() - this.cutToldAt >= 60_000) {
        // Once a minute: every pass fails the same way until the replica restarts, or the trail is restored.
        this.cutToldAt = clock.now().getTime();
        logger.error(
          { reason: error.message },
          error instanceof AuditChainCutError
            ? 'the audit trail was cut behind the service: this replica seals no more entries until it restarts; run audit:verify'
            : 'the audit chain\'s head was moved back behind the service: no replica seals more entries until the trail is restored; run audit:verify',
        );
      }
    }
    const now = clock.now().getTime();
    this.logHead(now);
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + (this.deps.sweepEveryMs ?? 3_600_000);
    try {
      const { removed, capped, heldBy } = await auditRetentionSweeper.sweep();
      if (removed > 0) logger.info({ removed }, 'removed audit entries past AUDIT_RETENTION');
      // Writes that outrun one sweep an interval (soak review of 2026-12-07): the rest goes in the next, soon.
      if (capped) this.nextSweepAt = now + Math.min(this.deps.sweepCatchUpMs ?? 10_000, this.deps.sweepEveryMs ?? 3_600_000);
      if (heldBy) {
        logger.warn(
          { seq: heldBy.seq, occurredAt: heldBy.occurredAt.toISOString() },
          'an audit entry dated ahead of this clock holds the retention sweep: no entry after it in the chain is removed until then (a clock that ran ahead wrote it)',
        );
      }
    } catch (error) {
      if (error instanceof AuditTrailBrokenError) logger.error({ reason: error.message }, 'the audit trail is broken where the retention sweep would cut: nothing past the break is removed');
      else logger.warn({ reason: describeError(error) }, 'audit retention sweep failed; retrying at the next sweep');
    }
  }

  /**
   * The head in the log at the first pass and then hourly: a copy outside the database that a cut of the chain's end
   * cannot move back, for an operator to compare with `audit_chain` (a replica that saw a further head stops sealing,
   * but a restart forgets what it saw; the log does not).
   */
  private logHead(now: number): void {
    const head = this.deps.auditSealer.head();
    if (!head || now < this.nextHeadLogAt) return;
    this.nextHeadLogAt = now + (this.deps.headLogEveryMs ?? 3_600_000);
    this.deps.logger.info({ auditHead: head }, 'audit chain head');
  }

  private async run(): Promise<void> {
    const every = this.deps.sealEveryMs ?? 1000;
    while (this.running) {
      await this.pass(() => this.running);
      if (!this.running) return;
      this.alarm = new ClockAlarm(this.deps.clock, this.deps.clock.now().getTime() + every, every);
      await this.alarm.rung;
    }
  }
}
