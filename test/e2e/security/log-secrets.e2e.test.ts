/**
 * A query that fails inside a request is logged as a 500, and the log line must not carry what
 * TypeORM hangs on its QueryFailedError (the SQL, its parameters, the driver's error): e-mails,
 * password hashes and token hashes would land in the logs. The failure is provoked for real: the
 * outbox table is dropped under a running service, then an invite's INSERT into it fails.
 */
import { startTestApp, type TestApp } from '../../support/test-app';
import { connectTo, createTestDatabase, type TestDatabase } from '../../support/test-database';

let app: TestApp;
let database: TestDatabase;
const lines: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase('ac_logs');
  app = await startTestApp({ LOG_LEVEL: 'info' }, {}, database, { write: (line) => lines.push(line) });
});

afterAll(async () => {
  await app?.close();
  await database?.drop();
});

it('logs a failed query as its kind and code, with no SQL, parameters or quoted values', async () => {
  const token = await app.signIn();
  const connection = await connectTo(database.url);
  await connection.query('DROP TABLE outbox_events');
  await connection.end();

  const email = 'secret.person@example.com';
  const response = await app.request('POST', '/v1/users/invite', { token, json: { email, name: 'Secret Person' } });
  expect(response.status).toBe(500);
  expect(JSON.stringify(response.body)).not.toContain('outbox_events');

  const failure = lines
    .map((line) => JSON.parse(line) as { msg?: string; err?: Record<string, unknown> })
    .find((line) => line.msg === 'request failed');
  expect(failure).toBeDefined();
  expect(failure!.err).toMatchObject({ type: 'QueryFailedError', code: 'ER_NO_SUCH_TABLE' });
  expect(Object.keys(failure!.err ?? {}).sort()).toEqual(['code', 'message', 'stack', 'type']);
  const everything = lines.join('\n');
  for (const secret of [email, 'secret.person', 'INSERT INTO', '"parameters"', '"query"', '"driverError"', '"sqlMessage"']) {
    expect(everything).not.toContain(secret);
  }
});
