/**
 * A single-node Apache Kafka broker (KRaft, combined broker + controller) run as a local java
 * process from Maven Central jars, for the integration tests on machines without a container
 * runtime.
 *
 * - Jars: kafka-jars.ts (Maven Central, cached under `<project>/.cache/kafka`).
 * - Each broker gets its own temp work dir (server.properties, log4j.properties, data/, logs/)
 *   and two free loopback ports (client + controller) that stay the same across restart().
 * - The java process is tracked: it is SIGKILLed when the owning node process exits, and a
 *   detached watchdog kills it if the owner dies without running exit handlers (e.g. SIGKILL):
 *   owned-processes.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLevel } from 'kafkajs';
import { Kafka } from '../../src/infrastructure/messaging/kafka-client';
import { CommandError, findExecutable, formatCommand, javaExecutable, run, sleep, tailOfFile } from './commands';
import { freePort } from './free-port';
import { type BrokerLayout, layoutOf, log4jPropertiesText, randomClusterId, serverPropertiesText } from './kafka-broker-config';
import { defaultProjectRoot, ensureKafkaJars, type KafkaJarsOptions, LocalKafkaUnavailableError } from './kafka-jars';
import { installExitHooks, livePids, ownedWorkDirs, spawnWatchdog } from './owned-processes';

/** Why no broker of a test's own can start here: the tests that stop or reconfigure one ask first. */
export { localKafkaUnavailable } from './kafka-jars';

export interface LocalKafkaOptions extends KafkaJarsOptions {
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
  /** Extra / overriding server.properties entries. */
  properties?: Record<string, string | number | boolean>;
}

const DEFAULT_HEAP = '512m';
const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_TIMEOUT_MS = 30_000;

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
        const logTail = tailOfFile(layout.serverLog);
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
    livePids.add(pid);
    child.unref(); // never keeps the test process alive by itself; the exit hook kills it
    spawnWatchdog(process.pid, pid, layout.workDir);
    this.child = child;
    this.exited = exited.then(() => {
      livePids.delete(pid);
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
    const serverLog = tailOfFile(layout.serverLog);
    const stdout = tailOfFile(layout.stdoutLog);
    throw new Error(
      `local Kafka ${this.config.kafkaVersion} broker on ${this.brokers} did not start: ${why}` +
        (stdout ? `\n--- ${layout.stdoutLog} ---\n${stdout}` : '') +
        (serverLog ? `\n--- ${layout.serverLog} ---\n${serverLog}` : ''),
    );
  }
}
