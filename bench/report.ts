/**
 * Writes bench/results.json and the two generated blocks of docs/BENCHMARKS.md: the ratio table
 * (between the bench:results markers) and the capacity tables (between the bench:capacity markers).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Capacity } from './capacity';
import { log, ROOT } from './processes';

export interface Row {
  id: string;
  scenario: string;
  baseline: string;
  figure: number | null;
  baselineFigure: number | null;
  unit: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  p50Ms: number | null;
  p99Ms: number | null;
  note?: string;
}

export interface Meta {
  smoke: boolean;
  seconds: number;
  settings: { rounds: number; seconds: number };
  cpus: number;
  node: string;
  logLevel: string;
  /** The share of the CPU time the run wanted that the hypervisor took (steal.ts, stealShare); null where unknown. */
  steal?: number | null;
}

const RESULTS = ['<!-- bench:results:start -->', '<!-- bench:results:end -->'] as const;
const CAPACITY = ['<!-- bench:capacity:start -->', '<!-- bench:capacity:end -->'] as const;
/**
 * Rows of an issue's own, in a table of their own: `<name>Rows` in results.json, between the
 * `bench:<name>` markers of BENCHMARKS.md (the OAuth rows of #21: bench/oauth.ts; the audit trail's of #23: bench/audit.ts).
 */
export interface RowTable {
  name: string;
  rows: Row[];
}

export function fmt(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

function runLine(meta: Meta, generatedAt: string): string {
  const steal = meta.steal === null || meta.steal === undefined ? '' : ` · hypervisor steal ${fmt(meta.steal * 100, 0)} % of the CPU time the run wanted`;
  return `Run ${generatedAt} · ${meta.cpus} CPUs${steal} · Node ${meta.node} · ${meta.smoke ? 'SMOKE (tiny sizes, not a measurement)' : 'full'}`;
}

function resultsTable(rows: Row[], meta: Meta, generatedAt: string): string {
  return [
    `${runLine(meta, generatedAt)} · ${meta.settings.rounds} interleaved rounds of ${meta.settings.seconds} s · LOG_LEVEL=${meta.logLevel} · took ${fmt(meta.seconds, 0)} s`,
    '',
    ...rowTable(rows),
  ].join('\n');
}

function rowTable(rows: Row[]): string[] {
  return [
    '| scenario | baseline | figure | baseline figure | ratio (median) | target | met | p50 / p99 (ms) | note |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) =>
      `| ${r.scenario} | ${r.baseline} | ${fmt(r.figure)} ${r.unit} | ${r.baselineFigure === null ? '—' : `${fmt(r.baselineFigure)} ${r.unit}`} | ${r.ratio === null ? '—' : r.unit === 'req/s' && !r.target.endsWith('×') ? `${fmt(r.ratio * 100, 0)} %` : `${fmt(r.ratio, 2)}×`} | ${r.target} | ${r.met ? 'yes' : 'NO'} | ${fmt(r.p50Ms)} / ${fmt(r.p99Ms)} | ${r.note ?? ''} |`,
    ),
  ];
}

