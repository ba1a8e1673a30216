import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** One file of the built console, kept in memory with its gzip form (a few files, read once at start). */
export interface ConsoleFile {
  body: Buffer;
  gzipped: Buffer;
  type: string;
}

/** The built console (`npm run build` writes it to dist/console): its page, and its hashed assets by name. */
export interface ConsoleBundle {
  index: ConsoleFile | null;
  assets: ReadonlyMap<string, ConsoleFile>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/**
 * dist/console of the installation this code runs from: the directory holding package.json, found upwards
 * (the repository when run from the sources, /app in the image), whichever of src/ or dist/src/ runs.
 */
export function consoleBundleDirectory(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(from, 'console');
    dir = parent;
  }
  return path.join(dir, 'dist', 'console');
}

/** Reads the bundle; a tree never built (a unit test of the app) gives an empty one, which /console says in words. */
export function loadConsoleBundle(dir: string): ConsoleBundle {
  const file = (name: string, type: string): ConsoleFile => {
    const body = readFileSync(path.join(dir, name));
    return { body, gzipped: gzipSync(body, { level: 9 }), type };
  };
  const indexFile = path.join(dir, 'index.html');
  const assetsDir = path.join(dir, 'assets');
  const assets = new Map<string, ConsoleFile>();
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      const type = TYPES[path.extname(name)];
      if (type) assets.set(name, file(path.join('assets', name), type));
    }
  }
  return { index: existsSync(indexFile) ? file('index.html', 'text/html; charset=utf-8') : null, assets };
}
