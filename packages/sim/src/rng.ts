/**
 * Seeded random streams, one per (pod seed, node name, purpose) (DESIGN §3), so adding a
 * consumer of randomness in one place never shifts the draws seen anywhere else.
 *
 * Generator: xoshiro128** (Blackman & Vigna), 32-bit integer arithmetic only, so every
 * platform produces the same sequence. The 128-bit state comes from SHA-256 of the key.
 */
import { createHash } from 'node:crypto';

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number, node: string, purpose: string) {
    const digest = createHash('sha256').update(`rocelab-rng\0${seed}\0${node}\0${purpose}`).digest();
    this.s0 = digest.readUInt32LE(0);
    this.s1 = digest.readUInt32LE(4);
    this.s2 = digest.readUInt32LE(8);
    this.s3 = digest.readUInt32LE(12);
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // the all-zero state is a fixed point
  }

  /** A uniform unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** A uniform number in [0, 1) with 53 random bits. */
  nextFloat(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** True with probability `p` (one draw, even for p of 0 or 1, so call sites stay aligned). */
  bernoulli(p: number): boolean {
    return this.nextFloat() < p;
  }

  /** A uniform integer in [lo, hi], both inclusive. */
  uniformInt(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new RangeError(`uniformInt needs integers lo ≤ hi, got ${lo}, ${hi}`);
    }
    return lo + Math.floor(this.nextFloat() * (hi - lo + 1));
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
