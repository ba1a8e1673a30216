import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, javaExecutable, run } from './commands';
import { freePort } from './free-port';

/**
 * OAuth client stacks nobody here wrote, each in its own process against a running service, given only
 * its issuer URL (and the audience): openid-client and express-oauth2-jwt-bearer (npm, Node), go-oidc
 * (Debian's golang-github-coreos-go-oidc-dev, built with Debian's Go) and a Spring Boot resource server
 * (Maven Central). The built programs are cached under .cache/oauth-clients, keyed by their sources' hash.
 */
const ROOT = path.resolve(__dirname, '../..');
const TOOLS = path.join(ROOT, 'tools/oauth-clients');
const CACHE = path.join(ROOT, '.cache/oauth-clients');
const GOPATH = '/usr/share/gocode';
const GO_OIDC = path.join(GOPATH, 'src/github.com/coreos/go-oidc');

export interface Verdict {
  verifier: string;
  token: string;
  accepted: boolean;
  subject?: string;
  error?: string;
}

export interface RunningServer {
  url: string;
  output: string[];
  stop(): Promise<void>;
}

function hashOf(dir: string): string {
  const hash = createHash('sha256');
  const files = (d: string): string[] =>
    readdirSync(d).flatMap((name) => {
      const file = path.join(d, name);
      return statSync(file).isDirectory() ? files(file) : [file];
    });
  for (const file of files(dir).sort()) hash.update(path.relative(dir, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 12);
}

/** Builds into a staging directory and renames it into place, so a half-built cache entry is never used. */
async function cached(name: string, source: string, artifact: string, build: (staging: string) => Promise<void>): Promise<string> {
  const dir = path.join(CACHE, `${name}-${hashOf(source)}`);
  if (existsSync(path.join(dir, '.complete'))) return path.join(dir, artifact);
  mkdirSync(CACHE, { recursive: true });
  const staging = mkdtempSync(`${dir}.tmp-`);
  try {
    await build(staging);
    writeFileSync(path.join(staging, '.complete'), '\n');
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(path.join(dir, '.complete'))) throw error; // else another run finished first
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return path.join(dir, artifact);
}

/** Builds tools/oauth-clients/<program> with Debian's Go in GOPATH mode (no module proxy), once per source hash. */
function goProgram(program: string, binary: string): Promise<string> {
  const go = findExecutable('go');
  if (!go) throw new Error(`${program} needs Debian’s golang-go (scripts/ensure-go-oidc.sh)`);
  return cached(program, path.join(TOOLS, program), binary, async (staging) => {
    const env = { GOPATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: path.join(CACHE, 'go-build'), HOME: process.env.HOME ?? ROOT };
    await jsonLinesOf(go, ['build', '-o', path.join(staging, binary), '.'], { cwd: path.join(TOOLS, program), env, timeoutMs: 600_000, lines: 'any' });
  });
}

/** Packages tools/oauth-clients/<name> (a Spring Boot app) with mvn, offline first, once per source hash. */
function springJar(name: string, what: string): Promise<string> {
  if (!javaExecutable()) throw new Error(`${what} needs Java 17+: apt-get install openjdk-17-jdk-headless maven`);
  const mvn = findExecutable('mvn');
  if (!mvn) throw new Error(`mvn not found on PATH (needed once to build tools/oauth-clients/${name}): apt-get install maven`);
  const source = path.join(TOOLS, name);
  return cached(name, source, `${name}.jar`, async (staging) => {
    const work = path.join(staging, 'project');
    cpSync(source, work, { recursive: true });
    const args = ['-q', '-B', '-Dstyle.color=never', 'package'];
    try {
      await run(mvn, ['-o', ...args], { cwd: work, timeoutMs: 300_000 });
    } catch {
      await run(mvn, args, { cwd: work, timeoutMs: 900_000 });
    }
    renameSync(path.join(work, 'target', `${name}.jar`), path.join(staging, `${name}.jar`));
    rmSync(work, { recursive: true, force: true });
  });
}

/**
 * Runs a program of tools/oauth-clients (PATH its only inherited variable), `stdin` on its standard input, killed
 * after `timeoutMs`; resolves with the JSON lines it printed, and rejects when it exits non-zero or, unless
 * `lines: 'any'`, prints none.
 */
function jsonLinesOf(
  file: string,
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string; timeoutMs: number; lines?: 'any' },
): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd ?? ROOT, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').filter((line) => line.startsWith('{'));
      if (code !== 0 || (lines.length === 0 && options.lines !== 'any')) {
        return reject(new Error(`${path.basename(args[0] && file === process.execPath ? args[0] : file)} exited with ${code}:\n${(stdout + stderr).slice(-3000)}`));
      }
      resolve(lines.map((line) => JSON.parse(line) as Record<string, unknown>));
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** The go-oidc verifier (tools/oauth-clients/go-oidc), built once with Debian's Go and go-oidc (GOPATH mode, no module proxy). */
export async function ensureGoOidcVerifier(): Promise<string> {
  if (!existsSync(GO_OIDC)) {
    throw new Error('go-oidc needs Debian’s golang-go and golang-github-coreos-go-oidc-dev: apt-get install golang-go golang-github-coreos-go-oidc-dev (scripts/ensure-go-oidc.sh)');
  }
  return goProgram('go-oidc', 'go-oidc-verify');
}

/** The Spring Boot resource server (tools/oauth-clients/spring-resource-server), built once with mvn (offline first). */
export function ensureSpringResourceServer(): Promise<string> {
  return springJar('spring-resource-server', 'the Spring Boot resource server');
}

/** Runs the go-oidc verifier against `issuer`, the tokens on stdin (never on the command line, where `ps` shows them). */
export async function verifyWithGoOidc(binary: string, issuer: string, audience: string, tokens: Record<string, string>): Promise<Verdict[]> {
  const stdin = Object.entries(tokens).map(([label, token]) => `${label}\t${token}\n`).join('');
  return (await jsonLinesOf(binary, [issuer, audience], { stdin, timeoutMs: 60_000 })) as Verdict[];
}

/** Runs a Node program of tools/oauth-clients in its own process, `stdin` on its standard input; resolves with the first JSON line it prints. */
async function runNodeTool(args: string[], stdin: string): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return (await jsonLinesOf(process.execPath, args, { stdin, timeoutMs: 120_000 }))[0]!;
}

