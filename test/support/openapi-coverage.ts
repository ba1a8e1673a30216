import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenApiContract } from './openapi-contract';

/**
 * Where each test app of this jest run leaves what its answers covered, for the report at the end:
 * a folder per run (another run in the same tree keeps its own), named by the global setup.
 */
const ENV = 'OPENAPI_COVERAGE_DIR';

export function startCoverage(): void {
  // Both projects' setups run before any test; the first one names the folder.
  process.env[ENV] ??= path.join(__dirname, '..', '..', '.cache', 'openapi-coverage', randomUUID());
}

export function recordCoverage(contract: OpenApiContract): void {
  const dir = process.env[ENV];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  // jest gives each test file a fresh module registry in the same worker: no counter here, a unique name.
  writeFileSync(path.join(dir, `${randomUUID()}.json`), JSON.stringify({ declared: contract.declared(), seen: [...contract.seen] }));
}

/**
 * One report for the whole run (the first global teardown prints it and removes the records): the
 * answers the document declares that no test app was seen giving, by operation. Statuses no test
 * provokes over HTTP (408, 500, a 503 on a route the fault tests leave alone) are expected here; an
 * operation listed with all its statuses was never called at all.
 */
export function reportCoverage(log: (line: string) => void): void {
  const dir = process.env[ENV];
  if (!dir) return;
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return;
  }
  const declared = new Set<string>();
  const seen = new Set<string>();
  for (const file of files) {
    const record = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { declared: string[]; seen: string[] };
    record.declared.forEach((d) => declared.add(d));
    record.seen.forEach((s) => seen.add(s));
  }
  rmSync(dir, { recursive: true, force: true });
  if (declared.size === 0) return;
  const unseen = new Map<string, string[]>();
  for (const answer of declared) {
    if (seen.has(answer)) continue;
    const [operation, status] = answer.split(' ') as [string, string];
    unseen.set(operation, [...(unseen.get(operation) ?? []), status]);
  }
  log(`OpenAPI contract: ${seen.size} of ${declared.size} declared answers seen from ${files.length} test apps, every answer checked against the document`);
  for (const [operation, statuses] of unseen) log(`  never seen: ${operation} ${statuses.join(', ')}`);
}
