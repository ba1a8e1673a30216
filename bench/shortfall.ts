/**
 * By how much a row misses its target, in the target's own terms ("14 points", "0.16 s", "5 MB"). A target in
 * seconds reads the figure in the row's unit: seconds (a walk's), or milliseconds (a p99's, the default).
 */
export function shortfall(row: { target: string; ratio: number | null; figure: number | null; unit?: string }): string | null {
  const match = /^([<>≤≥])\s*([\d.]+)\s*(%|×|ms|s|MB)$/.exec(row.target);
  if (!match) return null;
  const limit = Number(match[2]);
  const unit = match[3]!;
  if (unit === '%') return row.ratio === null ? null : `${(limit - row.ratio * 100).toFixed(0)} points`;
  if (unit === '×') return row.ratio === null ? null : `${(match[1] === '≥' || match[1] === '>' ? limit - row.ratio : row.ratio - limit).toFixed(2)}×`;
  if (row.figure === null) return null;
  if (unit === 's') return `${((row.unit === 's' ? row.figure : row.figure / 1000) - limit).toFixed(2)} s`;
  return `${(row.figure - limit).toFixed(unit === 'MB' ? 0 : 1)} ${unit}`;
}
