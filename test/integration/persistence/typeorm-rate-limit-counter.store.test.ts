import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../src/infrastructure/persistence/migrations';
import { isMysqlFamily } from '../../../src/infrastructure/persistence/typeorm/data-source';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { RateLimitCounterSchema } from '../../../src/infrastructure/persistence/typeorm/records';
import { TypeOrmRateLimitCounter } from '../../../src/infrastructure/persistence/typeorm/typeorm-rate-limit-counter.store';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { ALL_TARGETS } from './database-targets';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 31, 12, 0, 0);
/** Every time is given to the counter, as the HTTP layer gives it the Clock's: no test sleeps. */
const at = (ms: number) => new Date(T0 + ms);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe.each(ALL_TARGETS)('TypeOrmRateLimitCounter on $name', (target) => {
  let dataSource: DataSource;
  let dispose: () => Promise<void>;
  let adapters: TypeOrmAdapters;
  /** A second replica's data source on the same database (MySQL/MariaDB; SQLite is one process's). */
  let other: DataSource | null = null;

  beforeAll(async () => {
    ({ dataSource, dispose } = await target.open());
    expect(await runMigrations(dataSource)).toEqual(MIGRATIONS.map((m) => m.name));
    adapters = new TypeOrmAdapters(dataSource);
    if (isMysqlFamily(dataSource)) {
      other = new DataSource(dataSource.options);
      await other.initialize();
    }
  });
  afterAll(async () => {
    await other?.destroy();
    await dispose();
  });

  // No purge runs by itself unless a test asks for one, so none runs under another test's rows.
  const counter = (purgeEveryMs = Number.MAX_SAFE_INTEGER, on: DataSource = dataSource) =>
    new TypeOrmRateLimitCounter({ dataSource: on, sqliteWriteQueue: adapters.services.sqliteWriteQueue, purgeEveryMs });
  const rowOf = async (key: string) => {
    const rows = (await dataSource.query('SELECT hits FROM rate_limit_counters WHERE counter_key = ?', [sha256(key)])) as { hits: number | string }[];
    return rows[0] ? { hits: Number(rows[0].hits) } : null;
  };

  it('peeks at a live window without counting: none before the first hit and after the window ends (#21)', async () => {
    const key = `client-auth-failures:client:${randomUUID()}`;
    const limits = counter();
    expect(await limits.peek(key, at(0))).toBeNull();
    await limits.hit(key, at(0), MINUTE);
    await limits.hit(key, at(1_000), MINUTE);
    expect(await limits.peek(key, at(2_000))).toEqual({ hits: 2, endsAt: at(MINUTE) });
    expect(await limits.peek(key, at(2_000))).toEqual({ hits: 2, endsAt: at(MINUTE) });
    expect(await rowOf(key)).toEqual({ hits: 2 });
    expect(await limits.peek(key, at(MINUTE))).toBeNull();
    expect(await limits.hit(key, at(MINUTE), MINUTE)).toEqual({ hits: 1, endsAt: at(2 * MINUTE) });
  });

  it('counts the hits of a window that starts at the first one, then starts a new one when it has ended', async () => {
    const key = `address:${randomUUID()}`;
    const limits = counter();
    const windows = [];
    for (const ms of [0, 1_000, MINUTE - 1]) windows.push(await limits.hit(key, at(ms), MINUTE));
    expect(windows).toEqual([
      { hits: 1, endsAt: at(MINUTE) },
      { hits: 2, endsAt: at(MINUTE) },
      { hits: 3, endsAt: at(MINUTE) },
    ]);
    // The window is [first hit, first hit + 1 min): its last millisecond counts, its end starts afresh.
    expect(await limits.hit(key, at(MINUTE), MINUTE)).toEqual({ hits: 1, endsAt: at(2 * MINUTE) });
    expect(await limits.hit(key, at(MINUTE + 30_000), MINUTE)).toEqual({ hits: 2, endsAt: at(2 * MINUTE) });
    // Long after: still a fresh window, from that hit.
    expect(await limits.hit(key, at(10 * MINUTE + 7), MINUTE)).toEqual({ hits: 1, endsAt: at(11 * MINUTE + 7) });
  });

  it('keeps keys apart', async () => {
    const limits = counter();
    const [a, b] = [`address:${randomUUID()}`, `inviter:${randomUUID()}`];
    await limits.hit(a, at(0), MINUTE);
    await limits.hit(a, at(1), MINUTE);
    expect((await limits.hit(b, at(2), MINUTE)).hits).toBe(1);
    expect((await limits.hit(a, at(3), MINUTE)).hits).toBe(3);
  });

  it('counts 200 parallel hits exactly, across two replicas where the database is shared: each count 1…200 answered once', async () => {
    const key = `address:${randomUUID()}`;
    const replicas = [counter(), ...(other ? [counter(undefined, other)] : [])];
    const windows = await Promise.all(Array.from({ length: 200 }, (_, i) => replicas[i % replicas.length]!.hit(key, at(i), MINUTE)));
    expect(windows.map((w) => w.hits).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // One window, begun by whichever hit the database took first.
    const ends = [...new Set(windows.map((w) => w.endsAt.getTime()))];
    expect(ends).toHaveLength(1);
    expect(ends[0]! - at(MINUTE).getTime()).toBeGreaterThanOrEqual(0);
    expect(ends[0]! - at(MINUTE).getTime()).toBeLessThan(200);
    expect(await rowOf(key)).toEqual({ hits: 200 });
    // So with a limit of 50, exactly 50 of them are let through, whichever replica they reached.
    expect(windows.filter((w) => w.hits <= 50)).toHaveLength(50);
  });

  it('upserts with a statement the server takes without a warning (MySQL 8.0.20+ deprecates VALUES() there)', async () => {
    if (!other) return; // SQLite: no such warning
    const single = new DataSource({ ...dataSource.options, poolSize: 1 } as typeof dataSource.options);
    await single.initialize();
    try {
      const key = `address:${randomUUID()}`;
      const limits = counter(undefined, single);
      await limits.hit(key, at(0), MINUTE);
      // A new window through the update branch; its count (1) needs no read after it, so the one
      // connection's last statement is the upsert.
      expect(await limits.hit(key, at(MINUTE), MINUTE)).toEqual({ hits: 1, endsAt: at(2 * MINUTE) });
      expect(await single.query('SHOW WARNINGS')).toEqual([]);
    } finally {
      await single.destroy();
    }
  });

  it('stores the SHA-256 of the key, never the client address or inviter id in clear', async () => {
    const key = 'address:203.0.113.77';
    await counter().hit(key, at(0), MINUTE);
    const rows = (await dataSource.query('SELECT counter_key FROM rate_limit_counters')) as { counter_key: string }[];
    expect(rows.map((r) => r.counter_key)).toContain(sha256(key));
    for (const { counter_key } of rows) expect(counter_key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('purges the windows that have ended, and only those, in batches', async () => {
    const limits = counter();
    await limits.purgeEnded(at(1000 * MINUTE)); // what earlier tests left
    // 1,203 windows that end a millisecond apart, more than two of the purge's batches.
    const ended = Array.from({ length: 1203 }, (_, i) => `ended:${i}:${randomUUID()}`);
    await dataSource
      .createQueryBuilder()
      .insert()
      .into(RateLimitCounterSchema)
      .values(ended.map((key, i) => ({ counterKey: sha256(key), windowEnd: at(MINUTE + i), hits: 1 })))
      .execute();
    const live = `live:${randomUUID()}`;
    await limits.hit(live, at(MINUTE + 5_000), MINUTE);

    expect(await limits.purgeEnded(at(MINUTE + 1_202))).toBe(1203);
    expect(await rowOf(ended[1202]!)).toBeNull();
    expect(await rowOf(live)).toEqual({ hits: 1 });
    expect(await limits.purgeEnded(at(MINUTE + 1_203))).toBe(0);
  });

  it('counts exactly while a purge deletes the very windows being hit again', async () => {
    const limits = counter();
    const keys = Array.from({ length: 20 }, () => `racing:${randomUUID()}`);
    for (const key of keys) await limits.hit(key, at(0), MINUTE);
    const later = at(2 * MINUTE);
    const [windows] = await Promise.all([
      Promise.all(keys.flatMap((key) => Array.from({ length: 10 }, () => limits.hit(key, later, MINUTE).then((w) => ({ key, hits: w.hits }))))),
      limits.purgeEnded(later),
    ]);
    for (const key of keys) {
      const counts = windows.filter((w) => w.key === key).map((w) => w.hits);
      expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
      expect(await rowOf(key)).toEqual({ hits: 10 });
    }
  });

  it('purges by itself after a hit once a purge is due, without holding up that hit', async () => {
    const stale = `stale:${randomUUID()}`;
    await counter().hit(stale, at(0), MINUTE);
    const limits = counter(5 * MINUTE);
    const fresh = `fresh:${randomUUID()}`;
    await limits.hit(fresh, at(MINUTE), MINUTE); // its first hit: a purge is due 5 minutes later
    expect((await limits.hit(fresh, at(6 * MINUTE), MINUTE)).hits).toBe(1);
    await eventually(async () => (await rowOf(stale)) === null);
    expect(await rowOf(fresh)).toEqual({ hits: 1 });
  });
});

/** Polls a condition until it holds (the purge runs after the hit that found it due). */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
