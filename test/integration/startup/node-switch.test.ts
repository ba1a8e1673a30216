/**
 * Switching nodes between install and start.
 *
 * - `.cache/node.env`, written by a make target from a shell whose node was already a supported one,
 *   must still put that node first on PATH: sourced in a shell whose node is another (an old Node 20),
 *   `npm start` would otherwise load native addons built for one ABI into another and die of a
 *   segmentation fault.
 * - Each built entry point (api, mailer, cli, migrate) compares its node's ABI with the one the
 *   dependencies were installed with (node_modules/.install-node.json, written by npm ci's
 *   postinstall) before it loads any addon, and stops with a message and exit 1.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, runUntilExit } from '../../support/api-process';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../..');
const SUPPORTED = ['22', '24'].includes(process.versions.node.split('.')[0]!);

describe('.cache/node.env written where the machine node is a supported one', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'node-env-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  (SUPPORTED ? it : it.skip)('puts that node first on PATH, so a shell whose node is another runs it (and sets no npm nodedir)', () => {
    // The machine: its node is the one running this test (a 22 or a 24).
    const machineBin = path.join(dir, 'machine-bin');
    mkdirSync(machineBin);
    symlinkSync(process.execPath, path.join(machineBin, 'node'));
    const envFile = path.join(dir, 'node.env');
    execFileSync('bash', [path.join(ROOT, 'scripts/ensure-node.sh'), envFile], {
      cwd: ROOT,
      env: { PATH: `${machineBin}:/usr/bin:/bin`, HOME: process.env.HOME ?? '/tmp', NODE_CACHE_DIR: path.join(dir, 'cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const written = readFileSync(envFile, 'utf8');
    expect(written).toMatch(/^export PATH="/m);
    expect(written).not.toMatch(/npm_config_nodedir/);

    // Later, a shell whose node is another one sources it.
    const otherBin = path.join(dir, 'other-bin');
    mkdirSync(otherBin);
    writeFileSync(path.join(otherBin, 'node'), '#!/bin/sh\necho "the other node"\nexit 3\n', { mode: 0o755 });
    const ran = execFileSync('bash', ['-c', `source "${envFile}" && node -p 'process.execPath + " " + process.versions.modules'`], {
      env: { PATH: `${otherBin}:/usr/bin:/bin` },
      encoding: 'utf8',
    }).trim();
    const [execPath, modules] = ran.split(' ');
    expect(realpathSync(execPath!)).toBe(realpathSync(process.execPath));
    expect(modules).toBe(process.versions.modules);
  });
});

describe('the built entry points on dependencies installed for another node', () => {
  let copy: string;
  const record = (node: string, modules: string) =>
    writeFileSync(path.join(copy, 'node_modules', '.install-node.json'), `${JSON.stringify({ node, modules })}\n`);

  beforeAll(() => {
    ensureBuilt();
    // A copy of dist/ with a node_modules of its own holding only the record; the packages still
    // resolve from the project's node_modules above it.
    mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
    copy = mkdtempSync(path.join(ROOT, '.cache', 'node-switch-'));
    cpSync(path.join(ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });
    mkdirSync(path.join(copy, 'node_modules'));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  const entries: [string, string[]][] = [
    ['dist/src/interfaces/http/main.js', []],
    ['dist/src/interfaces/mailer/main.js', []],
    ['dist/src/interfaces/cli/main.js', ['--help']],
    ['dist/src/interfaces/cli/migrate.js', []],
  ];

  it.each(entries)('%s exits 1 with what to do instead of loading the addons', async (entry, args) => {
    record('v99.0.0', '1');
    const result = await runUntilExit({ KAFKA_BROKERS: '127.0.0.1:1', LOG_LEVEL: 'info' }, { script: path.join(copy, entry), args, timeoutMs: 30_000 });
    expect(result.timedOut).toBe(false);
    expect(result.output.trim()).toBe(
      `The dependencies were installed with Node v99.0.0 (ABI 1), running on Node ${process.version} (ABI ${process.versions.modules}): ` +
        'its native addons (better-sqlite3, @node-rs/argon2) were built for that node and crash this one. Run `make build` (or `npm ci`) again with this node, ' +
        'or run the service on Node v99.0.0 (after a make target: `source .cache/node.env`).',
    );
    expect(result.code).toBe(1);
  });

  it('starts as usual when the ABI is the one they were installed with, whatever the node version', async () => {
    record('v0.0.1', process.versions.modules);
    const result = await runUntilExit({}, { script: path.join(copy, 'dist/src/interfaces/cli/main.js'), args: ['--help'], timeoutMs: 30_000 });
    expect(result.output).toContain('usage:');
    expect(result.code).toBe(0);
  });

  it('npm ci writes the record (postinstall), with the node that ran it', () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.postinstall).toContain('.install-node.json');
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'postinstall-'));
    try {
      mkdirSync(path.join(scratch, 'node_modules'));
      execFileSync('bash', ['-c', scripts.postinstall!], { cwd: scratch, env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` } });
      expect(JSON.parse(readFileSync(path.join(scratch, 'node_modules', '.install-node.json'), 'utf8'))).toEqual({
        node: process.version,
        modules: process.versions.modules,
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
