import type { DataSource } from 'typeorm';

/**
 * AUDIT_SEAL_KEY by data source: whoever inserts entries through a data source (insertAuditEntries, called by the unit
 * of work, the lockout's counters and the credential grants) seals them with its key. Kept with the data source, as the
 * trail it writes is the data source's, rather than passed through every adapter that writes an entry.
 */
const keys = new WeakMap<DataSource, string>();

/** The process's AUDIT_SEAL_KEY for the entries it inserts through `dataSource`; none: entries carry no seal. */
export function keepEntrySealKey(dataSource: DataSource, key: string | undefined): void {
  if (key) keys.set(dataSource, key);
  else keys.delete(dataSource);
}

export function entrySealKeyOf(dataSource: DataSource): string | undefined {
  return keys.get(dataSource);
}
