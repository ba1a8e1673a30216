/**
 * The jars of the local Kafka broker, from Maven Central: `mvn dependency:copy-dependencies` on
 * tools/kafka/pom.xml, cached under `<project>/.cache/kafka/<kafka version>-<pom hash>/libs` (reused as is
 * when present).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CommandError, findExecutable, javaExecutable, run } from './commands';

const DEFAULT_MAVEN_TIMEOUT_MS = 600_000;

export interface KafkaJarsOptions {
  /** Project root holding tools/kafka/pom.xml. Default: two levels above this file. */
  projectRoot?: string;
  /** Where the jars are cached. Default: `<projectRoot>/.cache/kafka`. */
  cacheDir?: string;
  /** How long the Maven download may take. Default: 600 000 ms. */
  mavenTimeoutMs?: number;
}

/** Thrown when the tools needed to run a local broker are missing or fetching the jars failed. */
export class LocalKafkaUnavailableError extends Error {
  override readonly name = 'LocalKafkaUnavailableError';
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

export interface KafkaJars {
  libsDir: string;
  kafkaVersion: string;
  /** True when this call ran Maven (false: reused the cache). */
  downloaded: boolean;
}

const jarsInFlight = new Map<string, Promise<KafkaJars>>();

export function defaultProjectRoot(): string {
  return resolve(__dirname, '..', '..');
}

/**
 * Makes sure the broker's jars are in the cache, running Maven only when they are not.
 * The cache key includes a hash of the pom, so editing the pom fetches a fresh set.
 */
export function ensureKafkaJars(opts: KafkaJarsOptions = {}): Promise<KafkaJars> {
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

async function fetchJars(projectRoot: string, pomPath: string, opts: Omit<KafkaJarsOptions, 'projectRoot'>): Promise<KafkaJars> {
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
