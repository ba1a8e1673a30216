/**
 * `npm run bench:mailer-memory`: the mailer inside a memory limit, as a Kubernetes pod runs it. A backlog of
 * invitations is made first (the api, its relay publishing to Kafka), then one mailer is started inside a memory
 * cgroup with the limit (v1 `memory.limit_in_bytes` or v2 `memory.max`; needs root) and drains it to an SMTP server.
 * Reports the mails sent, whether the kernel killed the mailer, V8's heap limit under the cgroup, and the peak memory:
 * the cgroup's (charged only for the pages its process touched first: the node binary's pages another process has
 * cached count in VmHWM, not there) and the process's VmHWM.
 *
 * BENCH_MAILER_LIMIT (default 256M, as deploy/base), BENCH_MAILER_NODE_OPTIONS (default: the mailer container's, from
 * deploy/base or else the image), BENCH_MAILER_INVITES (default 20 000).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SmtpTestServer } from '../test/support/smtp-test-server';
import { fixedCount, type LoadSpec, signInToken } from './load';
import { residentBytes } from './probes';
import { log, MALLOC_ENV, ROOT } from './processes';
import { BENCH_ADMIN, runStandalone, standaloneApi } from './standalone';

const MB = 2 ** 20;

interface MemoryCgroup {
  dir: string;
  peak(): number;
  oomKills(): number;
  remove(): void;
}

/** A memory cgroup with `limit` bytes, v1 or v2; its files differ by name only. */
function memoryCgroup(name: string, limit: number): MemoryCgroup {
  const v1 = existsSync('/sys/fs/cgroup/memory');
  const files = v1
    ? { dir: path.join('/sys/fs/cgroup/memory', name), limit: 'memory.limit_in_bytes', peak: 'memory.max_usage_in_bytes', events: 'memory.oom_control' }
    : { dir: path.join('/sys/fs/cgroup', name), limit: 'memory.max', peak: 'memory.peak', events: 'memory.events' };
  mkdirSync(files.dir, { recursive: true });
  writeFileSync(path.join(files.dir, files.limit), String(limit));
  const read = (file: string) => (existsSync(path.join(files.dir, file)) ? readFileSync(path.join(files.dir, file), 'utf8') : '');
  return {
    dir: files.dir,
    peak: () => Number(read(files.peak) || NaN),
    oomKills: () => Number(/oom_kill (\d+)/.exec(read(files.events))?.[1] ?? NaN),
    remove: () => rmdirSync(files.dir),
  };
}

/** argv that puts the process in the cgroup, then runs node with `args`. */
const inCgroup = (cgroup: MemoryCgroup, args: string[]) => ['-c', `echo $$ > ${cgroup.dir}/cgroup.procs && exec "$0" "$@"`, process.execPath, ...args];

function limitBytes(text: string): number {
  const match = /^(\d+)([MG])i?$/i.exec(text);
  if (!match) throw new Error(`BENCH_MAILER_LIMIT: ${text} is not a size like 256M`);
  return Number(match[1]) * (match[2]!.toUpperCase() === 'G' ? 1024 : 1) * MB;
}

/** The NODE_OPTIONS the mailer container runs with: deploy/base's if it sets one, else the image's (Dockerfile). */
function deployedNodeOptions(): string {
  const manifest = readFileSync(path.join(ROOT, 'deploy', 'base', 'mailer-deployment.yaml'), 'utf8');
  const fromManifest = /name: NODE_OPTIONS\s+value: "?([^"\n]+)"?/.exec(manifest)?.[1]?.trim();
  if (fromManifest !== undefined) return fromManifest;
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  return /^ENV NODE_OPTIONS=(.+)$/m.exec(dockerfile)?.[1]?.trim() ?? '';
}

runStandalone(async () => {
  const limit = limitBytes(process.env.BENCH_MAILER_LIMIT ?? '256M');
  const nodeOptions = process.env.BENCH_MAILER_NODE_OPTIONS ?? deployedNodeOptions();
  const invites = Number(process.env.BENCH_MAILER_INVITES ?? 20_000);
  const smtp = await SmtpTestServer.start();
  const standalone = await standaloneApi('mailer_memory', { relay: true });
  const cgroup = memoryCgroup(`ac-mailer-memory-${Date.now().toString(36)}`, limit);
  try {
    const token = await signInToken(standalone.api.url, BENCH_ADMIN);
    let invited = 0;
    const invite: LoadSpec = { method: 'POST', path: '/v1/users/invite', token, body: () => JSON.stringify({ email: `mm-${process.pid}-${invited++}@bench.test`, name: 'Memory Bench' }) };
    const made = await fixedCount(standalone.api.url, invite, 10, invites);
    log(`${made.ok} invitations made in ${made.seconds.toFixed(1)} s (${made.errors} errors)`);

    const heapLimit = Number(execFileSync('sh', inCgroup(cgroup, ['-e', 'process.stdout.write(String(require("v8").getHeapStatistics().heap_size_limit))']), { env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions }, encoding: 'utf8' })) / MB;
    const started = Date.now();
    const mailer = spawn('sh', inCgroup(cgroup, [path.join(__dirname, '..', 'src', 'interfaces', 'mailer', 'main.js')]), {
      env: { PATH: process.env.PATH ?? '', ...MALLOC_ENV, ...standalone.env, NODE_OPTIONS: nodeOptions, HOST: '127.0.0.1', MAILER_METRICS_PORT: '0', SMTP_URL: smtp.url, PUBLIC_URL: 'http://bench.local', MAILER_GROUP_ID: `bench-mailer-memory-${process.pid}`, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    mailer.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exited = new Promise<string>((resolve) => mailer.once('exit', (code, signal) => resolve(`code ${code}, signal ${signal}`)));
    let exit: string | null = null;
    void exited.then((how) => (exit = how));
    let peakRss = 0;
    let sent = -1;
    let lastProgress = Date.now();
    while (exit === null && smtp.messages.length < made.ok && Date.now() - lastProgress < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (exit === null) peakRss = Math.max(peakRss, residentBytes(mailer.pid!).peak);
      if (smtp.messages.length !== sent) [sent, lastProgress] = [smtp.messages.length, Date.now()];
    }
    log(
      [
        `limit ${(limit / MB).toFixed(0)} MiB, NODE_OPTIONS "${nodeOptions}", V8 heap limit ${heapLimit.toFixed(0)} MiB under it`,
        `mails ${smtp.messages.length}/${made.ok} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        `mailer ${exit === null ? 'alive' : `EXITED (${exit}): ${stderr.slice(-1500)}`}`,
        `OOM kills ${cgroup.oomKills()}`,
        `cgroup peak ${(cgroup.peak() / MB).toFixed(1)} MiB, VmHWM ${(peakRss / MB).toFixed(1)} MiB`,
      ].join('; '),
    );
    if (exit === null) mailer.kill('SIGTERM');
    await exited;
  } finally {
    await standalone.stop();
    await smtp.close();
    cgroup.remove();
  }
});
