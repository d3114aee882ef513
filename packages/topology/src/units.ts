/**
 * Unit strings of the topology file → base units (DESIGN §3, §8): durations to integer
 * picoseconds, rates to bit/s, sizes to bytes, probabilities to 0..1.
 *
 * Parsing is exact: decimals are read as decimal fractions with BigInt arithmetic, so `1.5us`
 * is exactly 1,500,000 ps and `2.5G` exactly 2,500,000,000 bit/s, and a value that is not a
 * whole number of base units (`0.5ps`, `1.5B`) is rejected rather than rounded — a rounded
 * latency would silently change every result.
 *
 * Each parser throws a `UnitError` carrying the expectation; the loader adds file and path.
 */

import { MAX_TIME_PS, PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US } from '@rocelab/sim';

/** The expectation phrases, shared with the schema so both kinds of failure read the same. */
export const EXPECT = {
  duration: 'a duration like 1us, 500ns, 1.5us or 2ms',
  rate: 'a rate like 40G, 100M or 2.5G',
  bytes: 'a size in bytes: a non-negative integer or a string like 4MB, 1.5KB or 1MiB',
  probability: 'a probability 0..1 like 0.01 or 1/256',
  ipv4: 'an IPv4 address like 10.0.1.11',
  subnet: 'a subnet like 10.0.1.0/24 with no host bits set',
} as const;

/** A value that does not parse; `actual` is the offending value as written. */
export class UnitError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: unknown,
  ) {
    super(`expected ${expected}, got ${JSON.stringify(actual) ?? String(actual)}`);
    this.name = 'UnitError';
  }
}

const MAX = BigInt(MAX_TIME_PS); // 2^53 − 1: also the largest rate or size a JS number holds exactly

const DURATION_PS: Record<string, bigint> = { ps: 1n, ns: BigInt(PS_PER_NS), us: BigInt(PS_PER_US), ms: BigInt(PS_PER_MS), s: BigInt(PS_PER_S) };
const RATE_BPS: Record<string, bigint> = { '': 1n, K: 1000n, M: 1_000_000n, G: 1_000_000_000n };
const SIZE_BYTES: Record<string, bigint> = { '': 1n, B: 1n, KB: 1000n, MB: 1000n ** 2n, GB: 1000n ** 3n, KiB: 1024n, MiB: 1024n ** 2n, GiB: 1024n ** 3n };

/**
 * `digits[.digits]` times `scale`, exactly; null when the result is not a whole number or is
 * beyond 2^53 − 1 (the largest integer a JS number holds exactly).
 */
function scaled(whole: string, fraction: string | undefined, scale: bigint): number | null {
  const frac = fraction ?? '';
  const denominator = 10n ** BigInt(frac.length);
  const numerator = BigInt(whole + frac) * scale;
  if (numerator % denominator !== 0n) return null;
  const value = numerator / denominator;
  return value <= MAX ? Number(value) : null;
}

/** `1us`, `1.5us`, `500ns`, `0ps`, `2s` → picoseconds. A unit is required: a bare `1` is ambiguous. */
export function parseDuration(text: string): number {
  const m = typeof text === 'string' ? /^(\d+)(?:\.(\d+))?(ps|ns|us|ms|s)$/.exec(text) : null;
  const ps = m ? scaled(m[1]!, m[2], DURATION_PS[m[3]!]!) : null;
  if (ps === null) throw new UnitError(EXPECT.duration, text);
  return ps;
}

/** `40G`, `100M`, `10K`, `2.5G`, `40Gbps`, or a plain integer of bit/s → bit/s (> 0). */
export function parseRate(text: string | number): number {
  let bps: number | null = null;
  if (typeof text === 'number') {
    bps = Number.isSafeInteger(text) ? text : null;
  } else if (typeof text === 'string') {
    const m = /^(\d+)(?:\.(\d+))?([KMG]?)(?:bps)?$/.exec(text);
    bps = m ? scaled(m[1]!, m[2], RATE_BPS[m[3]!]!) : null;
  }
  if (bps === null || bps <= 0) throw new UnitError(EXPECT.rate, text);
  return bps;
}

/** A non-negative integer, or `4MB` / `1.5KB` (decimal) / `1MiB` (binary) / `64B` → bytes. */
export function parseBytes(value: string | number): number {
  let bytes: number | null = null;
  if (typeof value === 'number') {
    bytes = Number.isSafeInteger(value) && value >= 0 ? value : null;
  } else if (typeof value === 'string') {
    const m = /^(\d+)(?:\.(\d+))?(B|KB|MB|GB|KiB|MiB|GiB)?$/.exec(value);
    bytes = m ? scaled(m[1]!, m[2], SIZE_BYTES[m[3] ?? '']!) : null;
  }
  if (bytes === null) throw new UnitError(EXPECT.bytes, value);
  return bytes;
}

/** `0.01`, `0`, `1`, or a fraction `1/256` (how loss rates are quoted, Guo et al. 2016) → 0..1. */
export function parseProbability(value: string | number): number {
  let p = Number.NaN;
  if (typeof value === 'number') {
    p = value;
  } else if (typeof value === 'string') {
    const fraction = /^(\d+)\/(\d+)$/.exec(value);
    if (fraction) p = Number(fraction[1]) / Number(fraction[2]);
    else if (/^\d+(?:\.\d+)?$/.test(value)) p = Number(value);
  }
  if (!(p >= 0 && p <= 1)) throw new UnitError(EXPECT.probability, value);
  return p;
}

/** Picoseconds → the shortest exact string: 1500000 → `1.5us` (kept in @rocelab/sim, beside the clock). */
export { formatDuration } from '@rocelab/sim';

/** The parsers bundled for a workload kind's resolver (dependency injection; see extensions.ts). */
export const UNITS = {
  duration: parseDuration,
  rate: parseRate,
  bytes: parseBytes,
  probability: parseProbability,
} as const;
