import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, javaExecutable } from './commands';

/**
 * The verifiers other teams use, run as separate processes against a running service:
 * tools/verifiers/java (nimbus-jose-jwt and Spring Security, from Maven Central) and
 * tools/verifiers/node (jose). Each prints one JSON line per token and verifier.
 */
export interface Verdict {
  verifier: string;
  token: string;
  accepted: boolean;
  subject?: string;
  error?: string;
}

const ROOT = path.resolve(__dirname, '../..');
const JAVA_PROJECT = path.join(ROOT, 'tools/verifiers/java');
const NODE_VERIFIER = path.join(ROOT, 'tools/verifiers/node/verify-tokens.mjs');
const CACHE = path.join(ROOT, '.cache/token-verifiers');
const INSTALL = 'install Java 17+ and Maven (Debian: apt-get install openjdk-17-jdk-headless maven), or set JAVA_HOME';

/**
 * The built JVM verifiers (a jar and its lib/), cached under .cache/token-verifiers keyed by the hash
 * of the pom and the sources. Maven runs offline first (everything may be in ~/.m2), online when that
 * fails. Without Java or Maven it throws, saying what to install: no test here is skipped for it.
 */
export async function ensureJavaVerifiers(): Promise<string> {
  const java = javaExecutable();
  if (!java) throw new Error(`the JVM token verifiers need java, found neither on PATH nor in $JAVA_HOME: ${INSTALL}`);
  const key = projectHash();
  const jar = path.join(CACHE, key, 'token-verifiers.jar');
  if (existsSync(path.join(CACHE, key, '.complete'))) return jar;

  const mvn = findExecutable('mvn');
  if (!mvn) throw new Error(`mvn not found on PATH (needed once to build ${JAVA_PROJECT}): ${INSTALL}`);
  mkdirSync(CACHE, { recursive: true });
  const staging = mkdtempSync(path.join(CACHE, `${key}.tmp-`));
  try {
    cpSync(path.join(JAVA_PROJECT, 'pom.xml'), path.join(staging, 'pom.xml'));
    cpSync(path.join(JAVA_PROJECT, 'src'), path.join(staging, 'src'), { recursive: true });
    const args = ['-q', '-B', '-Dstyle.color=never', 'package'];
    try {
      await run(mvn, ['-o', ...args], { cwd: staging, timeoutMs: 300_000 });
    } catch {
      await run(mvn, args, { cwd: staging, timeoutMs: 600_000 });
    }
    writeFileSync(path.join(staging, 'target', '.complete'), `${key}\n`);
    try {
      renameSync(path.join(staging, 'target'), path.join(CACHE, key));
    } catch (error) {
      if (!existsSync(path.join(CACHE, key, '.complete'))) throw error; // else another run finished first
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return jar;
}

/** Runs the JVM verifiers: nimbus, spring (jwsAlgorithms = algorithms), spring-discover, spring-default. */
export async function verifyWithJava(
  jar: string,
  service: { jwksUrl: string; issuer: string; audience: string },
  algorithms: readonly string[],
  tokens: Record<string, string>,
): Promise<Verdict[]> {
  const args = ['-jar', jar, service.jwksUrl, service.issuer, service.audience, algorithms.join(',')];
  return verdicts(await feed(javaExecutable()!, args, tokens));
}

/** Runs `jose` in its own Node process, as a Node service would use it. */
export async function verifyWithJose(service: { jwksUrl: string; issuer: string; audience: string }, tokens: Record<string, string>): Promise<Verdict[]> {
  return verdicts(await feed(process.execPath, [NODE_VERIFIER, service.jwksUrl, service.issuer, service.audience], tokens));
}

function projectHash(): string {
  const hash = createHash('sha256');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      return statSync(file).isDirectory() ? files(file) : [file];
    });
  for (const file of [path.join(JAVA_PROJECT, 'pom.xml'), ...files(path.join(JAVA_PROJECT, 'src')).sort()]) {
    hash.update(path.relative(JAVA_PROJECT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

function verdicts(stdout: string): Verdict[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Verdict);
}

/** Runs a verifier with the tokens on stdin (never on the command line, where `ps` shows them). */
function feed(file: string, args: string[], tokens: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(file)} ${path.basename(args[1] ?? '')} exited with ${code}:\n${stderr.slice(-3000)}`));
    });
    child.stdin.end(Object.entries(tokens).map(([label, token]) => `${label}\t${token}\n`).join(''));
  });
}

function run(file: string, args: string[], opts: { cwd: string; timeoutMs: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: opts.cwd, timeout: opts.timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed in ${opts.cwd}: ${error.message}\n${`${stdout}\n${stderr}`.slice(-3000)}`));
      else resolve();
    });
  });
}
