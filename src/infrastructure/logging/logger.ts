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

/**
 * The query parameters whose values a log line shows, by their name as decoded: those the routes read that hold no
 * secret (pages, cursors, the list filters, the audit filters, the OAuth grant's type and client id). Any other value
 * is masked: an invitation link's token, and whatever a client puts in a URL by mistake (a client secret, a refresh
 * token: review J, 2026-12-06).
 */
const SHOWN_PARAMETER =
  /^(?:page|page_size|after|cursor|role|status|email|q|group|name|actor|target|action|outcome|from|to|request_id|lang|grant_type|client_id|filter\[(?:role|status|email|q|group|name)\])$/i;

/**
 * An error as a log line may show it: its kind and code, and a message with any credentials in a
 * URL (`//user:pass@`) masked, cut short. Never a stack, which may hold request data.
 */
export function describeError(error: unknown): string {
  const e = error as { name?: string; code?: string | number; message?: string } | null;
  const code = e?.code ?? databaseErrorCode(error);
  const kind = code !== undefined ? `${e?.name ?? 'Error'} ${String(code)}` : (e?.name ?? 'Error');
  let message = (e?.message ?? String(error)).replace(/\/\/[^@/\s]*@/g, '//***@');
  // A database's message quotes the values it refused ("Duplicate entry 'a@b.c' for key …").
  if (isDatabaseError(error)) message = message.replace(/'(?:[^'\\]|\\.)*'/g, "'?'");
  return `${kind}: ${message.slice(0, 300)}`;
}

/** TypeORM's QueryFailedError and the drivers' errors carry the SQL and its parameters. */
function isDatabaseError(error: unknown): boolean {
  const e = error as Record<string, unknown> | null;
  return !!e && typeof e === 'object' && ('query' in e || 'parameters' in e || 'sql' in e || 'sqlMessage' in e || 'driverError' in e);
}

function databaseErrorCode(error: unknown): string | undefined {
  const driver = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  return typeof driver?.code === 'string' ? driver.code : undefined;
}

/**
 * The one serializer of errors for every logger (`err` and `error` keys): what describeError
 * shows, and the stack's frames without its first line (which repeats the raw message). Never
 * the properties a driver hangs on an error: the SQL, its parameters, the driver's own error.
 */
export function serializeError(error: unknown): { type: string; message: string; code?: string | number; stack?: string } | string {
  // A text is what a caller already described (`error: describeError(e)`); it stays as it is.
  if (typeof error !== 'object' || error === null) return String(error);
  const e = error as Error & { code?: string | number };
  const frames = typeof e.stack === 'string' ? e.stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  return {
    type: e.name ?? 'Error',
    message: describeError(error),
    ...(e.code !== undefined || databaseErrorCode(error) !== undefined ? { code: e.code ?? databaseErrorCode(error) } : {}),
    ...(frames.length > 0 ? { stack: frames.slice(0, 12).join('\n') } : {}),
  };
}

/**
 * The URL with the value of every parameter but the shown ones masked, and a bare name masked unless shown. Names are
 * compared decoded, as the query parser reads them: `%70age=` is `page=` to the route, so it is to the log too.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const hash = url.indexOf('#', at);
  const query = hash < 0 ? url.slice(at + 1) : url.slice(at + 1, hash);
  const masked = query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      if (SHOWN_PARAMETER.test(decodedName(name))) return pair;
      return equals < 0 ? (pair === '' ? pair : '[redacted]') : `${name}=[redacted]`;
    })
    .join('&');
  return `${url.slice(0, at + 1)}${masked}${hash < 0 ? '' : url.slice(hash)}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    serializers: {
      err: serializeError,
      error: serializeError,
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
