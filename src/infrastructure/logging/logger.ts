import pino, { type Logger, type LoggerOptions } from 'pino';
import { currentRequestId } from '../observability/request-context';

/** Paths never written to a log line, whatever level. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  '*.password',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'passwordHash',
  '*.passwordHash',
  'smtpUrl',
  'databaseUrl',
];

/** Query parameters whose values never reach a log line (invitation links carry a token). */
const SECRET_QUERY = /([?&](?:token|access_token|password)=)[^&#]*/gi;

/**
 * An error as a log line may show it: its kind and code, and a message with any credentials in a
 * URL (`//user:pass@`) masked, cut short. Never a stack, which may hold request data.
 */
export function describeError(error: unknown): string {
  const e = error as { name?: string; code?: string | number; message?: string } | null;
  const kind = e?.code !== undefined ? `${e?.name ?? 'Error'} ${String(e.code)}` : (e?.name ?? 'Error');
  const message = (e?.message ?? String(error)).replace(/\/\/[^@/\s]*@/g, '//***@').slice(0, 300);
  return `${kind}: ${message}`;
}

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    serializers: {
      req: (req: { method?: string; url?: string; id?: string; ip?: string }) => ({
        method: req.method,
        url: req.url === undefined ? undefined : redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
    base: { service: 'access-control' },
    // A line written inside a request by a logger that is not the request's own (an adapter's) still says which request.
    mixin: (_object, _level, logger) => {
      const requestId = currentRequestId();
      if (requestId === undefined) return {};
      const bindings = (logger as unknown as Record<symbol, string | undefined>)[pino.symbols.chindingsSym] ?? '';
      return bindings.includes('"reqId"') ? {} : { reqId: requestId };
    },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

export type { Logger };
