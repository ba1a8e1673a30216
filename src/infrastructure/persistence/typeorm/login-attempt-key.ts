import { createHash } from 'node:crypto';

/** The row key: the lower-cased username, or its SHA-256 when longer than the column (no user has such a name). */
export function columnKey(account: string): string {
  return account.length <= 64 ? account : createHash('sha256').update(account, 'utf8').digest('hex');
}
