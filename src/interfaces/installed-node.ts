import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The node the dependencies were installed with, as package.json's `postinstall` records it in
 * node_modules/.install-node.json on every `npm ci` / `npm install` (so also `make install`).
 * Native addons (better-sqlite3's above all) are built for one node ABI (`process.versions.modules`):
 * loaded into another, the process dies with a segmentation fault rather than an error. So each
 * process entry compares first (installed-node-guard.ts) and stops with what to do instead.
 */
export const INSTALL_RECORD = '.install-node.json';

export interface NodeBuild {
  /** process.version, e.g. "v24.21.0" */
  node: string;
  /** process.versions.modules, the ABI native addons are built for, e.g. "137" */
  modules: string;
}

/** The message for dependencies installed with `installed` run on `running`; null when their ABIs agree. */
export function abiMismatch(installed: NodeBuild, running: NodeBuild): string | null {
  if (String(installed.modules) === String(running.modules)) return null;
  return (
    `The dependencies were installed with Node ${installed.node} (ABI ${installed.modules}), running on Node ${running.node} (ABI ${running.modules}): ` +
    'its native addons (better-sqlite3, @node-rs/argon2) were built for that node and crash this one. Run `make build` (or `npm ci`) again with this node, ' +
    `or run the service on Node ${installed.node} (after a make target: \`source .cache/node.env\`).`
  );
}

/** The record in the nearest node_modules above `from`; null when there is none (installed without it, or --ignore-scripts). */
export function readInstallRecord(from: string = __dirname): NodeBuild | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const modules = path.join(dir, 'node_modules');
    if (existsSync(modules)) {
      try {
        const record = JSON.parse(readFileSync(path.join(modules, INSTALL_RECORD), 'utf8')) as Partial<NodeBuild>;
        return typeof record.node === 'string' && record.modules !== undefined ? { node: record.node, modules: String(record.modules) } : null;
      } catch {
        return null;
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** Stops the process (exit 1, the message on stderr) when the dependencies were installed for another ABI. */
export function exitOnAbiMismatch(): void {
  const installed = readInstallRecord();
  if (!installed) return;
  const problem = abiMismatch(installed, { node: process.version, modules: process.versions.modules });
  if (problem === null) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
