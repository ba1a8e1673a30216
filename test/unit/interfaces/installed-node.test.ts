import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { abiMismatch, readInstallRecord } from '../../../src/interfaces/installed-node';

describe('abiMismatch', () => {
  it('says which node installed the dependencies, which one runs, and what to do', () => {
    expect(abiMismatch({ node: 'v24.21.0', modules: '137' }, { node: 'v20.20.2', modules: '115' })).toBe(
      'The dependencies were installed with Node v24.21.0 (ABI 137), running on Node v20.20.2 (ABI 115): ' +
        'its native addons (better-sqlite3, @node-rs/argon2) were built for that node and crash this one. Run `make build` (or `npm ci`) again with this node, ' +
        'or run the service on Node v24.21.0 (after a make target: `source .cache/node.env`).',
    );
  });

  it('lets another release of the same ABI run', () => {
    expect(abiMismatch({ node: 'v24.1.0', modules: '137' }, { node: 'v24.21.0', modules: '137' })).toBeNull();
  });
});

describe('readInstallRecord', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'install-record-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the record of the nearest node_modules above', () => {
    mkdirSync(path.join(dir, 'node_modules'));
    mkdirSync(path.join(dir, 'dist', 'src', 'interfaces'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', '.install-node.json'), '{"node":"v24.21.0","modules":"137"}\n');
    expect(readInstallRecord(path.join(dir, 'dist', 'src', 'interfaces'))).toEqual({ node: 'v24.21.0', modules: '137' });
  });

  it('is null when that node_modules has no record (installed before it was written, or with --ignore-scripts)', () => {
    mkdirSync(path.join(dir, 'node_modules'));
    expect(readInstallRecord(dir)).toBeNull();
    writeFileSync(path.join(dir, 'node_modules', '.install-node.json'), 'not json');
    expect(readInstallRecord(dir)).toBeNull();
  });
});
