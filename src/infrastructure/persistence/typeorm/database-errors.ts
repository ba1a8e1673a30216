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

/**
 * A write a foreign key refused: `missing-parent` when the row written names a row that is not there
 * (MySQL/MariaDB 1452, 1216), `still-referenced` when the row deleted or changed is still named by others
 * (1451, 1217), `unknown` on SQLite, which says neither.
 */
export interface ForeignKeyViolation {
  kind: 'missing-parent' | 'still-referenced' | 'unknown';
  /** The constraint's name where the database says it (MySQL/MariaDB), else ''. */
  constraint: string;
}

/** What foreign key refused a write, or null when the error is not a foreign-key refusal. */
export function foreignKeyViolationOn(error: unknown): ForeignKeyViolation | null {
  const e = error as { code?: string; errno?: number; sqlMessage?: string; message?: string; driverError?: unknown };
  const inner = (e?.driverError ?? e) as { code?: string; errno?: number; sqlMessage?: string; message?: string };
  const constraint = () => /CONSTRAINT `([^`]+)`/.exec(inner.sqlMessage ?? inner.message ?? '')?.[1] ?? '';
  if (['ER_NO_REFERENCED_ROW_2', 'ER_NO_REFERENCED_ROW'].includes(inner?.code ?? '') || inner?.errno === 1452 || inner?.errno === 1216) {
    return { kind: 'missing-parent', constraint: constraint() };
  }
  if (['ER_ROW_IS_REFERENCED_2', 'ER_ROW_IS_REFERENCED'].includes(inner?.code ?? '') || inner?.errno === 1451 || inner?.errno === 1217) {
    return { kind: 'still-referenced', constraint: constraint() };
  }
  if (inner?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || /FOREIGN KEY constraint failed/.test(inner?.message ?? '')) {
    return { kind: 'unknown', constraint: '' };
  }
  return null;
}