/** openid-client in its own Node process: discovery() from the issuer, then the refresh grant at the discovered token endpoint. */
export function refreshWithOpenIdClient(issuer: string, clientId: string, algorithm: 'oidc' | 'oauth2', refreshToken: string): Promise<Record<string, unknown>> {
  return runNodeTool([path.join(TOOLS, 'node/openid-client-refresh.mjs'), issuer, clientId, algorithm], refreshToken);
}

/** Starts a server process and resolves once a line of its output matches `ready` (whose first group, if any, is the port). */
async function startServer(name: string, file: string, args: string[], env: Record<string, string>, ready: RegExp, port?: number): Promise<RunningServer> {
  const child: ChildProcess = spawn(file, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const listening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 120 s:\n${output.join('').slice(-3000)}`)), 120_000);
    const collect = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = ready.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(port ?? Number(match[1]));
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready:\n${output.join('').slice(-3000)}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url: `http://127.0.0.1:${listening}`, output, stop };
}

/** express-oauth2-jwt-bearer's auth({ issuerBaseURL, audience }) in a tiny express app of its own. */
export function startExpressResourceServer(issuer: string, audience: string): Promise<RunningServer> {
  return startServer('express-oauth2-jwt-bearer', process.execPath, [path.join(TOOLS, 'node/express-resource-server.mjs')], { ISSUER_BASE_URL: issuer, AUDIENCE: audience }, /listening (\d+)/);
}

/** The Spring Boot resource server with only issuer-uri and audiences set, on a free port. */
export async function startSpringResourceServer(jar: string, issuer: string, audience: string): Promise<RunningServer> {
  const port = await freePort();
  return startServer(
    'spring-resource-server',
    javaExecutable()!,
    [
      '-XX:TieredStopAtLevel=1',
      '-Xss512k',
      '-jar',
      jar,
      `--server.port=${port}`,
      '--server.address=127.0.0.1',
      `--spring.security.oauth2.resourceserver.jwt.issuer-uri=${issuer}`,
      `--spring.security.oauth2.resourceserver.jwt.audiences=${audience}`,
      '--spring.main.banner-mode=off',
    ],
    {},
    /Started ResourceServer/,
    port,
  );
}

/**
 * openid-client in its own Node process: discovery() from the issuer, then tokenIntrospection and tokenRevocation at
 * the discovered endpoints, with a service account's secret (and revocation by a public client). The secrets and
 * tokens go on stdin.
 */
export function manageTokensWithOpenIdClient(
  issuer: string,
  clientId: string,
  input: { secret: string; accessToken: string; refreshToken: string; otherRefreshToken: string },
): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return runNodeTool([path.join(TOOLS, 'node/openid-client-token-management.mjs'), issuer, clientId], JSON.stringify(input));
}

