import type { DatabaseConfig } from '../../config/variables';

/**
 * What a failed connection says about DATABASE_URL, for the log line of each attempt: the part to check, named from
 * the URL itself (its user, database and host are no secret), never its password. The driver's own message has its
 * quoted names masked ('?') by describeError, so "Access denied for user '?'@'?'" alone did not say which. null:
 * nothing more to say than the driver's message (the server not up yet, a reset connection).
 * The process keeps trying whatever this says: an operator may fix the grant or create the database meanwhile.
 */
export function connectionProblem(error: unknown, database: DatabaseConfig): string | null {
  if (database.kind === 'sqlite') return null;
  let url: URL;
  try {
    url = new URL(database.url);
  } catch {
    return null;
  }
  const user = decodeURIComponent(url.username) || '(none)';
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(none)';
  const place = `${url.hostname}:${url.port || '3306'}`;
  switch ((error as { code?: unknown } | null)?.code) {
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      return `DATABASE_URL: access denied for user ${user} at ${place} (check the user and password)`;
    case 'ER_DBACCESS_DENIED_ERROR':
      return `DATABASE_URL: user ${user} may not use database ${name} (grant it, or check the name)`;
    case 'ER_BAD_DB_ERROR':
      return `DATABASE_URL: unknown database ${name} at ${place} (create it, or check the name)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DATABASE_URL: host ${url.hostname} not found (check the host name)`;
    case 'ECONNREFUSED':
      return `DATABASE_URL: nothing listens at ${place} (yet?)`;
    default:
      return null;
  }
}
