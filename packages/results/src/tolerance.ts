/**
 * Tolerances of `rocelab compare`, one per group of rows: a row passes when the run's value is
 * within [min·(1 − t), max·(1 + t)] of the reference runs' values.
 */
import { ResultsError } from './errors.js';

/** The groups of comparison rows; each has its own tolerance. */
export const TOLERANCE_KEYS = ['fct', 'rate', 'queue', 'pauses', 'marks', 'cnps', 'slowdown'] as const;
export type ToleranceKey = (typeof TOLERANCE_KEYS)[number];
/** Fractions, e.g. 0.1 for 10 %. */
export type Tolerances = Record<ToleranceKey, number>;

/** 10 %: wide enough for seed-to-seed variation of FCTs and steady rates in the default pods, narrow enough to catch a changed mechanism. */
export const DEFAULT_TOLERANCE = 0.1;

export const TOLERANCE_FORM = `KEY=PERCENT[,KEY=PERCENT…] with KEY one of ${TOLERANCE_KEYS.join(', ')}, all and PERCENT a number ≥ 0 followed by %, e.g. fct=10%,pauses=25%`;

export function defaultTolerances(): Tolerances {
  return Object.fromEntries(TOLERANCE_KEYS.map((k) => [k, DEFAULT_TOLERANCE])) as Tolerances;
}

/**
 * Parses `fct=10%,pauses=25%`. Keys not named keep the default; `all=5%` sets every key that is
 * not named on its own, wherever it stands. A key named twice is an error.
 */
export function parseTolerances(text: string): Tolerances {
  const fail = (got: string): never => {
    throw new ResultsError('tolerance', '--tolerance', TOLERANCE_FORM, got);
  };
  const given = new Map<string, number>();
  for (const item of text.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(item);
    if (m === null) fail(JSON.stringify(item));
    const [, key, percent] = m!;
    if (key !== 'all' && !(TOLERANCE_KEYS as readonly string[]).includes(key!)) fail(`the key "${key}" in ${JSON.stringify(item)}`);
    if (given.has(key!)) fail(`"${key}" twice`);
    given.set(key!, Number(percent) / 100);
  }
  const all = given.get('all') ?? DEFAULT_TOLERANCE;
  return Object.fromEntries(TOLERANCE_KEYS.map((k) => [k, given.get(k) ?? all])) as Tolerances;
}

/** `fct 10 %, rate 10 %, …` */
export function formatTolerances(t: Tolerances): string {
  return TOLERANCE_KEYS.map((k) => `${k} ${formatPercent(t[k])}`).join(', ');
}

const formatPercent = (fraction: number): string => `${Number((fraction * 100).toFixed(3))} %`;
