/**
 * The processes under test, each its own OS process: the targets forked from bench/target.ts (api,
 * api-noauth, bare, argon) and driven over IPC, and the real mailer (`npm run start:mailer`'s script).
 * Every one runs with the node flags and the allocator settings of `npm start` and the image (`package.json`
 * `config.nodeFlags` and `config.mallocEnv`).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const CONFIG = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { config: { nodeFlags: string; mallocEnv: string } }).config;
/** Node's flags for every process the harness starts: those `npm start` and the image run the service with. */
export const NODE_FLAGS = CONFIG.nodeFlags.split(/\s+/).filter(Boolean);
/** The allocator's settings `npm start` and the image run the service with (`config.mallocEnv`, NAME=value pairs). */
export const MALLOC_ENV: Record<string, string> = Object.fromEntries(
  CONFIG.mallocEnv.split(/\s+/).filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export interface Target {
  name: string;
  url: string;
  /** The api's management listener (GET /metrics), where the target has one; '' otherwise. */
  metricsUrl: string;
  child: ChildProcess;
  call<T>(message: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

let assetsCopied = false;
/**
 * The service's non-TypeScript files (data files it reads at run time, the common passwords) next to its compiled
 * output, as `npm run build` does for dist/: once, before the first process starts, whichever command started it.
 */
function copyServiceAssets(from = path.join(ROOT, 'src'), to = path.join(__dirname, '..', 'src')): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyServiceAssets(source, path.join(to, entry.name));
    else if (!entry.name.endsWith('.ts')) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, path.join(to, entry.name));
    }
  }
}

function withServiceAssets(): void {
  if (!assetsCopied) copyServiceAssets();
  assetsCopied = true;
}

export function startTarget(name: string, mode: string, env: Record<string, string>): Promise<Target> {
  withServiceAssets();
  const child = fork(path.join(__dirname, 'target.js'), [], {
    // BENCH_CPU_PROF=<dir>: each target writes a V8 CPU profile there when it stops (chrome://inspect or speedscope reads it).
    execArgv: process.env.BENCH_CPU_PROF ? [...NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : NODE_FLAGS,
    env: { PATH: process.env.PATH ?? '', ...MALLOC_ENV, ...(process.env.UV_THREADPOOL_SIZE ? { UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE } : {}), BENCH_MODE: mode, LOG_LEVEL, HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  children.push(child);
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  let nextId = 1;
  let stopping: Promise<void> | undefined;
  const pending = new Map<number, (value: unknown) => void>();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready in 120 s: ${stderr.join('').slice(-2000)}`)), 120_000);
    child.on('message', (message: { type: string; id?: number; url?: string; metricsUrl?: string; reason?: string; stats?: unknown; result?: unknown }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve({
          name,
          url: message.url ?? '',
          metricsUrl: message.metricsUrl ?? '',
          child,
          call: <T>(payload: Record<string, unknown>) =>
            new Promise<T>((done) => {
              const id = nextId++;
              pending.set(id, done as (value: unknown) => void);
              child.send({ ...payload, id });
            }),
          // Once: the end of a run stops every target again, some of them already stopping (their channel closed).
          stop: () =>
            (stopping ??= (async () => {
              if (child.exitCode !== null || child.signalCode !== null) return;
              const exited = new Promise((done) => child.once('exit', done));
              if (child.connected) child.send({ type: 'stop' });
              else child.kill('SIGTERM');
              const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
              await exited;
              clearTimeout(kill);
            })()),
        });
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${name} failed to start: ${message.reason}`));
      } else if (message.id !== undefined) {
        pending.get(message.id)?.(message.stats ?? message.result);
        pending.delete(message.id);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}: ${stderr.join('').slice(-2000)}`));
    });
  });
}

export interface Stats { eldP50Ms: number; eldP99Ms: number; eldMaxMs: number; rssBytes: number; peakRssBytes: number }
export const stats = (target: Target, reset = false) => target.call<Stats>({ type: 'stats', reset });

export interface Mailer {
  pid: number;
  /** Its own GET /metrics (MAILER_METRICS_PORT), as the mailer logged it at start. */
  metricsUrl: string;
  /** Resolves once the mailer logged "mailer ready" (its consumer joined the group). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The built mailer, as `npm run start:mailer` runs it. Resolves as soon as its metrics server
 * listens (before it connects to the database or Kafka), so a first scrape comes before any mail.
 */
export function startMailer(env: Record<string, string>): Promise<Mailer> {
  withServiceAssets();
  const script = path.join(__dirname, '..', 'src', 'interfaces', 'mailer', 'main.js');
  const child = spawn(process.execPath, [...NODE_FLAGS, script], {
    env: { PATH: process.env.PATH ?? '', ...MALLOC_ENV, HOST: '127.0.0.1', MAILER_METRICS_PORT: '0', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output: string[] = [];
  let pendingLine = '';
  let markReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined); // a caller that never waits for it must not see an unhandled rejection
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mailer not ready: ${output.join('').slice(-2000)}`)), 60_000);
    const readyTimer = setTimeout(() => failReady(new Error(`mailer never joined its group: ${output.join('').slice(-2000)}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (output.length < 50) output.push(chunk.toString());
      const lines = (pendingLine + chunk.toString()).split('\n');
      pendingLine = lines.pop() ?? '';
      for (const line of lines) {
        const metrics = /"metrics":"(http:\/\/[^"]+)"/.exec(line)?.[1];
        if (metrics && /mailer starting/.test(line)) {
          clearTimeout(timer);
          resolve({ pid: child.pid!, metricsUrl: metrics, ready, stop });
        }
        if (/mailer ready/.test(line)) {
          clearTimeout(readyTimer);
          markReady();
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearTimeout(readyTimer);
      const error = new Error(`mailer exited with ${code}: ${output.join('').slice(-2000)}`);
      failReady(error);
      reject(error);
    });
  });
}
