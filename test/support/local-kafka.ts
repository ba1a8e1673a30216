/**
 * A single-node Apache Kafka broker (KRaft, combined broker + controller) run as a local java
 * process from Maven Central jars, for the integration tests on machines without a container
 * runtime.
 *
 * - Jars: `mvn dependency:copy-dependencies` on tools/kafka/pom.xml, cached under
 *   `<project>/.cache/kafka/<kafka version>-<pom hash>/libs` (reused as is when present).
 * - Each broker gets its own temp work dir (server.properties, log4j.properties, data/, logs/)
 *   and two free loopback ports (client + controller) that stay the same across restart().
 * - The java process is tracked: it is SIGKILLed when the owning node process exits, and a
 *   detached watchdog kills it if the owner dies without running exit handlers (e.g. SIGKILL).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants as fsConstants, existsSync, openSync, closeSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './free-port';

export interface LocalKafkaOptions {
  /** Project root holding tools/kafka/pom.xml. Default: two levels above this file. */
  projectRoot?: string;
  /** Where the jars are cached. Default: `<projectRoot>/.cache/kafka`. */
  cacheDir?: string;
  /** Client (PLAINTEXT) port on 127.0.0.1. Default: a free port. */
  port?: number;
  /** Controller port on 127.0.0.1. Default: a free port. */
  controllerPort?: number;
  /** Max heap of the broker JVM (-Xmx). Default: '512m'. */
  heap?: string;
  /** How long to wait for the broker to answer an admin client. Default: 60 000 ms. */
  startupTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL. Default: 30 000 ms. */
  stopTimeoutMs?: number;
  /** How long the Maven download may take. Default: 600 000 ms. */
  mavenTimeoutMs?: number;
  /** Extra / overriding server.properties entries. */
  properties?: Record<string, string | number | boolean>;
}

/** Thrown when the tools needed to run a local broker are missing or fetching the jars failed. */
export class LocalKafkaUnavailableError extends Error {
  override readonly name = 'LocalKafkaUnavailableError';
}

const DEFAULT_HEAP = '512m';
const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_TIMEOUT_MS = 30_000;
const DEFAULT_MAVEN_TIMEOUT_MS = 600_000;
const LOG_TAIL_LINES = 40;

// ---------------------------------------------------------------------------------------------
// Process tracking: no java process started here may outlive the node process that started it.
// ---------------------------------------------------------------------------------------------

const liveJavaPids = new Set<number>();
const ownedWorkDirs = new Set<string>();
let exitHooksInstalled = false;

