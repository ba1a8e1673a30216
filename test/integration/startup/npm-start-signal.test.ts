/**
 * `npm start`, as a supervisor (systemd, supervisord, a shell's `kill`) runs it: a SIGTERM to npm reaches the api,
 * which shuts down as README's "Graceful shutdown" says. npm passes the signal to the shell of its script; without
 * `exec` there, the shell died and the api kept serving, an orphan holding its port (review K, 2026-12-06).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../../support/api-process';
import { freePort } from '../../support/free-port';

jest.setTimeout(60_000);

it('stops the api when npm start is sent SIGTERM: it shuts down, exits, and frees its port', async () => {
  ensureBuilt();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-npm-start-'));
  // The npm on PATH (the machine's, or the one beside this node), run by this node as make runs it.
  const child = spawn('npm', ['start'], {
    cwd: path.resolve(__dirname, '../../..'),
    env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? os.tmpdir(), PORT: String(port), METRICS_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own, so whatever it leaves behind can be stopped with it (below).
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const npmExited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (let waited = 0; !output.includes('access-control ready'); waited += 200) {
      if (waited > 40_000 || child.exitCode !== null) throw new Error(`npm start did not start:\n${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    child.kill('SIGTERM');
    await npmExited;
    // The api's own shutdown, then nothing left on its port.
    for (let waited = 0; !output.includes('"msg":"stopped"') && waited < 15_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(output).toContain('"msg":"shutting down"');
    expect(output).toContain('"msg":"stopped"');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL'); // npm's group: an api it left behind too
    } catch {
      // the group is gone: nothing left
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});
