/**
 * The name (MySQL/MariaDB) or columns (SQLite) of the unique index a write violated,
 * or null when the error is not a unique violation.
 */
export function uniqueViolationOn(error: unknown): string | null {
  const e = error as { code?: string; errno?: number; sqlMessage?: string; message?: string; driverError?: unknown };
  const inner = (e?.driverError ?? e) as { code?: string; errno?: number; sqlMessage?: string; message?: string };
  if (inner?.code === 'ER_DUP_ENTRY' || inner?.errno === 1062) {
    return /for key '([^']+)'/.exec(inner.sqlMessage ?? inner.message ?? '')?.[1] ?? '';
  }
  if (inner?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(inner?.message ?? '')) {
    return /UNIQUE constraint failed: (.+)$/.exec(inner.message ?? '')?.[1] ?? '';
  }
  return null;
}
