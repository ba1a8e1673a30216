/**
 * Process tracking for the local services the tests start: no process started here may outlive the node
 * process that started it, nor leave its work dir behind. Killed at exit (and on a signal nobody else
 * handles), and, for an owner killed with SIGKILL, by a detached watchdog.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

/** The pids to SIGKILL at exit: add a child's as it starts, delete it once it exited. */
export const livePids = new Set<number>();
/** The work dirs to remove at exit: delete one once removed. */
export const ownedWorkDirs = new Set<string>();
let exitHooksInstalled = false;

function killTrackedSync(): void {
  for (const pid of livePids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  livePids.clear();
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

export function installExitHooks(): void {
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
export function spawnWatchdog(ownerPid: number, javaPid: number, workDir: string): void {
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
