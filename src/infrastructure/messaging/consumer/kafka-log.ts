import { type LogEntry, type logCreator, logLevel } from 'kafkajs';
import type { Logger } from '../../logging/logger';

/** The kafkajs level that lets through what `logger` would write: kafkajs speaks only at pino debug and trace. */
export function kafkaLogLevel(logger: Logger): logLevel {
  return logger.isLevelEnabled('debug') ? logLevel.INFO : logLevel.NOTHING;
}

const KAFKA_LEVEL_NAMES: Record<number, string> = { [logLevel.ERROR]: 'error', [logLevel.WARN]: 'warn', [logLevel.INFO]: 'info', [logLevel.DEBUG]: 'debug' };

/**
 * Sends kafkajs' own log lines to pino, as one JSON line each, with the component named, at debug
 * (its errors and warnings included) and trace. kafkajs writes a line per failed attempt (each
 * refused connection, each retry, each crash); the worker reports the same conditions itself, once
 * per change of state, so at info a broker that is away for an hour is one warning, not thousands.
 */
export function kafkaLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = entry as typeof entry & { timestamp?: string; logger?: string };
      const fields = { namespace, kafkaLevel: KAFKA_LEVEL_NAMES[level], ...extra };
      if (level <= logLevel.INFO) log.debug(fields, message);
      else log.trace(fields, message);
    };
}
