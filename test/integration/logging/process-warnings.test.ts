import { spawnSync } from 'node:child_process';
import path from 'node:path';

// A real process of the built code (`npm run build`): Node's own warnings, raised as Node raises them.
const MODULE = path.join(__dirname, '../../../dist/src/infrastructure/logging/process-warnings.js');

function runWith(body: string): { stdout: Array<{ level: number; msg: string; warning: { name: string; message: string } }>; stderr: string } {
  const script = `
    const pino = require('pino');
    require(${JSON.stringify(MODULE)}).routeProcessWarnings(pino({ level: 'debug' }));
    ${body}
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000, cwd: path.join(__dirname, '../../..') });
  expect(run.status).toBe(0);
  return { stdout: run.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)), stderr: run.stderr };
}

describe('process warnings in a process of the service', () => {
  it('become JSON log lines at warn with the first line of their message, and nothing reaches stderr', () => {
    const { stdout, stderr } = runWith(`
      process.emitWarning('something is deprecated\\nsecond line', 'DeprecationWarning');
      setTimeout(() => {}, -5); // Node 23+ warns of a negative timer; older ones say nothing
    `);
    expect(stderr).toBe('');
    const negativeTimer = Number(process.versions.node.split('.')[0]) >= 23 ? [[40, 'TimeoutNegativeWarning', '-5 is a negative number.']] : [];
    expect(stdout.map((line) => [line.level, line.warning.name, line.warning.message])).toEqual([
      [40, 'DeprecationWarning', 'something is deprecated'],
      ...negativeTimer,
    ]);
  });

  it("put kafkajs's negative request-queue timer (kafkajs#1751, harmless) at debug", () => {
    const { stdout, stderr } = runWith(`
      const warning = new Error('-1747359280440 is a negative number.\\nTimeout duration was set to 1.');
      warning.name = 'TimeoutNegativeWarning';
      warning.stack = warning.name + ': ' + warning.message + '\\n    at setTimeout (node:timers:120:19)\\n' +
        '    at RequestQueue.scheduleCheckPendingRequests (/app/node_modules/kafkajs/src/network/requestQueue/index.js:317:37)';
      process.emitWarning(warning);
    `);
    expect(stderr).toBe('');
    expect(stdout.map((line) => [line.level, line.warning.name])).toEqual([[20, 'TimeoutNegativeWarning']]);
  });
});
