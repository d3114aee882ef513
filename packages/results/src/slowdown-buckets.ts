/**
 * FCT slowdown by flow size, as the HPCC paper plots it (Li et al., "HPCC: High Precision
 * Congestion Control", SIGCOMM 2019, Figure 11: FCT slowdown of WebSearch and FB_Hadoop): the
 * completed messages sorted by size are cut into groups of equal count, `stepPercent` % of them
 * each, and every group reports the size of its largest message (the figure's x tick) and the
 * median, 95th and 99th percentile of its messages' slowdowns (FCT over ideal FCT).
 *
 * The rules are those of the reference analysis script (HPCC analysis/fct_analysis.py, its main
 * block and `get_pctl`), with two differences, both for messages the script cannot see:
 * - Group i (i = 0, step, 2·step, … < 100) holds the sorted messages of index
 *   ⌊i·n/100⌋ to ⌊(i+step)·n/100⌋ − 1, as there; an empty group (fewer messages than groups) is
 *   left out instead of failing, and the last message is kept (the script's
 *   `output.split('\n')[:-2]` drops it along with the trailing empty line).
 * - Messages of equal size keep flow-id order (the script's `sort -n -k 2` falls back to the
 *   whole line), so the grouping is the same in every mode and on every machine.
 *
 * A slowdown below 1 counts as 1 (`slow<1?1:slow` there: its standalone FCT is an estimate;
 * rocelab's is exact, so this only guards the statistic, and fct.csv keeps the raw value).
 */

/** One completed message: its size and its slowdown (FCT / ideal FCT). */
export interface SlowdownSample {
  flow: string;
  sizeBytes: number;
  slowdown: number;
}

export interface SlowdownBucket {
  /** The group's place among the messages sorted by size: from `fromPercent` % to `toPercent` %. */
  fromPercent: number;
  toPercent: number;
  /** The largest message of the group (the HPCC figures' x axis). */
  upToBytes: number;
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface SlowdownSummary {
  /** The width of each group, % of the measured messages. */
  stepPercent: number;
  /** Messages measured: completed, with an ideal FCT. */
  measured: number;
  /** Messages left out: not completed, or no ideal FCT (no route). */
  notMeasured: number;
  buckets: SlowdownBucket[];
}

/** 5 %: twenty groups, the script's default (`-s 5`) and what the HPCC figures show. */
export const SLOWDOWN_STEP_PERCENT = 5;

/** The percentiles reported per group, as fractions in the script's own doubles. */
export const SLOWDOWN_PERCENTILES = [
  { name: 'p50', fraction: 0.5 },
  { name: 'p95', fraction: 0.95 },
  { name: 'p99', fraction: 0.99 },
] as const;

/**
 * The script's percentile (`get_pctl`: `a[int(len(a) * p)]`, 0-based) of `sorted` (ascending,
 * not empty). It equals the nearest rank except when n·p is a whole number, where it takes the
 * next value up (n = 20, p = 0.5: the 11th, not the 10th). We keep it rather than rocelab's
 * nearest rank so that the same flows give the numbers of the paper's script; `fraction` is
 * multiplied in doubles exactly as Python does, so the index is the same too.
 */
export function hpccPercentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) throw new RangeError('hpccPercentile of no values');
  if (!(fraction >= 0 && fraction < 1)) throw new RangeError(`percentile fraction must be in [0, 1), got ${fraction}`);
  return sorted[Math.floor(sorted.length * fraction)]!;
}

/** The group label used in fct.csv's `bucket` column and in `rocelab compare` rows: `0-5%`. */
export const bucketLabel = (fromPercent: number, toPercent: number): string => `${fromPercent}-${toPercent}%`;

function checkStep(stepPercent: number): void {
  if (!(Number.isInteger(stepPercent) && stepPercent >= 1 && stepPercent <= 100)) throw new RangeError(`slowdown bucket step must be a whole percent in [1, 100], got ${stepPercent}`);
}

