/**
 * Virtual time is an integer number of picoseconds (DESIGN §3). A JS number holds it exactly
 * up to 2^53 ps ≈ 2.5 hours of virtual time. Names carry the unit (`timePs`, `latencyPs`).
 */

export const PS_PER_NS = 1_000;
export const PS_PER_US = 1_000_000;
export const PS_PER_MS = 1_000_000_000;
export const PS_PER_S = 1_000_000_000_000;

/** The largest virtual time rocelab represents exactly. */
export const MAX_TIME_PS = Number.MAX_SAFE_INTEGER;

export function assertTimePs(timePs: number, what = 'time'): void {
  if (!Number.isSafeInteger(timePs) || timePs < 0) {
    throw new RangeError(`${what} must be a non-negative integer number of picoseconds, got ${timePs}`);
  }
}

export const psToSeconds = (timePs: number): number => timePs / PS_PER_S;
export const psToNs = (timePs: number): number => timePs / PS_PER_NS;

/**
 * Serialization time of `bytes` at `rateBps`, in ps. Exact when 8e12 / rate is an integer
 * (every rate from 1 Gb/s to 1.6 Tb/s that is a power-of-ten multiple of 25 or 40…); otherwise
 * rounded up, deterministically, so a frame never finishes before its last bit.
 */
export function serializationPs(bytes: number, rateBps: number): number {
  const perByte = 8e12 / rateBps;
  return Number.isInteger(perByte) ? bytes * perByte : Math.ceil((bytes * 8e12) / rateBps);
}

const FORMAT_UNITS: ReadonlyArray<[string, number]> = [['s', PS_PER_S], ['ms', PS_PER_MS], ['us', PS_PER_US], ['ns', PS_PER_NS], ['ps', 1]];

/** Picoseconds → the shortest exact string in the largest fitting unit: 1500000 → `1.5us`. */
export function formatDuration(ps: number): string {
  if (!Number.isSafeInteger(ps) || ps < 0) throw new RangeError(`not a duration in ps: ${ps}`);
  const [unit, scale] = FORMAT_UNITS.find(([, s]) => ps >= s) ?? ['ps', 1];
  const whole = Math.floor(ps / scale);
  const rest = ps - whole * scale;
  if (rest === 0) return `${whole}${unit}`;
  const digits = String(scale).length - 1;
  const frac = String(rest).padStart(digits, '0').replace(/0+$/, '');
  return `${whole}.${frac}${unit}`;
}

