/**
 * Impairments of one link direction (DESIGN §5): down, Bernoulli loss, the deterministic
 * IP-ID rule of Guo et al. (SIGCOMM 2016: drop every packet whose IP ID's low byte is 0xFF),
 * and corruption, which the receiver discovers as a bad FCS.
 *
 * Loss and corruption apply to frames with an IP header (data, ACK/NAK, CNP); PFC frames are
 * hop-by-hop MAC control and are lost only when the link is down. Each probability draws from
 * the direction's own stream only when it is non-zero, so enabling an impairment on one link
 * never shifts the draws seen anywhere else.
 */
import { FrameKind, type Frame } from '@rocelab/wire';
import type { Rng } from './rng.js';

export interface ImpairmentConfig {
  down: boolean;
  loss: number;
  dropIpIdLowByte: number | null;
  corrupt: number;
}

export const NO_IMPAIRMENTS: Readonly<ImpairmentConfig> = { down: false, loss: 0, dropIpIdLowByte: null, corrupt: 0 };

/** What happens to a frame that starts serializing: numbers, not strings, on the hot path. */
export const Fate = { deliver: 0, linkDown: 1, loss: 2, corrupt: 3 } as const;
export type Fate = (typeof Fate)[keyof typeof Fate];

export class Impairment {
  private config: ImpairmentConfig;

  constructor(
    config: ImpairmentConfig,
    private readonly rng: Rng,
  ) {
    this.config = checkImpairments(config);
  }

  get down(): boolean {
    return this.config.down;
  }

  set(config: ImpairmentConfig): void {
    this.config = checkImpairments(config);
  }

  setDown(down: boolean): void {
    this.config = { ...this.config, down };
  }

  fate(frame: Frame): Fate {
    const c = this.config;
    if (c.down) return Fate.linkDown;
    if (frame.kind === FrameKind.pfc) return Fate.deliver;
    if (c.dropIpIdLowByte !== null && (frame.ipId & 0xff) === c.dropIpIdLowByte) return Fate.loss;
    if (c.loss > 0 && this.rng.bernoulli(c.loss)) return Fate.loss;
    if (c.corrupt > 0 && this.rng.bernoulli(c.corrupt)) return Fate.corrupt;
    return Fate.deliver;
  }
}

function checkImpairments(c: ImpairmentConfig): ImpairmentConfig {
  const probability = (p: number) => Number.isFinite(p) && p >= 0 && p <= 1;
  if (!probability(c.loss)) throw new RangeError(`impairment loss must be in [0, 1], got ${c.loss}`);
  if (!probability(c.corrupt)) throw new RangeError(`impairment corrupt must be in [0, 1], got ${c.corrupt}`);
  if (c.dropIpIdLowByte !== null && !(Number.isInteger(c.dropIpIdLowByte) && c.dropIpIdLowByte >= 0 && c.dropIpIdLowByte <= 255)) {
    throw new RangeError(`dropIpIdLowByte must be 0..255 or null, got ${c.dropIpIdLowByte}`);
  }
  return { ...c };
}
