/**
 * A port the api or the mailer cannot listen on stops it as a bad value does: exit 1 and one line naming the variable
 * that chose the port, not a stack trace (a new user's second `make run` beside the first, a port below 1024).
 */
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { ensureBuilt, runUntilExit } from '../../support/api-process';

jest.setTimeout(90_000);

const MAILER = path.resolve(__dirname, '../../../dist/src/interfaces/mailer/main.js');

let held: Server;
let heldPort: number;
beforeAll(async () => {
  ensureBuilt();
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  heldPort = (held.address() as { port: number }).port;
});
afterAll(async () => new Promise<void>((resolve) => held.close(() => resolve())));

it.each([
  ['PORT', {}],
  ['METRICS_PORT', {}],
])('the api exits 1 naming %s when its port is taken', async (variable) => {
  const result = await runUntilExit({ HOST: '127.0.0.1', [variable]: String(heldPort) }, { timeoutMs: 60_000 });
  expect(result).toMatchObject({ code: 1, timedOut: false });
  expect(result.output).toContain(`${variable}: port ${heldPort} on 127.0.0.1 is in use by another process; stop it, or set ${variable} to a free port`);
  expect(result.output).not.toMatch(/EADDRINUSE|\n\s+at /);
});

it('the mailer exits 1 naming MAILER_METRICS_PORT when its port is taken', async () => {
  const result = await runUntilExit({ HOST: '127.0.0.1', KAFKA_BROKERS: '127.0.0.1:1', MAILER_METRICS_PORT: String(heldPort) }, { script: MAILER, timeoutMs: 60_000 });
  expect(result).toMatchObject({ code: 1, timedOut: false });
  expect(result.output).toContain(`MAILER_METRICS_PORT: port ${heldPort} on 127.0.0.1 is in use by another process`);
  expect(result.output).not.toMatch(/EADDRINUSE|\n\s+at /);
});

it('an address not of this machine names HOST', async () => {
  const result = await runUntilExit({ HOST: '192.0.2.1' }, { timeoutMs: 60_000 });
  expect(result).toMatchObject({ code: 1, timedOut: false });
  expect(result.output).toContain('HOST: 192.0.2.1 is not an address of this machine');
});
