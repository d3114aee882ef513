/**
 * 24-bit packet sequence numbers (PHYSICS §5.2): arithmetic modulo 2^24. `a` is after `b`
 * when 0 < (a − b) mod 2^24 < 2^23 (IBTA; Linux `BTH_PSN_MASK`).
 */
export const PSN_MASK = 0xffffff;
const HALF = 0x800000;

/** (a − b) mod 2^24. psnDiff(0x000002, 0xFFFFFE) = 4 (PHYSICS §7a #6). */
export const psnDiff = (a: number, b: number): number => (a - b) & PSN_MASK;

export const psnAdd = (a: number, n: number): number => (a + n) & PSN_MASK;

export const nextPsn = (psn: number): number => (psn + 1) & PSN_MASK;

/** `a` comes after `b` in sequence space. */
export const psnAfter = (a: number, b: number): boolean => {
  const d = psnDiff(a, b);
  return d !== 0 && d < HALF;
};

/** `a` comes before `b` in sequence space. */
export const psnBefore = (a: number, b: number): boolean => psnAfter(b, a);
