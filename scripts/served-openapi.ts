import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/infrastructure/config/config';
import { buildContainer } from '../src/infrastructure/container';
import { createLogger } from '../src/infrastructure/logging/logger';
import { buildHttpApp } from '../src/interfaces/http/app';

/**
 * The OpenAPI document exactly as the server serves it: the app is built as `npm start` builds it
 * (its database never connected), listening on a free loopback port, and asked for GET /docs/json:
 * what is linted is the bytes a client gets.
 */
export async function servedOpenApiDocument(env: Record<string, string> = {}): Promise<string> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-openapi-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const container = buildContainer(config, createLogger('silent'));
  const app = await buildHttpApp(container);
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${base}/docs/json`);
    const body = await response.text();
    if (response.status !== 200) throw new Error(`GET /docs/json answered ${response.status}: ${body}`);
    return body;
  } finally {
    await app.close();
    await container.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
