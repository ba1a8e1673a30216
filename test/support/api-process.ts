import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

const ROOT = path.resolve(__dirname, '../..');
export const API_SCRIPT = path.join(ROOT, 'dist/src/interfaces/http/main.js');

/** The built api (node dist/…), as an orchestrator runs it: its own port and DATA_DIR, nothing inherited but PATH. */
export interface ApiProcess {
  name: string;
  port: number;
  child: ChildProcess;
  output: string[];
  /** The exit code; the DATA_DIR is gone by then. */
  exited: Promise<number | null>;
}

/** Builds when dist/ is missing (npm run build: it also copies the data files the api reads); a stale dist/ is the caller's to rebuild. */
export function ensureBuilt(): void {
  if (!existsSync(API_SCRIPT)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * Resolves once the process logs that it listens (it must log at info or below); rejects if it exits or takes longer
 * than `readyWithinMs` (30 s; more where the start waits on something else, such as a migrate step run meanwhile).
 */
export async function startApiProcess(
  name: string,
  env: Record<string, string>,
  options: { port?: number; readyWithinMs?: number } = {},
): Promise<ApiProcess> {
  const readyWithinMs = options.readyWithinMs ?? 30_000;
  // A port chosen beforehand lets PUBLIC_URL (the tokens' issuer) name it.
  const port = options.port ?? (await freePort());
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `ac-${name}-`));
  const child = spawn(process.execPath, [API_SCRIPT], {
    env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', ...env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      rmSync(dataDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${name} ${why}:\n${output.join('').slice(-3000)}`));
    };
    const timer = setTimeout(() => fail(`did not start in ${readyWithinMs / 1000} s`), readyWithinMs);
    const collect = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('access-control ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    void exited.then((code) => fail(`exited with ${code} before it was ready`));
  });
  return { name, port, child, output, exited };
}

/**
 * Runs a built entry point (default: the api) that is expected to stop by itself, as startApiProcess
 * starts it; resolves with its exit code and everything it printed. Kills it after `timeoutMs`.
 */
export async function runUntilExit(
  env: Record<string, string>,
  { script = API_SCRIPT, timeoutMs = 60_000, args = [] }: { script?: string; timeoutMs?: number; args?: string[] } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; timedOut: boolean }> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-exit-'));
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', PORT: String(port), DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  // 'close': the process has exited and its pipes are drained.
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  rmSync(dataDir, { recursive: true, force: true });
  return { code, signal, output, timedOut };
}
