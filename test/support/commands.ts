/**
 * Running the command-line tools the local services need (java, mvn, and their kin), for the test support
 * that provisions them: found on PATH, run with a timeout, failures told with the command and its output's tail.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** How many lines of a failed command's output (or of a log) an error carries. */
const LOG_TAIL_LINES = 40;

export interface ExecResult {
  stdout: string;
  stderr: string;
}

export class CommandError extends Error {
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

export function formatCommand(file: string, args: readonly string[]): string {
  return [file, ...args].map(quoteArg).join(' ');
}

export function run(file: string, args: readonly string[], opts: { cwd?: string; timeoutMs: number }): Promise<ExecResult> {
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

export function tail(text: string, lines: number): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').trimEnd().split('\n').slice(-lines).join('\n').trim();
}

export function tailOfFile(path: string, lines = LOG_TAIL_LINES): string {
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

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A failed command told whole (the command, why, its output's tail); any other error by its message. */
export function describeFailure(error: unknown): string {
  if (error instanceof CommandError) return `${error.command}: ${error.message}${error.output ? `\n${error.output}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
