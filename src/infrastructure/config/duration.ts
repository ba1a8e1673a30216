const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** "15m", "7d", "90s", "1500ms" or a bare number of seconds → seconds; null when not a duration. */
export function parseDurationSeconds(raw: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!match) return null;
  const seconds = Number(match[1]) * UNITS[match[2] ?? 's'];
  return Number.isFinite(seconds) ? seconds : null;
}
