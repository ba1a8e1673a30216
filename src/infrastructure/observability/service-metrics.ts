import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DATABASE_PROBE_TIMEOUT_MS, within } from '../system/within';
import type { Logger } from '../logging/logger';
import { createMetricsRegistry } from './metrics-registry';

export type SignInOutcome = 'success' | 'failure' | 'throttled';

/**
 * The most unpublished rows a scrape counts: past it the gauge reads this number (at least that many). Counting every
 * one took 100–345 ms at a million and passed the probe's 2 s limit at several million (review of 2026-12-07, admin work
 * at scale), and the timeout set both outbox gauges to NaN: the age alert went blind exactly when the relay was furthest
 * behind. A million index entries are counted within the limit; the age gauge says how far behind past it.
 */
export const BACKLOG_COUNTED_UP_TO = 1_000_000;

/** One cheap look at the outbox: unpublished rows and the oldest one's creation time. */
export type OutboxBacklogProbe = () => Promise<{ backlog: number; oldest: Date | null }>;

/** Database pool occupancy when the driver exposes it (MySQL/MariaDB); null otherwise. */
export type PoolProbe = () => { total: number; idle: number; waiting: number } | null;

/**
 * The API process's metrics. Recorded by adapters and the HTTP edge only (never by the domain or
 * a use case); gauges that describe shared state are computed at scrape time.
 */
export class ServiceMetrics {
  readonly registry: Registry;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly signIns: Counter<'outcome'>;
  private readonly invitationsCreated: Counter;
  private readonly invitationsAccepted: Counter;
  private readonly publishDuration: Histogram<'outcome'>;
  private readonly eventsPublished: Counter;
  private readonly eventsPublishFailed: Counter;
  private readonly eventDelay: Histogram;
  private readonly probes: { outbox: OutboxBacklogProbe | null; pool: PoolProbe | null } = { outbox: null, pool: null };

  constructor(options: { logger?: Logger; registry?: Registry } = {}) {
    const registry = options.registry ?? createMetricsRegistry('api');
    this.registry = registry;
    const logger = options.logger;
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by route pattern (never the raw URL), method and status',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.signIns = new Counter({
      name: 'access_control_sign_ins_total',
      help: 'Sign-in attempts by outcome (success, failure, throttled)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.invitationsCreated = new Counter({
      name: 'access_control_invitations_created_total',
      help: 'Invitations created (POST /v1/users/invite answered 201)',
      registers: [registry],
    });
    this.invitationsAccepted = new Counter({
      name: 'access_control_invitations_accepted_total',
      help: 'Invitations accepted (the invitee joined)',
      registers: [registry],
    });
    this.publishDuration = new Histogram({
      name: 'access_control_events_publish_duration_seconds',
      help: 'How long one publish of a batch of events to Kafka (or the in-process bus) took, by outcome',
      labelNames: ['outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.eventsPublished = new Counter({
      name: 'access_control_events_published_total',
      help: 'Events published from the outbox by this process',
      registers: [registry],
    });
    this.eventsPublishFailed = new Counter({
      name: 'access_control_events_publish_failures_total',
      help: 'Events whose publish failed (they stay in the outbox and are retried)',
      registers: [registry],
    });
    this.eventDelay = new Histogram({
      name: 'access_control_events_commit_to_publish_seconds',
      help: 'Time from an event being committed with its change to its publish being acknowledged',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });

    const probeFailed = (what: string, error: unknown) =>
      logger?.debug({ reason: (error as Error)?.message?.slice(0, 200) }, `${what} metric not available at this scrape`);
    const probes = this.probes;
    // One outbox probe per scrape, shared by its two gauges (a scrape collects them at once): each reads the same
    // answer, never the one before's. An answer not come within DATABASE_PROBE_TIMEOUT_MS, or a failed one, sets both
    // to NaN: unknown, where the last numbers would tell of a backlog no longer measured (and a scrape of everything
    // else would wait on the database up to the pool's 10 s, as long as Prometheus's whole scrape timeout).
    let scrape: Promise<{ backlog: number; age: number }> | null = null;
    const outboxNow = (): Promise<{ backlog: number; age: number }> => {
      if (scrape) return scrape;
      scrape = within(probes.outbox!(), DATABASE_PROBE_TIMEOUT_MS, 'outbox backlog')
        .then(
          ({ backlog, oldest }) => ({ backlog, age: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0 }),
          (error: unknown) => {
            probeFailed('outbox backlog', error);
            return { backlog: Number.NaN, age: Number.NaN };
          },
        )
        .finally(() => {
          scrape = null;
        });
      return scrape;
    };
    new Gauge({
      name: 'access_control_outbox_backlog_events',
      help: `Events committed but not yet published (all replicas), counted up to ${BACKLOG_COUNTED_UP_TO}; NaN when the database did not answer`,
      registers: [registry],
      async collect() {
        if (probes.outbox) this.set((await outboxNow()).backlog);
      },
    });
    new Gauge({
      name: 'access_control_outbox_oldest_event_age_seconds',
      help: 'Age of the oldest unpublished event (0 when none); NaN when the database did not answer',
      registers: [registry],
      async collect() {
        if (probes.outbox) this.set((await outboxNow()).age);
      },
    });
    new Gauge({
      name: 'access_control_db_pool_connections',
      help: 'Database pool connections by state (MySQL/MariaDB pool)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const pool = probes.pool?.();
        if (!pool) return;
        this.set({ state: 'total' }, pool.total);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'in_use' }, pool.total - pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
  }

  observeHttpRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
  }

  signIn(outcome: SignInOutcome): void {
    this.signIns.inc({ outcome });
  }

  invitationCreated(): void {
    this.invitationsCreated.inc();
  }

  invitationAccepted(): void {
    this.invitationsAccepted.inc();
  }

  observePublish(events: readonly { time: string }[], seconds: number, ok: boolean): void {
    this.publishDuration.observe({ outcome: ok ? 'success' : 'failure' }, seconds);
    if (!ok) {
      this.eventsPublishFailed.inc(events.length);
      return;
    }
    this.eventsPublished.inc(events.length);
    const now = Date.now();
    for (const event of events) {
      const committed = Date.parse(event.time);
      if (Number.isFinite(committed)) this.eventDelay.observe(Math.max(0, (now - committed) / 1000));
    }
  }

  trackOutbox(probe: OutboxBacklogProbe): void {
    this.probes.outbox = probe;
  }

  trackPool(probe: PoolProbe): void {
    this.probes.pool = probe;
  }
}
