import { type LogEntry, type logCreator, logLevel } from 'kafkajs';
import type { Logger } from '../../infrastructure/logging/logger';

/** The kafkajs level that lets through what `logger` would write (kafkajs INFO is pino debug). */
export function kafkaLogLevel(logger: Logger): logLevel {
  return logger.isLevelEnabled('debug') ? logLevel.INFO : logLevel.WARN;
}

/** Sends kafkajs' own log lines to pino, as one JSON line each, with the component named. */
export function kafkaLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = entry as typeof entry & { timestamp?: string; logger?: string };
      const fields = { namespace, ...extra };
      switch (level) {
        case logLevel.ERROR:
          log.error(fields, message);
          break;
        case logLevel.WARN:
          log.warn(fields, message);
          break;
        case logLevel.INFO:
          log.debug(fields, message);
          break;
        default:
          log.trace(fields, message);
      }
    };
}
