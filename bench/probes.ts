/**
 * What the capacity section reads, each from where an operator reads it in production: a process's
 * own CPU from its Prometheus `process_cpu_seconds_total`, the database server's CPU from /proc (only
 * when it is a process of this machine), its counters from SHOW GLOBAL STATUS, table sizes from
 * information_schema, and resident memory from /proc/<pid>/status.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from 'mysql2/promise';
import { connectTo } from '../test/support/test-database';

/** One Prometheus sample of the text format (any labels), or NaN when the metric is absent. */
export function sample(text: string, metric: string): number {
  const match = new RegExp(`^${metric}(?:\\{[^}]*\\})? ([^\\s]+)`, 'm').exec(text);
  return match ? Number(match[1]) : NaN;
}

export interface Scrape { cpuSeconds: number; rssBytes: number; mailsSent: number }

/** GET /metrics of the api or the mailer. */
export async function scrape(metricsUrl: string): Promise<Scrape> {
  const response = await fetch(metricsUrl);
  if (response.status !== 200) throw new Error(`${metricsUrl} answered ${response.status}`);
  const text = await response.text();
  const cpuSeconds = sample(text, 'process_cpu_seconds_total');
  if (!Number.isFinite(cpuSeconds)) throw new Error(`${metricsUrl} has no process_cpu_seconds_total`);
  return { cpuSeconds, rssBytes: sample(text, 'process_resident_memory_bytes'), mailsSent: sample(text, 'access_control_mails_sent_total') };
}

/** VmRSS (now) and VmHWM (peak since start) of a process of this machine, in bytes. */
export function residentBytes(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100; // USER_HZ on every Linux we know of
    }
  }
  return clockTicks;
}

/** utime + stime of a process (all its threads), in seconds, from /proc/<pid>/stat. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5); after the command name, field 3 is at index 0.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

export type ServerProcess = { pid: number; how: string } | { pid: null; why: string };

/**
 * The mariadbd/mysqld process that serves `databaseUrl`, when it runs on this machine (a local server
 * or a container of a local engine): the server works in its data directory, so it is the one whose
 * working directory (/proc/<pid>/cwd, followed into its own mount namespace) holds the directory of
 * this uniquely named database. A database elsewhere, or a /proc we may not read: null.
 */
export async function databaseServerProcess(databaseUrl: string): Promise<ServerProcess> {
  const url = new URL(databaseUrl);
  const database = url.pathname.slice(1);
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(url.hostname)) return { pid: null, why: `the database server is at ${url.hostname}, not on this machine` };
  const matches: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm !== 'mariadbd' && comm !== 'mysqld') continue;
      if (existsSync(path.join(`/proc/${entry}/cwd`, database))) matches.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  if (matches.length === 1) return { pid: matches[0]!, how: `pid ${matches[0]}, whose data directory holds ${database}` };
  return { pid: null, why: matches.length === 0 ? 'no mariadbd/mysqld process of this machine holds the database (or its /proc/<pid>/cwd is not readable)' : `${matches.length} server processes hold a database of that name` };
}

export const connect = (databaseUrl: string): Promise<Connection> => connectTo(databaseUrl);

/** Server-wide counters (every client of the server, not only ours), present on MariaDB 10.11 and MySQL 8 alike. */
export const STATUS_COUNTERS = ['Questions', 'Handler_write', 'Handler_update', 'Handler_delete', 'Innodb_data_fsyncs'] as const;
export type StatusCounters = Record<(typeof STATUS_COUNTERS)[number], number>;

export async function globalStatus(connection: Connection): Promise<StatusCounters> {
  const [rows] = (await connection.query(`SHOW GLOBAL STATUS WHERE Variable_name IN (${STATUS_COUNTERS.map(() => '?').join(', ')})`, [...STATUS_COUNTERS])) as unknown as [
    { Variable_name: string; Value: string }[],
  ];
  const out = Object.fromEntries(STATUS_COUNTERS.map((name) => [name, NaN])) as StatusCounters;
  for (const row of rows) out[row.Variable_name as keyof StatusCounters] = Number(row.Value);
  return out;
}

