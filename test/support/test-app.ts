import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Role } from '../../src/domain/roles/role';
import { Email } from '../../src/domain/users/email';
import { User } from '../../src/domain/users/user';
import { Username } from '../../src/domain/users/username';
import { roleNameKey } from '../../src/domain/roles/role-name';
import { RoleSchema } from '../../src/infrastructure/persistence/typeorm/records';
import { loadConfig } from '../../src/infrastructure/config/config';
import { createLogger } from '../../src/infrastructure/logging/logger';
import type { Overrides } from '../../src/infrastructure/container';
import { type RunningApi, startApi } from '../../src/interfaces/http/server';
import { type OpenApiDocument, OpenApiContract } from './openapi-contract';
import { recordCoverage } from './openapi-coverage';
import { createTestDatabase, type TestDatabase } from './test-database';

export const ADMIN = { username: 'admin', password: 'admin-password-123', email: 'admin@example.com', name: 'Ada Admin' };

/** The whole service, listening on a free port, on a database of its own on the real server. */
export interface TestApp {
  api: RunningApi;
  url: string;
  database: TestDatabase;
  /** The OpenAPI document this app serves: every answer `request` gets is checked against it. */
  contract: OpenApiContract;
  /** Fails (throws) when the answer differs from the document: status, media type or body. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  signIn(username?: string, password?: string): Promise<string>;
  /** Adds a joined user with the given role directly, as a fixture. */
  addJoinedUser(input: { username: string; password: string; email: string; role: Role }): Promise<User>;
  /**
   * Adds a custom role directly, as an operator editing the tables would (no revision moved, no event),
   * holding the named permissions, or every one. Through TypeORM, so its dates suit every database.
   */
  addRole(role: { id: string; name: string; permissions: readonly string[] | 'all' }): Promise<void>;
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function startTestApp(
  env: Record<string, string> = {},
  overrides: Overrides = {},
  existing?: TestDatabase,
  /** Where the log lines go (with LOG_LEVEL in `env`), for tests that read them. */
  logs?: { write(line: string): void },
): Promise<TestApp> {
  const database = existing ?? (await createTestDatabase());
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-app-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_NAME: ADMIN.name,
    LOG_LEVEL: 'silent',
    // The rate limits have tests of their own (test/e2e/security); elsewhere a test's bursts are not abuse.
    ADDRESS_RATE_LIMIT: '0',
    INVITE_RATE_LIMIT: '0',
    ...env,
  });
  const api = await startApi({ config, logger: createLogger(config.logLevel, logs), overrides });
  const url = api.url;
  const contract = new OpenApiContract(api.app.swagger() as unknown as OpenApiDocument);

  const request = async (method: string, target: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${url}${target}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    contract.assert({ method, target, status: response.status, contentType: response.headers.get('content-type'), body: text });
    return { status: response.status, headers: response.headers, text, body: parsed };
  };

  return {
    api,
    url,
    database,
    contract,
    request,
    async signIn(username = ADMIN.username, password = ADMIN.password) {
      const response = await request('POST', '/v1/auth/signin', { json: { username, password } });
      if (response.status !== 200) throw new Error(`sign-in as ${username} failed: ${response.status} ${response.text}`);
      return response.body.accessToken as string;
    },
    async addJoinedUser({ username, password, email, role }) {
      const { passwordHasher, idGenerator, clock, userRepository } = api.container.cradle;
      const user = User.createJoined({
        id: idGenerator.next(),
        email: Email.parse(email),
        name: username,
        username: Username.parse(username),
        passwordHash: await passwordHasher.hash(password),
        role,
        now: clock.now(),
      });
      await userRepository.add(user);
      return user;
    },
    async addRole({ id, name, permissions }) {
      const { dataSource, clock } = api.container.cradle;
      await dataSource.getRepository(RoleSchema).insert({ id, name, nameKey: roleNameKey(name), builtIn: 0, version: 1, createdAt: clock.now() });
      const held = permissions === 'all' ? '' : ` WHERE name IN (${permissions.map(() => '?').join(', ') || 'NULL'})`;
      await dataSource.query(`INSERT INTO role_permissions (role_id, permission_id) SELECT ?, id FROM permissions${held}`, [
        id,
        ...(permissions === 'all' ? [] : permissions),
      ]);
    },
    async close() {
      recordCoverage(contract);
      await api.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
