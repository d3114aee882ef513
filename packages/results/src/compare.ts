/**
 * `rocelab compare`: a run's measurements against the same measurements of every reference run.
 * Each row passes when the run's value lies in [min·(1 − t), max·(1 + t)] of the reference
 * runs' values, t the tolerance of its group. Rows present on one side only fail.
 */
import { defaultWindow, measure, type Measurement, type Unit, type Window } from './measurements.js';
import { TRACE_FILE_NAMES, type TraceFileName } from './trace-columns.js';
import { TOLERANCE_KEYS, type ToleranceKey, type Tolerances } from './tolerance.js';
import type { TraceTables } from './trace-tables.js';

export interface ComparisonRow {
  group: ToleranceKey;
  name: string;
  unit: Unit;
  /** The run's value; null when the run has none (see `note`). */
  value: number | null;
  /** Over the reference runs that have a value; null when none has. */
  refMin: number | null;
  refMax: number | null;
  allowedMin: number | null;
  allowedMax: number | null;
  pass: boolean;
  /** Why it failed and by how much, or what was unusual; empty for a plain pass. */
  note: string;
}

export interface Comparison {
  pass: boolean;
  rows: ComparisonRow[];
  failed: number;
  tolerances: Tolerances;
  /** The steady window the rate rows used (from the run unless given). */
  window: Window | null;
  /** The reference's runs, in order of appearance (`''` for a directory without a run column). */
  referenceRuns: string[];
  /** Files of the run that the reference does not have: not compared. */
  notCompared: TraceFileName[];
}

export interface CompareOptions {
  tolerances: Tolerances;
  /** Absent or null: the second half of the run's rates.csv span. */
  window?: Window | null;
}

/**
 * Compares `run` with every run of `reference` (at least one). Only files the reference has are
 * compared; the caller decides whether a reference file missing from the run is an error.
 */
export function compareTraces(run: TraceTables, reference: ReadonlyMap<string, TraceTables>, o: CompareOptions): Comparison {
  if (reference.size === 0) throw new Error('compareTraces needs at least one reference run');
  const refFiles = new Set(TRACE_FILE_NAMES.filter((f) => [...reference.values()].some((t) => t[f] !== undefined)));
  const shared = Object.fromEntries([...refFiles].map((f) => [f, run[f] ?? []])) as TraceTables;
  const window = refFiles.has('rates.csv') ? (o.window ?? defaultWindow(run['rates.csv'] ?? [])) : null;
  const mine = new Map(measure(shared, window).map((m) => [rowKey(m), m]));
  const refs = [...reference.values()].map((t) => new Map(measure(t, window).map((m) => [rowKey(m), m])));
  // The run's rows, then rows of the reference only; stable-sorted by group, so those come last in theirs.
  const names = new Map(mine);
  for (const ref of refs) for (const [k, m] of ref) if (!names.has(k)) names.set(k, m);
  const rows = [...names.values()]
    .sort((a, b) => TOLERANCE_KEYS.indexOf(a.group) - TOLERANCE_KEYS.indexOf(b.group))
    .map((m) => evaluate(m, mine.get(rowKey(m)), refs.map((r) => r.get(rowKey(m))), o.tolerances[m.group]));
  const failed = rows.filter((r) => !r.pass).length;
  return {
    pass: failed === 0,
    rows,
    failed,
    tolerances: o.tolerances,
    window,
    referenceRuns: [...reference.keys()],
    notCompared: TRACE_FILE_NAMES.filter((f) => run[f] !== undefined && !refFiles.has(f)),
  };
}

const rowKey = (m: Measurement): string => `${m.group}\0${m.name}`;

/** One row: `row` names it, `mine` is the run's measurement, `refs` each reference run's (undefined: the run has no such row). */
export function evaluate(row: Measurement, mine: Measurement | undefined, refs: ReadonlyArray<Measurement | undefined>, tolerance: number): ComparisonRow {
  const present = refs.filter((m): m is Measurement => m !== undefined);
  const values = present.flatMap((m) => (m.value === null ? [] : [m.value]));
  const noValue = present.length - values.length;
  const refMin = values.length === 0 ? null : values.reduce((a, b) => Math.min(a, b));
  const refMax = values.length === 0 ? null : values.reduce((a, b) => Math.max(a, b));
  const allowedMin = refMin === null ? null : refMin * (1 - tolerance);
  const allowedMax = refMax === null ? null : refMax * (1 + tolerance);
  const n = refs.length;
  const result = (pass: boolean, ...notes: string[]): ComparisonRow => ({
    group: row.group, name: row.name, unit: row.unit, value: mine?.value ?? null, refMin, refMax, allowedMin, allowedMax, pass, note: notes.filter(Boolean).join('; '),
  });
  const absent = present.length < n && present.length > 0 ? `absent from ${n - present.length} of ${n} reference runs` : '';
  if (mine === undefined) return result(false, `missing from the run (present in ${present.length} of ${n} reference runs)`);
  if (present.length === 0) return result(false, `not in the reference (in none of its ${n} runs)`);
  const partly = noValue > 0 ? `${row.none} in ${noValue} of ${n} reference runs` : '';
  if (mine.value === null) {
    return noValue > 0 ? result(true, `${mine.none}, as in ${noValue} of ${n} reference runs`, absent) : result(false, `${mine.none} in the run, but in no reference run`, absent);
  }
  if (allowedMin === null || allowedMax === null) return result(false, `the reference has no value: ${row.none} in every run that has this row`, absent);
  if (mine.value > allowedMax) return result(false, excess(mine.value, allowedMax, 'above the allowed max', row.unit), partly, absent);
  if (mine.value < allowedMin) return result(false, excess(mine.value, allowedMin, 'below the allowed min', row.unit), partly, absent);
  return result(true, partly, absent);
}

/** `+23.4 % above the allowed max (+12.3 µs)`; without the percentage when the bound is 0. */
function excess(value: number, bound: number, where: string, unit: Unit): string {
  const diff = value - bound;
  const amount = `${diff > 0 ? '+' : '-'}${formatValue(Math.abs(diff), unit)}`;
  if (bound === 0) return `${amount} ${where} of 0`;
  const percent = (diff / Math.abs(bound)) * 100;
  return `${percent > 0 ? '+' : '-'}${Math.abs(percent).toFixed(1)} % ${where} (${amount})`;
}

/** A value with its unit: µs and Gb/s with 3 decimals (ns, Mb/s), bytes, counts and ratios to 3 decimals without trailing zeros (counts and ratios without a unit). */
export function formatValue(value: number | null, unit: Unit): string {
  if (value === null) return '—';
  return unit === 'count' || unit === 'ratio' ? formatNumber(value, unit) : `${formatNumber(value, unit)} ${unit}`;
}

/** The number alone, as `formatValue` writes it. */
export function formatNumber(value: number, unit: Unit): string {
  return unit === 'µs' || unit === 'Gb/s' ? value.toFixed(3) : String(Number(value.toFixed(3)));
}
