/**
 * OpenAPI Generator, as the teams that consume this service generate their clients with it: its CLI jar
 * from Maven Central (`org.openapitools:openapi-generator-cli`, the pinned version below), fetched once with
 * `mvn dependency:copy` and cached under `.cache/openapi-generator/<version>/`, run with the machine's Java.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CommandError, findExecutable, javaExecutable, run } from './commands';

/** The generator the consumers' issue (#22) was reported with. Changing it fetches that version once. */
export const OPENAPI_GENERATOR_VERSION = '7.25.0';

const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, '.cache/openapi-generator');
const ARTIFACT = `org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}`;
const JAR = `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`;
const INSTALL = 'install Java 11+ and Maven (Debian: apt-get install openjdk-17-jdk-headless maven), or set JAVA_HOME';

/**
 * The generator's jar, from the cache or fetched into it: Maven runs offline first (it may be in ~/.m2),
 * online (Maven Central) when that fails. Without Java or Maven it throws, saying what to install.
 */
export async function ensureOpenApiGenerator(): Promise<string> {
  if (!javaExecutable()) throw new Error(`OpenAPI Generator needs java, found neither on PATH nor in $JAVA_HOME: ${INSTALL}`);
  const dir = path.join(CACHE, OPENAPI_GENERATOR_VERSION);
  const jar = path.join(dir, JAR);
  if (existsSync(path.join(dir, '.complete'))) return jar;

  const mvn = findExecutable('mvn');
  if (!mvn) throw new Error(`mvn not found on PATH (needed once to fetch ${ARTIFACT} into ${dir}): ${INSTALL}`);
  mkdirSync(CACHE, { recursive: true });
  // Fetched into a private directory, then renamed: a concurrent run never sees half a jar.
  const staging = mkdtempSync(path.join(CACHE, `${OPENAPI_GENERATOR_VERSION}.tmp-`));
  try {
    const args = ['-q', '-B', '-Dstyle.color=never', 'dependency:copy', `-Dartifact=${ARTIFACT}`, `-DoutputDirectory=${staging}`];
    try {
      await run(mvn, ['-o', ...args], { cwd: staging, timeoutMs: 120_000 });
    } catch {
      await run(mvn, args, { cwd: staging, timeoutMs: 600_000 });
    }
    if (!existsSync(path.join(staging, JAR))) throw new Error(`mvn dependency:copy of ${ARTIFACT} left no ${JAR} in ${staging}`);
    writeFileSync(path.join(staging, '.complete'), `${ARTIFACT}\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(path.join(dir, '.complete'))) throw error; // else another run finished first
    }
  } catch (error) {
    if (error instanceof CommandError) throw new Error(`fetching ${ARTIFACT} failed: ${error.command}: ${error.message}\n${error.output}`);
    throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return jar;
}

/**
 * `openapi-generator-cli generate` of one generator (`typescript-fetch`, `java`, …) from a document file
 * into `outputDir`; `options` are further CLI arguments (`--library native`, `--global-property …`).
 */
export async function generateClient(jar: string, spec: string, generator: string, outputDir: string, options: string[] = []): Promise<void> {
  try {
    await run(javaExecutable()!, ['-jar', jar, 'generate', '-i', spec, '-g', generator, '-o', outputDir, ...options], { timeoutMs: 120_000 });
  } catch (error) {
    if (error instanceof CommandError) throw new Error(`OpenAPI Generator (${generator}) failed: ${error.command}: ${error.message}\n${error.output}`);
    throw error;
  }
}
