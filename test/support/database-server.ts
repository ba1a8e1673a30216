/**
 * Gives the integration tests a real MySQL-compatible server, in this order of preference:
 *  1. DATABASE_URL from the environment (mysql://… or mariadb://…), used as is;
 *  2. a container runtime that answers → a MariaDB 10.11 container (testcontainers);
 *  3. a MariaDB or MySQL on 127.0.0.1:3306 (root, no password), started first if it is
 *     installed and stopped;
 *  4. otherwise an Error that says what is missing.
 * Each test file then creates a database of its own on that server (see test-database.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { probeContainerRuntime } from './container-runtime';
import { startContainer } from './container-start';

export interface DatabaseServerHandle {
  /** URL of an admin connection to a database that exists (its path names it). */
  url: string;
  source: 'env' | 'testcontainers' | 'local';
  stop(): Promise<void>;
}

const LOCAL_HOST = '127.0.0.1';
const LOCAL_PORT = 3306;
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'];

export async function provideDatabaseServer(log: (m: string) => void = console.log): Promise<DatabaseServerHandle> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    if (!/^(mysql|mariadb):\/\//.test(fromEnv)) throw new Error('DATABASE_URL for the tests must be mysql://… or mariadb://…');
    return { url: fromEnv, source: 'env', stop: async () => undefined };
  }

  const runtimeProblem = await probeContainerRuntime();
  if (runtimeProblem === undefined) {
    log('database: starting mariadb:10.11 with testcontainers');
    const { MariaDbContainer } = await import('@testcontainers/mariadb');
    const container = await startContainer(() => new MariaDbContainer('mariadb:10.11').withRootPassword('test'));
    return {
      url: `mariadb://root:test@${container.getHost()}:${container.getPort()}/${container.getDatabase()}`,
      source: 'testcontainers',
      stop: async () => {
        await container.stop();
      },
    };
  }

  if (!(await reachable(LOCAL_HOST, LOCAL_PORT))) {
    const daemon = MARIADBD.find((path) => existsSync(path));
    if (!daemon) {
      throw new Error(
        'No MySQL-compatible database for the tests: DATABASE_URL is not set, no container runtime answers ' +
          `(${runtimeProblem}), nothing listens on ${LOCAL_HOST}:${LOCAL_PORT} and no mariadbd/mysqld is installed. ` +
          'Set DATABASE_URL=mysql://user:pass@host:port/db, start Docker, or install MariaDB 10.11+ (apt-get install mariadb-server).',
      );
    }
    log(`database: starting the installed ${daemon}`);
    try {
      execFileSync('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', daemon], { stdio: 'ignore' });
    } catch (error) {
      throw new Error(`could not start ${daemon}: ${(error as Error).message}`);
    }
    const deadline = Date.now() + 30_000;
    while (!(await reachable(LOCAL_HOST, LOCAL_PORT))) {
      if (Date.now() > deadline) throw new Error(`${daemon} was started but does not listen on ${LOCAL_HOST}:${LOCAL_PORT} after 30 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  log(`database: using the local server on ${LOCAL_HOST}:${LOCAL_PORT}`);
  return { url: `mariadb://root@${LOCAL_HOST}:${LOCAL_PORT}/test`, source: 'local', stop: async () => undefined };
}

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
