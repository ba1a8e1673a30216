/**
 * The audit screen's filters as people type them, turned into what the API takes: an instant in ISO 8601 UTC, and a
 * user named by username or e-mail as well as by id. No DOM here: unit-tested.
 */

/** The shape of the ids the service issues (UUIDs): such a filter is an id, anything else a name to look up. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i;

export const INSTANT_HINT = 'Write a day, 2026-01-31, or a time, 2026-01-31 09:30 (UTC) or 2026-01-31T09:30+02:00.';

/**
 * An instant typed in a filter: a day (its start, UTC), a date and time (UTC, as the field says), or one with its
 * zone; ISO 8601 UTC with milliseconds, as the API takes it, or why it is not one.
 */
export function instantOf(typed: string): { iso: string } | { error: string } {
  const text = typed.trim();
  const zoned = DAY.test(text) ? `${text}T00:00:00Z` : WITHOUT_ZONE.test(text) ? `${text.replace(' ', 'T')}Z` : text;
  const time = WITH_ZONE.test(zoned) && dayExists(zoned.slice(0, 10)) ? Date.parse(zoned) : Number.NaN;
  return Number.isNaN(time) ? { error: `Not a date and time. ${INSTANT_HINT}` } : { iso: new Date(time).toISOString() };
}

/** Whether `yyyy-mm-dd` is a day of the calendar (Date.parse rolls 2026-02-30 over into March). */
function dayExists(day: string): boolean {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, date));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === date;
}

export function looksLikeId(text: string): boolean {
  return ID.test(text.trim());
}

export interface NamedUser {
  _id: string;
  username?: string;
  email: string;
}

/**
 * The user a filter names, among the users the list's search found for it: the one whose username or e-mail is exactly
 * what was typed (any case), else the only one found; or why none is chosen.
 */
export function userNamed(typed: string, found: readonly NamedUser[]): { id: string } | { error: string } {
  const text = typed.trim().toLowerCase();
  const exact = found.filter((user) => user.username?.toLowerCase() === text || user.email.toLowerCase() === text);
  if (exact.length === 1) return { id: exact[0]!._id };
  if (found.length === 1) return { id: found[0]!._id };
  if (found.length === 0) return { error: `No user’s username or e-mail starts with “${typed.trim()}”` };
  return { error: `Several users match “${typed.trim()}”: type the whole username or e-mail, or the id` };
}
