import type { Logger } from 'pino';

/**
 * Process warnings (deprecations, listener leaks, negative timers, …) become lines of the process's
 * own log, as JSON like every other line, instead of Node's plain text on stderr.
 *
 * One is known and harmless, so it goes to debug: kafkajs 2.2.4, its last release, schedules its
 * request queue with a negative delay, which Node 23 and later report as a TimeoutNegativeWarning
 * once per process (https://github.com/tulios/kafkajs/issues/1751). Node runs such a timer after
 * 1 ms, which is what the queue means, and what every Node did before the warning existed.
 */
export function routeProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    const fields = { warning: { name: warning.name, code: warning.code, message: warning.message.split('\n')[0] } };
    if (isKafkaJsRequestQueueTimer(warning)) logger.debug(fields, 'process warning (kafkajs request queue timer, harmless)');
    else logger.warn(fields, 'process warning');
  });
}

function isKafkaJsRequestQueueTimer(warning: Error): boolean {
  return warning.name === 'TimeoutNegativeWarning' && /kafkajs[\\/]src[\\/]network[\\/]requestQueue/.test(warning.stack ?? '');
}
