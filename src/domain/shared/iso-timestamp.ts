const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `date.toISOString()`, the same string (`YYYY-MM-DDTHH:mm:ss.sssZ`), built from its UTC fields. Node's own took
 * 0.70 µs a call against 0.14 µs here (Node 24, 2 M calls), and a page of ten users formats twenty to thirty of
 * them per request. Years outside 1000–9999 (fewer than four digits, or the expanded ±YYYYYY form) and invalid
 * dates (a RangeError) are left to `toISOString` itself.
 */
export function isoTimestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  return `${year}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}T${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}.${pad3(date.getUTCMilliseconds())}Z`;
}
