/** Small helpers shared by the benchmarks. Everything human-readable goes to stderr. */

export function note(text: string): void {
  process.stderr.write(`bench: ${text}\n`);
}

/** The median (the mean of the middle two for an even count), rounded to an integer. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return Math.round(sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** Rounds to `digits` significant digits: more would be noise. */
export function sig(value: number, digits = 3): number {
  return value === 0 ? 0 : Number(value.toPrecision(digits));
}