function killTrackedSync(): void {
  for (const pid of liveJavaPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  liveJavaPids.clear();
}

function removeOwnedDirsSync(): void {
  for (const dir of ownedWorkDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
    } catch {
      /* best effort */
    }
  }
  ownedWorkDirs.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.once('exit', () => {
    killTrackedSync();
    removeOwnedDirsSync();
  });
  // Only where nobody else handles the signal (so its default action, dying, would skip the
  // 'exit' event): clean up, then re-raise so the process still dies of that signal.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    if (process.listenerCount(signal) > 0) continue;
    const onSignal = (): void => {
      killTrackedSync();
      removeOwnedDirsSync();
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A detached node process that SIGKILLs `javaPid` (and removes its work dir) as soon as `ownerPid`
 * is gone, and exits when the java process is gone. Covers an owner killed with SIGKILL, which
 * runs no 'exit' handler.
 */
function spawnWatchdog(ownerPid: number, javaPid: number, workDir: string): void {
  const script = `
    const [owner, java] = process.argv.slice(1, 3).map(Number);
    const workDir = process.argv[3];
    const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
    setInterval(() => {
      if (!alive(java)) process.exit(0);
      if (!alive(owner)) {
        try { process.kill(java, 'SIGKILL'); } catch {}
        setTimeout(() => {
          try { require('fs').rmSync(workDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }); } catch {}
          process.exit(0);
        }, 500);
      }
    }, 500);
  `;
  const watchdog = spawn(process.execPath, ['-e', script, String(ownerPid), String(javaPid), workDir], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.on('error', () => undefined);
  watchdog.unref();
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface ExecResult {
  stdout: string;
  stderr: string;
}

class CommandError extends Error {
  constructor(
    message: string,
    readonly command: string,
    readonly output: string,
    readonly notFound: boolean,
  ) {
    super(message);
  }
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./*-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function formatCommand(file: string, args: readonly string[]): string {
  return [file, ...args].map(quoteArg).join(' ');
}

function run(file: string, args: readonly string[], opts: { cwd?: string; timeoutMs: number }): Promise<ExecResult> {
  const command = formatCommand(file, args);
  return new Promise((resolvePromise, reject) => {
    execFile(
      file,
      args,
      { cwd: opts.cwd, timeout: opts.timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (!error) {
          resolvePromise({ stdout, stderr });
          return;
        }
        const err = error as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        const output = tail(`${stdout}\n${stderr}`, LOG_TAIL_LINES);
        if (err.code === 'ENOENT') {
          reject(new CommandError(`${file}: command not found`, command, output, true));
        } else if (err.killed) {
          reject(new CommandError(`timed out after ${opts.timeoutMs} ms`, command, output, false));
        } else {
          reject(new CommandError(`exited with ${String(err.code ?? err.message)}`, command, output, false));
        }
      },
    );
  });
}

function tail(text: string, lines: number): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').trimEnd().split('\n').slice(-lines).join('\n').trim();
}

function tailOfFile(path: string, lines: number): string {
  try {
    return tail(readFileSync(path, 'utf8'), lines);
  } catch {
    return '';
  }
}

/** Absolute path of an executable found on PATH (or the given path if it is one), else undefined. */
export function findExecutable(name: string): string | undefined {
  const candidates = name.includes('/') ? [name] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  return undefined;
}

export function javaExecutable(): string | undefined {
  const javaHome = process.env.JAVA_HOME;
  if (javaHome) {
    const fromHome = findExecutable(join(javaHome, 'bin', 'java'));
    if (fromHome) return fromHome;
  }
  return findExecutable('java');
}

/**
 * Why no LocalKafkaBroker can start here (no Java; or no Maven and no jars cached yet), or undefined
 * when one can. The tests that stop, restart or reconfigure a broker start one of their own this way,
 * whatever the shared broker of the run is (KAFKA_BROKERS, testcontainers or local).
 */
export function localKafkaUnavailable(projectRoot = defaultProjectRoot()): string | undefined {
  if (!javaExecutable()) return 'a broker of its own needs Java 17+ (java on PATH or $JAVA_HOME/bin/java)';
  const cached = existsSync(join(projectRoot, '.cache', 'kafka')) && readdirSync(join(projectRoot, '.cache', 'kafka')).length > 0;
  if (!cached && !findExecutable('mvn')) return 'a broker of its own needs mvn once, to fetch the Kafka jars';
  return undefined;
}

/** A Kafka cluster id: 16 random bytes, URL-safe base64 without padding, not starting with '-'. */
function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------------------------------------
// Jars
// ---------------------------------------------------------------------------------------------

export interface KafkaJars {
  libsDir: string;
  kafkaVersion: string;
  /** True when this call ran Maven (false: reused the cache). */
  downloaded: boolean;
}

const jarsInFlight = new Map<string, Promise<KafkaJars>>();

function defaultProjectRoot(): string {
  return resolve(__dirname, '..', '..');
}

/**
 * Makes sure the broker's jars are in the cache, running Maven only when they are not.
 * The cache key includes a hash of the pom, so editing the pom fetches a fresh set.
 */
export function ensureKafkaJars(opts: Pick<LocalKafkaOptions, 'projectRoot' | 'cacheDir' | 'mavenTimeoutMs'> = {}): Promise<KafkaJars> {
  const projectRoot = opts.projectRoot ?? defaultProjectRoot();
  const pomPath = join(projectRoot, 'tools', 'kafka', 'pom.xml');
  const key = `${pomPath}|${opts.cacheDir ?? ''}`;
  let pending = jarsInFlight.get(key);
  if (!pending) {
    pending = fetchJars(projectRoot, pomPath, opts).finally(() => jarsInFlight.delete(key));
    jarsInFlight.set(key, pending);
  }
  return pending;
}

async function fetchJars(projectRoot: string, pomPath: string, opts: Pick<LocalKafkaOptions, 'cacheDir' | 'mavenTimeoutMs'>): Promise<KafkaJars> {
  let pom: string;
  try {
    pom = await readFile(pomPath, 'utf8');
  } catch {
    throw new LocalKafkaUnavailableError(`${pomPath} not found (it lists the jars of the local Kafka broker)`);
  }
  const kafkaVersion = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1] ?? 'unknown';
  const pomHash = createHash('sha256').update(pom).digest('hex').slice(0, 10);
  const cacheDir = opts.cacheDir ?? join(projectRoot, '.cache', 'kafka');
  const versionDir = join(cacheDir, `${kafkaVersion}-${pomHash}`);
  const libsDir = join(versionDir, 'libs');
  const marker = join(libsDir, '.complete');
  if (existsSync(marker)) return { libsDir, kafkaVersion, downloaded: false };

  const mvn = findExecutable('mvn');
  if (!mvn) {
    throw new LocalKafkaUnavailableError(
      `mvn not found on PATH (needed once to fetch the Kafka ${kafkaVersion} jars into ${libsDir})`,
    );
  }
  // Download into a private dir, then rename: concurrent callers never see a half-filled cache.
  await mkdir(versionDir, { recursive: true });
  const stagingDir = await mkdtemp(join(versionDir, 'libs.tmp-'));
  const args = ['-q', '-B', '-Dstyle.color=never', '-f', pomPath, 'dependency:copy-dependencies', `-DoutputDirectory=${stagingDir}`];
  try {
    await run(mvn, args, { cwd: projectRoot, timeoutMs: opts.mavenTimeoutMs ?? DEFAULT_MAVEN_TIMEOUT_MS });
    await writeFile(join(stagingDir, '.complete'), `kafka ${kafkaVersion}\n`);
  } catch (error) {
    await rm(stagingDir, { recursive: true, force: true });
    if (error instanceof CommandError) {
      throw new LocalKafkaUnavailableError(
        `Maven download of the Kafka ${kafkaVersion} jars failed (${error.message}): ${error.command}` +
          (error.output ? `\n${error.output}` : ''),
      );
    }
    throw error;
  }
  try {
    await rename(stagingDir, libsDir);
  } catch (error) {
    // Another process finished first: use its copy.
    await rm(stagingDir, { recursive: true, force: true });
    if (!existsSync(marker)) throw error;
  }
  return { libsDir, kafkaVersion, downloaded: true };
}

// ---------------------------------------------------------------------------------------------
// The broker
// ---------------------------------------------------------------------------------------------

interface BrokerLayout {
  workDir: string;
  dataDir: string;
  logsDir: string;
  serverProperties: string;
  log4jProperties: string;
  serverLog: string;
  stdoutLog: string;
}

function layoutOf(workDir: string): BrokerLayout {
  const logsDir = join(workDir, 'logs');
  return {
    workDir,
    dataDir: join(workDir, 'data'),
    logsDir,
    serverProperties: join(workDir, 'server.properties'),
    log4jProperties: join(workDir, 'log4j.properties'),
    serverLog: join(logsDir, 'server.log'),
    stdoutLog: join(logsDir, 'stdout.log'),
  };
}

function serverPropertiesText(
  layout: BrokerLayout,
  port: number,
  controllerPort: number,
  extra: Record<string, string | number | boolean>,
): string {
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': layout.dataDir,
    'num.partitions': 3,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'auto.create.topics.enable': true,
    'delete.topic.enable': true,
    'offsets.topic.replication.factor': 1,
    // One partition instead of 50: the first consumer group is ready in a fraction of the time.
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    // After kill(), the restarted controller rejects the new broker incarnation
    // (DUPLICATE_BROKER_REGISTRATION) until the old one's session expires: 9 s by default.
    'broker.session.timeout.ms': 4000,
    'broker.heartbeat.interval.ms': 500,
    'num.network.threads': 2,
    'num.io.threads': 4,
    'num.recovery.threads.per.data.dir': 1,
    'log.retention.hours': 24,
    ...extra,
  };
  return (
    '# Generated by test/support/local-kafka.ts\n' +
    Object.entries(props)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join('\n') +
    '\n'
  );
}

function log4jPropertiesText(layout: BrokerLayout): string {
  return [
    '# Generated by test/support/local-kafka.ts: everything to a file, nothing on the console.',
    'log4j.rootLogger=INFO, file',
    'log4j.appender.file=org.apache.log4j.FileAppender',
    `log4j.appender.file.File=${layout.serverLog}`,
    'log4j.appender.file.Append=true',
    'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
    'log4j.logger.kafka.request.logger=WARN',
    'log4j.logger.state.change.logger=WARN',
    'log4j.logger.kafka.log.LogCleaner=WARN',
    'log4j.logger.org.apache.kafka.clients=WARN',
    '',
  ].join('\n');
}

interface BrokerConfig {
  java: string;
  libsDir: string;
  kafkaVersion: string;
  port: number;
  controllerPort: number;
  heap: string;
  startupTimeoutMs: number;
  stopTimeoutMs: number;
  layout: BrokerLayout;
}

export class LocalKafkaBroker {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private destroyed = false;

  private constructor(private readonly config: BrokerConfig) {}

  /**
   * Fetches the jars if needed, formats a fresh KRaft log dir and starts the broker; resolves
   * once an admin client can list topics.
   */
  static async start(opts: LocalKafkaOptions = {}): Promise<LocalKafkaBroker> {
    const java = javaExecutable();
    const projectRoot = opts.projectRoot ?? defaultProjectRoot();
    if (!java) {
      const alsoMvn = findExecutable('mvn') ? '' : ' and mvn not found on PATH either';
      throw new LocalKafkaUnavailableError(
        `java not found (neither $JAVA_HOME/bin/java nor on PATH)${alsoMvn}: ` +
          'a local Kafka broker needs Java 17+',
      );
    }
    const jars = await ensureKafkaJars({ projectRoot, cacheDir: opts.cacheDir, mavenTimeoutMs: opts.mavenTimeoutMs });
    const port = opts.port ?? (await freePort());
    let controllerPort = opts.controllerPort ?? (await freePort());
    while (controllerPort === port) controllerPort = await freePort();

    installExitHooks();
    const workDir = await mkdtemp(join(tmpdir(), 'local-kafka-'));
    ownedWorkDirs.add(workDir);
    const layout = layoutOf(workDir);
    await mkdir(layout.dataDir, { recursive: true });
    await mkdir(layout.logsDir, { recursive: true });
    await writeFile(layout.serverProperties, serverPropertiesText(layout, port, controllerPort, opts.properties ?? {}));
    await writeFile(layout.log4jProperties, log4jPropertiesText(layout));

    const broker = new LocalKafkaBroker({
      java,
      libsDir: jars.libsDir,
      kafkaVersion: jars.kafkaVersion,
      port,
      controllerPort,
      heap: opts.heap ?? DEFAULT_HEAP,
      startupTimeoutMs: opts.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
      stopTimeoutMs: opts.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
      layout,
    });
    try {
      await broker.format();
      await broker.launch();
    } catch (error) {
      await broker.destroy();
      throw error;
    }
    return broker;
  }

  /** Bootstrap servers, e.g. "127.0.0.1:40123". Unchanged by restart(). */
  get brokers(): string {
    return `127.0.0.1:${this.config.port}`;
  }

  get port(): number {
    return this.config.port;
  }

  get kafkaVersion(): string {
    return this.config.kafkaVersion;
  }

  /** The broker's temp dir (server.properties, data/, logs/server.log). */
  get workDir(): string {
    return this.config.layout.workDir;
  }

  /** The broker's log4j output, for diagnosing failures. */
  get logFile(): string {
    return this.config.layout.serverLog;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * Controlled shutdown: SIGTERM, then SIGKILL if the JVM is still there after `timeoutMs`.
   * Keeps the data, so restart() can bring the same broker back. No-op when not running.
   */
  async stop(timeoutMs: number = this.config.stopTimeoutMs): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.ref(); // an unref'd child would not keep node alive while we wait for its exit
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((r) => {
      timer = setTimeout(() => r(false), timeoutMs);
    });
    const stopped = await Promise.race([this.exited.then(() => true), timedOut]);
    clearTimeout(timer);
    if (!stopped) {
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** Crash: SIGKILL, no shutdown. Keeps the data (restart() recovers it). No-op when not running. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.ref();
    child.kill('SIGKILL');
    await this.exited;
  }

  /**
   * Stops the broker if it is running (gracefully), then starts it again with the same
   * configuration: same ports, same log dir, same data. Resolves once it answers again.
   */
  async restart(): Promise<void> {
    if (this.destroyed) throw new Error('LocalKafkaBroker: restart() after destroy()');
    await this.stop();
    await this.launch();
  }

  /** stop() and delete the broker's temp dir. The broker cannot be restarted afterwards. */
  async destroy(): Promise<void> {
    await this.stop();
    this.destroyed = true;
    const { workDir } = this.config.layout;
    ownedWorkDirs.delete(workDir);
    await rm(workDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }

  // -------------------------------------------------------------------------------------------

  private classpath(): string {
    return `${this.config.libsDir}/*`;
  }

  private jvmArgs(): string[] {
    const { layout } = this.config;
    return [
      `-Dlog4j.configuration=file:${layout.log4jProperties}`,
      `-Dkafka.logs.dir=${layout.logsDir}`,
      '-Djava.awt.headless=true',
      '-XX:-UsePerfData',
      '-cp',
      this.classpath(),
    ];
  }

  private async format(): Promise<void> {
    const { java, layout } = this.config;
    const args = [
      '-Xmx256m',
      '-XX:TieredStopAtLevel=1',
      ...this.jvmArgs(),
      'kafka.tools.StorageTool',
      'format',
      '-t',
      randomClusterId(),
      '-c',
      layout.serverProperties,
    ];
    try {
      await run(java, args, { cwd: layout.workDir, timeoutMs: 60_000 });
    } catch (error) {
      if (error instanceof CommandError) {
        const logTail = tailOfFile(layout.serverLog, LOG_TAIL_LINES);
        const Ctor = error.notFound ? LocalKafkaUnavailableError : Error;
        throw new Ctor(
          `formatting the KRaft log dir failed (${error.message}): ${error.command}` +
            (error.output ? `\n${error.output}` : '') +
            (logTail ? `\n--- ${layout.serverLog} ---\n${logTail}` : ''),
        );
      }
      throw error;
    }
  }

  private async launch(): Promise<void> {
    if (this.child) throw new Error('LocalKafkaBroker: already running');
    const { java, layout, heap } = this.config;
    const args = [
      `-Xmx${heap}`,
      '-XX:+UseG1GC',
      '-XX:MaxGCPauseMillis=20',
      '-XX:+ExitOnOutOfMemoryError',
      ...this.jvmArgs(),
      'kafka.Kafka',
      layout.serverProperties,
    ];
    const out = openSync(layout.stdoutLog, 'a');
    let child: ChildProcess;
    try {
      child = spawn(java, args, { cwd: layout.workDir, stdio: ['ignore', out, out] });
    } finally {
      closeSync(out);
    }
    const spawnError = new Promise<Error>((resolveError) => child.once('error', resolveError));
    const exited = new Promise<void>((resolveExit) => {
      child.once('exit', () => resolveExit());
      child.once('error', () => resolveExit());
    });
    const pid = child.pid;
    if (pid === undefined) {
      const error = await spawnError;
      throw new LocalKafkaUnavailableError(`could not start ${formatCommand(java, args)}: ${error.message}`);
    }
    liveJavaPids.add(pid);
    child.unref(); // never keeps the test process alive by itself; the exit hook kills it
    spawnWatchdog(process.pid, pid, layout.workDir);
    this.child = child;
    this.exited = exited.then(() => {
      liveJavaPids.delete(pid);
      if (this.child === child) this.child = undefined;
    });

    try {
      await this.waitUntilReady(child);
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  private async waitUntilReady(child: ChildProcess): Promise<void> {
    const { startupTimeoutMs } = this.config;
    const deadline = Date.now() + startupTimeoutMs;
    const kafka = new Kafka({
      clientId: 'local-kafka-readiness',
      brokers: [this.brokers],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      requestTimeout: 5_000,
      retry: { retries: 0 },
    });
    let lastError = 'no attempt';
    let exitInfo: string | undefined;
    child.once('exit', (code, signal) => {
      exitInfo = `exited with ${signal ?? `code ${String(code)}`}`;
    });
    while (Date.now() < deadline) {
      if (exitInfo || this.child !== child) break;
      const admin = kafka.admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        await admin.listTopics();
        if (cluster.brokers.length > 0 && cluster.controller !== null) return;
        lastError = 'cluster has no broker or controller yet';
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
      await sleep(250);
    }
    const { layout } = this.config;
    const why = exitInfo ? `the broker ${exitInfo}` : `no answer within ${startupTimeoutMs} ms (last error: ${lastError})`;
    const serverLog = tailOfFile(layout.serverLog, LOG_TAIL_LINES);
    const stdout = tailOfFile(layout.stdoutLog, LOG_TAIL_LINES);
    throw new Error(
      `local Kafka ${this.config.kafkaVersion} broker on ${this.brokers} did not start: ${why}` +
        (stdout ? `\n--- ${layout.stdoutLog} ---\n${stdout}` : '') +
        (serverLog ? `\n--- ${layout.serverLog} ---\n${serverLog}` : ''),
    );
  }
}
