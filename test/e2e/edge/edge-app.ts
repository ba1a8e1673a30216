import { SQLITE_SERVER, createTestDatabase } from '../../support/test-database';
import { startTestApp, type TestApp } from '../../support/test-app';

/** The whole service on a SQLite file of its own: the HTTP edge's bounds do not depend on the database. */
export async function startEdgeApp(env: Record<string, string> = {}, logs?: { write(line: string): void }): Promise<TestApp> {
  return startTestApp(env, {}, await createTestDatabase('edge', SQLITE_SERVER), logs);
}

/** Starts one edge app for the enclosing describe (beforeAll) and closes it after (afterAll); the getter gives it. */
export function useEdgeApp(env: Record<string, string> = {}, logs?: { write(line: string): void }): () => TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startEdgeApp(env, logs);
  });
  afterAll(() => app?.close());
  return () => app!;
}