/**
 * openid-client in its own Node process: discovery() from the issuer, then clientCredentialsGrant with a service
 * account's secret (ClientSecretBasic, ClientSecretPost) and with its registered key (PrivateKeyJwt), each token used
 * on GET /v1/users (#21); with `resource`, a token for that resource server too (RFC 8707). The secret and the private
 * key go on stdin.
 */
export function clientCredentialsWithOpenIdClient(
  issuer: string,
  clientId: string,
  input: { secret: string; privateJwk: Record<string, unknown>; resource?: string },
): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return runNodeTool([path.join(TOOLS, 'node/openid-client-credentials.mjs'), issuer, clientId], JSON.stringify(input));
}

/**
 * The Go client credentials program (tools/oauth-clients/go-client-credentials): golang.org/x/oauth2/clientcredentials
 * (Debian's golang-golang-x-oauth2-dev, which go-oidc's package depends on) at the token endpoint go-oidc discovers,
 * built once as the go-oidc verifier is (#21).
 */
export async function ensureGoClientCredentials(): Promise<string> {
  if (!existsSync(path.join(GOPATH, 'src/golang.org/x/oauth2/clientcredentials')) || !existsSync(GO_OIDC)) {
    throw new Error('the Go client needs Debian’s golang-go, golang-github-coreos-go-oidc-dev and golang-golang-x-oauth2-dev (scripts/ensure-go-oidc.sh)');
  }
  return goProgram('go-client-credentials', 'go-client-credentials');
}

/** Runs the Go client credentials program: one JSON line per attempt (header, params, wrong-secret). The secret goes on stdin. */
export function clientCredentialsWithGo(binary: string, issuer: string, clientId: string, secret: string): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return jsonLinesOf(binary, [issuer, clientId], { stdin: secret, timeoutMs: 60_000 });
}

/** The Spring Boot OAuth2 client (tools/oauth-clients/spring-client-credentials), built once with mvn (offline first) (#21). */
export function ensureSpringClientCredentials(): Promise<string> {
  return springJar('spring-client-credentials', 'the Spring Boot OAuth2 client');
}

/**
 * Runs the Spring Boot OAuth2 client against `issuer`: one JSON line per registration (basic, post, wrong-secret). The
 * client id and secret go in its environment (never on the command line, where `ps` shows them).
 */
export function clientCredentialsWithSpring(jar: string, issuer: string, clientId: string, secret: string): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return jsonLinesOf(javaExecutable()!, ['-XX:TieredStopAtLevel=1', '-Xss512k', '-jar', jar], {
    env: { ISSUER: issuer, CLIENT_ID: clientId, CLIENT_SECRET: secret },
    timeoutMs: 120_000,
  });
}