/** The samples ordered by size, then flow id (numerically when both are numbers). */
function bySize(samples: readonly SlowdownSample[]): SlowdownSample[] {
  const flowOrder = (a: string, b: string): number => {
    const [x, y] = [Number(a), Number(b)];
    if (Number.isFinite(x) && Number.isFinite(y) && x !== y) return x - y;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  return [...samples].sort((a, b) => a.sizeBytes - b.sizeBytes || flowOrder(a.flow, b.flow));
}

/** The groups over the sorted samples: [fromPercent, toPercent) and their index range. */
function groups(n: number, stepPercent: number): Array<{ fromPercent: number; toPercent: number; lo: number; hi: number }> {
  const out = [];
  for (let i = 0; i < 100; i += stepPercent) {
    const toPercent = Math.min(i + stepPercent, 100);
    // Python 2's `i * n / 100` on ints: floor division.
    const lo = Math.floor((i * n) / 100);
    const hi = Math.min(n, Math.floor(((i + stepPercent) * n) / 100));
    out.push({ fromPercent: i, toPercent, lo, hi });
  }
  return out;
}

/** Each sample's group label, by flow id. */
export function bucketsByFlow(samples: readonly SlowdownSample[], stepPercent = SLOWDOWN_STEP_PERCENT): Map<string, string> {
  checkStep(stepPercent);
  const sorted = bySize(samples);
  const out = new Map<string, string>();
  for (const g of groups(sorted.length, stepPercent)) {
    for (let k = g.lo; k < g.hi; k++) out.set(sorted[k]!.flow, bucketLabel(g.fromPercent, g.toPercent));
  }
  return out;
}

/** The summary over the measured messages; `notMeasured` is passed through. */
export function slowdownBuckets(samples: readonly SlowdownSample[], notMeasured = 0, stepPercent = SLOWDOWN_STEP_PERCENT): SlowdownSummary {
  checkStep(stepPercent);
  const sorted = bySize(samples);
  const buckets: SlowdownBucket[] = [];
  for (const g of groups(sorted.length, stepPercent)) {
    if (g.hi <= g.lo) continue;
    const group = sorted.slice(g.lo, g.hi);
    const slowdowns = group.map((s) => Math.max(1, s.slowdown)).sort((a, b) => a - b);
    const [p50, p95, p99] = SLOWDOWN_PERCENTILES.map((p) => hpccPercentile(slowdowns, p.fraction)) as [number, number, number];
    buckets.push({ fromPercent: g.fromPercent, toPercent: g.toPercent, upToBytes: group.at(-1)!.sizeBytes, count: group.length, p50, p95, p99 });
  }
  return { stepPercent, measured: sorted.length, notMeasured, buckets };
}

/** fct.csv's last column: the size group of a completed, measured message (`0-5%`), empty otherwise. */
export const FCT_BUCKET_COLUMN = 'bucket';

/**
 * fct.csv as merged from the nodes' parts (`FCT_COLUMNS`, our own writer: no quoting) with the
 * `bucket` column appended. The groups need every message of the run, which no single node
 * has, so the column is added once the parts are merged; readers that take the columns by name
 * are unaffected. A message is measured when its `status` is `success` and it has a `slowdown`.
 */
export function withBucketColumn(csv: string, stepPercent = SLOWDOWN_STEP_PERCENT): string {
  const lines = csv.split('\n');
  const header = lines[0]!.split(',');
  const at = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`fct.csv header has no ${name}: ${lines[0]}`);
    return i;
  };
  const [flowAt, sizeAt, slowdownAt, statusAt] = [at('flow'), at('size_bytes'), at('slowdown'), at('status')];
  const rows = lines.slice(1).filter((l) => l !== '').map((l) => l.split(','));
  const samples = rows.flatMap((f) => (f[statusAt] === 'success' && f[slowdownAt] !== '' ? [{ flow: f[flowAt]!, sizeBytes: Number(f[sizeAt]), slowdown: Number(f[slowdownAt]) }] : []));
  const labels = bucketsByFlow(samples, stepPercent);
  return [`${lines[0]},${FCT_BUCKET_COLUMN}`, ...rows.map((f) => `${f.join(',')},${labels.get(f[flowAt]!) ?? ''}`)].map((l) => `${l}\n`).join('');
}