function capacityTables(capacity: Capacity, meta: Meta, generatedAt: string): string {
  const m = capacity.memory;
  const s = capacity.smtpLatency;
  const r = capacity.userTotalRecount;
  const mib = (bytes: number) => fmt(bytes / 2 ** 20, 1);
  return [
    `${runLine(meta, generatedAt)} · \`${capacity.command}\` · results.json \`capacity\` · ${capacity.users} users seeded · load average ${fmt(capacity.loadAverage.start, 2)} → ${fmt(capacity.loadAverage.end, 2)} on ${meta.cpus} cores · database CPU: ${capacity.databaseCpu.detail}`,
    '',
    `Database server (\`capacity.databaseServer\`): ${Object.entries(capacity.databaseServer).map(([key, value]) => `${key} ${String(value)}`).join(', ')}.`,
    '',
    '| operation (`capacity.operations[].id`) | process | count | wall (s) | process CPU (s) | CPU per op (ms) | ops per core-second | database CPU per op (ms) | statements / row writes / fsyncs per op (server-wide) | peak RSS (MB) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...capacity.operations.map((o) =>
      `| ${o.operation} (\`${o.id}\`) | ${o.process} | ${o.count}${o.errors ? ` (${o.errors} errors)` : ''} | ${fmt(o.wallSeconds, 1)} | ${fmt(o.cpuSeconds, 2)} | ${fmt(o.cpuMsPerOp, 3)} | ${fmt(o.opsPerCoreSecond, 0)} | ${o.dbCpuMsPerOp === null ? 'not measured' : fmt(o.dbCpuMsPerOp, 3)} | ${fmt(o.dbStatementsPerOp, 1)} / ${fmt(o.dbRowsWrittenPerOp, 1)} / ${fmt(o.dbFsyncsPerOp, 2)} | ${fmt(o.peakRssMB, 0)} |`,
    ),
    '',
    `Memory (\`capacity.memory\`): api RSS ${fmt(m.apiRssAtRestMB, 0)} MB at rest, ${fmt(m.apiRssAfterLoadMB, 0)} MB at rest after the runs, ${fmt(m.apiPeakRssMB, 0)} MB peak; mailer ${fmt(m.mailerRssAtRestMB, 0)} MB at rest after its drain, ${fmt(m.mailerPeakRssMB, 0)} MB peak.`,
    '',
    `One mailer when the SMTP server takes ${s.latencyMs} ms to accept each mail (\`capacity.smtpLatency\`): ${fmt(s.mailsPerSecond, 1)} mails/s over ${s.mails} mails, at most ${s.peakSmtpInFlight} mails in the SMTP server at once (MAILER_CONCURRENCY ${s.mailerConcurrency} × MAILER_IN_FLIGHT ${s.mailerInFlight}, ${s.smtpConnections} pooled SMTP connections, ${s.topicPartitions} partitions).`,
    '',
    '| table (`capacity.tables`) | rows | data (MB) | indexes (MB) | bytes per row |',
    '|---|---|---|---|---|',
    ...capacity.tables.map((t) => `| ${t.table} | ${t.rows} | ${mib(t.dataBytes)} | ${mib(t.indexBytes)} | ${fmt(t.bytesPerRow, 0)} |`),
    '',
    `The user total's recount (\`capacity.userTotalRecount\`, \`${r.sql}\`, run by each API process serving user lists when its count is older than 5 s): ${fmt(r.seconds, 3)} s at ${r.users} users, ${r.dbCpuSeconds === null ? 'database CPU not measured' : `${fmt(r.dbCpuSeconds, 2)} s of database CPU`} (median of 3).`,
  ].join('\n');
}

/** Replaces what lies between the two markers, or appends the markers with it. */
function between(text: string, [start, end]: readonly [string, string], body: string): string {
  return text.includes(start) && text.includes(end)
    ? `${text.slice(0, text.indexOf(start) + start.length)}\n${body}\n${text.slice(text.indexOf(end))}`
    : `${text.endsWith('\n') ? text : `${text}\n`}\n${start}\n${body}\n${end}\n`;
}

export function writeResults(rows: Row[], meta: Meta, capacity: Capacity, outDir?: string, tables: RowTable[] = []): void {
  const jsonPath = outDir ? path.join(outDir, 'results.json') : path.join(ROOT, 'bench', 'results.json');
  const mdPath = outDir ? path.join(outDir, 'BENCHMARKS.md') : path.join(ROOT, 'docs', 'BENCHMARKS.md');
  const generatedAt = new Date().toISOString();
  mkdirSync(path.dirname(jsonPath), { recursive: true });
  const extra = Object.fromEntries(tables.map((t) => [`${t.name}Rows`, t.rows]));
  writeFileSync(jsonPath, `${JSON.stringify({ generatedAt, meta, rows, ...extra, capacity }, null, 2)}\n`);
  const existing = existsSync(mdPath) ? readFileSync(mdPath, 'utf8') : `# Benchmarks\n\n${RESULTS[0]}\n${RESULTS[1]}\n`;
  let markdown = between(between(existing, RESULTS, resultsTable(rows, meta, generatedAt)), CAPACITY, capacityTables(capacity, meta, generatedAt));
  for (const { name, rows: tableRows } of tables.filter((t) => t.rows.length > 0)) {
    const table = [`${runLine(meta, generatedAt)} · the same run as the table above · results.json \`${name}Rows\``, '', ...rowTable(tableRows)].join('\n');
    markdown = between(markdown, [`<!-- bench:${name}:start -->`, `<!-- bench:${name}:end -->`], table);
  }
  writeFileSync(mdPath, markdown);
  log(`results in ${jsonPath} and ${mdPath}`);
}
