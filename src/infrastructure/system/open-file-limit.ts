import { readFileSync } from 'node:fs';

/**
 * The process's soft limit of open files (RLIMIT_NOFILE) as Linux shows it in /proc/self/limits; undefined elsewhere,
 * or when it is unlimited. Node has no getrlimit of its own.
 */
export function openFileLimit(limits = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limits, 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}
