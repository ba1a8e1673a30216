import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { provideKafka } from '../test/support/kafka';
import { connectTo, createTestDatabase } from '../test/support/test-database';
import { closeAgent } from './load';
import { log, ROOT, startTarget, type Target } from './processes';
import { seedUsers } from './seed';

/** The bootstrap admin of every api a bench row starts on its own. */
export const BENCH_ADMIN = { username: 'bench.admin', password: 'bench-admin-password-1', email: 'bench.admin@example.com' };

export interface StandaloneApi {
  api: Target;
  databaseUrl: string;
  dataDir: string;
  /** The environment the api was started with: a mailer started with it reads the same database and topic. */
  env: Record<string, string>;
  /** Stops the api, removes its data directory, and drops the database unless it was given or kept. */
  stop(): Promise<void>;
}

/**
 * What a row run on its own (`node dist-bench/bench/<row>.js`) measures against: one api process, with the bench
 * admin, no rate limit and the relay off, on a new database of TEST_DATABASE_SERVER_URL (default the local
 * MariaDB) named `ac_bench_<name>`, or on `given` (a seeded one to reuse, never dropped). `keep`: the new database
 * stays too, its URL logged. `relay` (BENCH_RELAY=1 by default): the api publishes its outbox to a real Kafka
 * (test/support/kafka.ts: KAFKA_BROKERS, or a broker of its own), as the api of `npm run bench` does.
 */
export async function standaloneApi(
  name: string,
  options: { given?: string; keep?: boolean; label?: string; relay?: boolean } = {},
): Promise<StandaloneApi> {
  process.env.TEST_DATABASE_SERVER_URL ??= 'mariadb://root@127.0.0.1:3306';
  const database = options.given ? { url: options.given, drop: async () => undefined } : await createTestDatabase(`ac_bench_${name}`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `ac-bench-${name}-`));
  const kafka = (options.relay ?? process.env.BENCH_RELAY === '1') ? await provideKafka({ log, local: { projectRoot: ROOT } }) : null;
  const env = {
    DATA_DIR: dataDir, ADMIN_USERNAME: BENCH_ADMIN.username, ADMIN_PASSWORD: BENCH_ADMIN.password, ADMIN_EMAIL: BENCH_ADMIN.email,
    BENCH_ADMIN_USERNAME: BENCH_ADMIN.username, JWT_ISSUER: 'http://bench.local', ADDRESS_RATE_LIMIT: '0', INVITE_RATE_LIMIT: '0',
    DATABASE_URL: database.url,
    ...(kafka ? { KAFKA_BROKERS: kafka.brokers, KAFKA_TOPIC: `bench-${name}-${Date.now().toString(36)}` } : { RELAY_ENABLED: 'false' }),
  };
  const api = await startTarget(options.label ?? 'api', 'api', env);
  return {
    api,
    databaseUrl: database.url,
    dataDir,
    env,
    async stop() {
      await api.stop();
      await kafka?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (!options.given && !options.keep) await database.drop();
      else log(`database kept: ${database.url}`);
    },
  };
}

/**
 * Seeds `users` as bench/seed.ts seeds into a database that holds none of them yet, then ANALYZEs the table (the
 * plans depend on its statistics, as a server's would be after a while); a fully seeded one is left as it is, a
 * partly seeded one refused.
 */
export async function seededOnce(databaseUrl: string, users: number): Promise<void> {
  const connection = await connectTo(databaseUrl);
  try {
    const [[{ n }]] = (await connection.query("SELECT COUNT(*) AS n FROM users WHERE email_key LIKE 'seed%'")) as unknown as [[{ n: number }]];
    if (Number(n) >= users) return;
    if (Number(n) > 0) throw new Error(`${databaseUrl} is partly seeded (${n} users): use an empty or a fully seeded database`);
    const seeded = Date.now();
    await seedUsers(databaseUrl, users, (done) => log(`seeded ${done}/${users}`));
    log(`seeded ${users} users and built the page index in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    await connection.query('ANALYZE TABLE users');
  } finally {
    await connection.end();
  }
}

/**
 * The server's InnoDB buffer pool and the users table's data and indexes, in MB (null when the database has no users
 * table): what a deep page reads from memory or from outside the pool (SCALING.md, "The users table's size"). The
 * bench's databases are MySQL or MariaDB; a failure to ask is the bench's failure, not a note left out.
 */
export async function poolAgainstUsers(databaseUrl: string): Promise<{ poolMb: number; usersMb: number } | null> {
  const connection = await connectTo(databaseUrl);
  try {
    const [[row]] = (await connection.query(
      "SELECT @@innodb_buffer_pool_size AS pool, (SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'users') AS users",
    )) as unknown as [[{ pool: number | string; users: number | string | null }]];
    if (row.users === null) return null;
    return { poolMb: Math.round(Number(row.pool) / 2 ** 20), usersMb: Math.round(Number(row.users) / 2 ** 20) };
  } finally {
    await connection.end();
  }
}

/** What poolAgainstUsers found, as a row's note says it. */
export function poolNote(sizes: { poolMb: number; usersMb: number } | null): string | undefined {
  return sizes ? `InnoDB buffer pool ${sizes.poolMb} MB, users table and its indexes ${sizes.usersMb} MB` : undefined;
}

/** A row's command: runs `main`, then exits 0, or writes the failure and exits 1. */
export function runStandalone(main: () => Promise<void>): void {
  main().then(
    () => {
      closeAgent();
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`[bench] failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