/** The settings that decide what a write costs the server, to read its figures by. */
export async function serverSettings(connection: Connection): Promise<Record<string, string | number>> {
  const [rows] = (await connection.query(
    'SELECT VERSION() AS version, @@innodb_buffer_pool_size AS innodbBufferPoolBytes, @@innodb_flush_log_at_trx_commit AS innodbFlushLogAtTrxCommit, @@log_bin AS logBin, @@max_connections AS maxConnections',
  )) as unknown as [Record<string, string | number>[]];
  return Object.fromEntries(Object.entries(rows[0] ?? {}).map(([key, value]) => [key, typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value]));
}

export interface TableSize { table: string; rows: number; estimatedRows: number; dataBytes: number; indexBytes: number; bytesPerRow: number | null }

/** After ANALYZE TABLE: InnoDB's allocated pages (data = the clustered index, index = the secondary ones) over the exact row count. */
export async function tableSizes(connection: Connection, tables: readonly string[]): Promise<TableSize[]> {
  await connection.query(`ANALYZE TABLE ${tables.join(', ')}`);
  const [info] = (await connection.query(
    'SELECT TABLE_NAME AS name, TABLE_ROWS AS estimatedRows, DATA_LENGTH AS dataBytes, INDEX_LENGTH AS indexBytes FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
  )) as unknown as [{ name: string; estimatedRows: number; dataBytes: number; indexBytes: number }[]];
  const out: TableSize[] = [];
  for (const table of tables) {
    const [[count]] = (await connection.query(`SELECT COUNT(*) AS n FROM ${table}`)) as unknown as [{ n: number }[]];
    const row = info.find((r) => r.name === table);
    const rows = Number(count?.n ?? 0);
    const dataBytes = Number(row?.dataBytes ?? NaN);
    const indexBytes = Number(row?.indexBytes ?? NaN);
    out.push({ table, rows, estimatedRows: Number(row?.estimatedRows ?? NaN), dataBytes, indexBytes, bytesPerRow: rows > 0 ? (dataBytes + indexBytes) / rows : null });
  }
  return out;
}

/** What one run of a row cost the machine, per operation answered: CPU of each process named, and the server's work. */
export interface RunCost {
  /** CPU milliseconds per operation, by process label (the load generator: this process). */
  cpuMs: Record<string, number>;
  statements: number;
  fsyncs: number;
}

/**
 * Runs `run` and divides what the machine spent over it by the operations it answered (`operations` of its
 * measure): CPU of every process given (/proc), of this load generator, and the database server's statements
 * and fsyncs (server-wide: nothing else should run). The diagnosis of a ratio that misses: which side does what
 * more, as figures steadier than the throughputs they explain.
 */
export async function costOf<M>(
  processes: Record<string, number | null>,
  status: Connection,
  run: () => Promise<M>,
  operations: (measure: M) => number,
): Promise<{ measure: M; cost: RunCost }> {
  const pids = Object.entries(processes).filter((entry): entry is [string, number] => entry[1] !== null);
  const [status0, cpu0, self0] = [await globalStatus(status), pids.map(([, pid]) => processCpuSeconds(pid)), process.cpuUsage()];
  const measure = await run();
  const [status1, cpu1, self] = [await globalStatus(status), pids.map(([, pid]) => processCpuSeconds(pid)), process.cpuUsage(self0)];
  const n = operations(measure);
  const per = (value: number) => (n > 0 ? value / n : 0);
  const cpuMs: Record<string, number> = Object.fromEntries(pids.map(([label], i) => [label, per((cpu1[i]! - cpu0[i]!) * 1000)]));
  cpuMs['load generator'] = per((self.user + self.system) / 1000);
  return { measure, cost: { cpuMs, statements: per(status1.Questions - status0.Questions), fsyncs: per(status1.Innodb_data_fsyncs - status0.Innodb_data_fsyncs) } };
}

export function describeCost(cost: RunCost): string {
  const cpu = Object.entries(cost.cpuMs).map(([label, ms]) => `${label} ${ms.toFixed(2)} ms`).join(', ');
  return `CPU per operation: ${cpu}; ${cost.statements.toFixed(1)} statements, ${cost.fsyncs.toFixed(2)} fsyncs`;
}
