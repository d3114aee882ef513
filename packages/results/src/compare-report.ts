/**
 * How `rocelab compare` shows a comparison: an aligned table (failing rows first, then a
 * one-line count) or one JSON line.
 */
import { formatNumber, formatValue, type Comparison, type ComparisonRow } from './compare.js';
import { formatTolerances, TOLERANCE_KEYS } from './tolerance.js';

/** Above this many rows the table lists the failing rows and counts the passing ones per group. */
export const MAX_TABLE_ROWS = 40;

export function formatComparison(c: Comparison, o: { all: boolean }): string {
  const failing = c.rows.filter((r) => !r.pass);
  const passing = c.rows.filter((r) => r.pass);
  const listAll = o.all || c.rows.length <= MAX_TABLE_ROWS;
  const lines = table([...failing, ...(listAll ? passing : [])]);
  if (!listAll && passing.length > 0) {
    const counts = TOLERANCE_KEYS.flatMap((g) => {
      const n = passing.filter((r) => r.group === g).length;
      return n === 0 ? [] : [`${g} ${n}`];
    });
    lines.push(`passing rows not listed (--all lists them): ${counts.join(', ')}`);
  }
  if (c.notCompared.length > 0) lines.push(`not compared (not in the reference): ${c.notCompared.join(', ')}`);
  const runs = c.referenceRuns.length === 1 ? '1 reference run' : `${c.referenceRuns.length} reference runs`;
  const window = c.window === null ? 'no rates' : `rate window [${c.window.startUs}, ${c.window.endUs}${c.window.endInclusive ? ']' : ')'} µs`;
  lines.push(`${c.failed === 0 ? 'PASS' : 'FAIL'}: ${c.failed} of ${c.rows.length} rows fail (${runs}; tolerance ${formatTolerances(c.tolerances)}; ${window})`);
  return `${lines.join('\n')}\n`;
}

function table(rows: readonly ComparisonRow[]): string[] {
  if (rows.length === 0) return [];
  const cells = [
    ['', 'GROUP', 'ROW', 'VALUE', 'REF MIN', 'REF MAX', 'ALLOWED', 'NOTE'],
    ...rows.map((r) => [
      r.pass ? 'pass' : 'FAIL',
      r.group,
      r.name,
      formatValue(r.value, r.unit),
      formatValue(r.refMin, r.unit),
      formatValue(r.refMax, r.unit),
      r.allowedMin === null || r.allowedMax === null ? '—' : `${formatNumber(r.allowedMin, r.unit)}–${formatValue(r.allowedMax, r.unit)}`,
      r.note,
    ]),
  ];
  const numeric = new Set([3, 4, 5, 6]);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The `--json` line: `{pass, failed, total, rows: [{group, name, unit, value, refMin, refMax, allowedMin, allowedMax, pass, note}], tolerances, window, referenceRuns, notCompared}`. */
export function comparisonJson(c: Comparison): string {
  return JSON.stringify({
    pass: c.pass,
    failed: c.failed,
    total: c.rows.length,
    rows: c.rows.map((r) => ({ group: r.group, name: r.name, unit: r.unit, value: r.value, refMin: r.refMin, refMax: r.refMax, allowedMin: r.allowedMin, allowedMax: r.allowedMax, pass: r.pass, note: r.note })),
    tolerances: c.tolerances,
    window: c.window === null ? null : { startUs: c.window.startUs, endUs: c.window.endUs, endInclusive: c.window.endInclusive },
    referenceRuns: c.referenceRuns,
    notCompared: c.notCompared,
  });
}
