/**
 * InfiniBand link-level credit flow control (IBA vol. 1 §7.9.4; issue 14: "no device sends
 * unless it has permission … the receiver has granted credit"), per virtual lane, as two
 * deterministic state machines: one for each end of a link direction.
 *
 * Buffer space is counted in 64-byte blocks. The sender keeps FCTBS, the total blocks it has
 * sent, and the receiver keeps ABR, the total blocks it has received. The receiver's flow-control
 * packets carry FCCL = ABR + the blocks it has free. Both counters travel as 12-bit values, and the
 * sender may start a packet of B blocks only if (FCCL − (FCTBS + B)) mod 4096 ≤ 2048 (IBA
 * C7-61): it never sends into space the receiver has not granted, so nothing is ever dropped for
 * want of buffer and no pause frame exists.
 */

/** IBA: credits are 64-byte blocks; FCTBS, ABR and FCCL are 12 bits wide. */
export const CREDIT_BLOCK_BYTES = 64;
const MOD = 4096;
const HALF = 2048;

/** Blocks a packet of `bytes` takes (a partial block takes a whole one). */
export function creditBlocks(bytes: number): number {
  return Math.ceil(bytes / CREDIT_BLOCK_BYTES);
}

/** The sending end of one virtual lane. */
export class CreditSender {
  /** FCTBS, 12 bits. */
  private fctbs = 0;
  /** The last FCCL received, 12 bits. */
  private fccl: number;

  /** `initialCreditBlocks`: what the receiver's first flow-control packet grants (its buffer). */
  constructor(initialCreditBlocks: number) {
    if (!(Number.isInteger(initialCreditBlocks) && initialCreditBlocks >= 0 && initialCreditBlocks <= HALF)) {
      throw new RangeError(`credit sender: initial credit must be 0..2048 blocks, got ${initialCreditBlocks}`);
    }
    this.fccl = initialCreditBlocks % MOD;
  }

  /** Blocks the receiver has granted and this end has not used; negative would mean it sent beyond the grant. */
  get availableBlocks(): number {
    const d = (this.fccl - this.fctbs + MOD) % MOD;
    return d <= HALF ? d : d - MOD;
  }

  /** IBA C7-61: may a packet of `bytes` start now? */
  canSend(bytes: number): boolean {
    return (this.fccl - (this.fctbs + creditBlocks(bytes)) + 2 * MOD) % MOD <= HALF;
  }

  /** A packet of `bytes` starts: its blocks are spent. Throws when it had no credit (a bug in the caller). */
  send(bytes: number): void {
    if (!this.canSend(bytes)) throw new Error(`credit sender: a ${bytes} B packet without credit (${this.availableBlocks} blocks left)`);
    this.fctbs = (this.fctbs + creditBlocks(bytes)) % MOD;
  }

  /** A flow-control packet arrived with this FCCL (12 bits). */
  onUpdate(fccl: number): void {
    if (!(Number.isInteger(fccl) && fccl >= 0 && fccl < MOD)) throw new RangeError(`credit sender: FCCL must be 0..4095, got ${fccl}`);
    this.fccl = fccl;
  }
}

/** The receiving end of one virtual lane: a buffer of `bufferBlocks`. */
export class CreditReceiver {
  /** ABR, 12 bits. */
  private abr = 0;
  private usedBlocks = 0;
  /** The most blocks ever held at once. */
  peakBlocks = 0;

  constructor(readonly bufferBlocks: number) {
    if (!(Number.isInteger(bufferBlocks) && bufferBlocks > 0 && bufferBlocks <= HALF)) throw new RangeError(`credit receiver: buffer must be 1..2048 blocks, got ${bufferBlocks}`);
  }

  get heldBlocks(): number {
    return this.usedBlocks;
  }

  /** A packet of `bytes` arrived. Throws if it does not fit: the sender broke the credit rule. */
  onPacket(bytes: number): void {
    const blocks = creditBlocks(bytes);
    if (this.usedBlocks + blocks > this.bufferBlocks) throw new Error(`credit receiver: a ${bytes} B packet overflows the buffer (${this.usedBlocks} + ${blocks} > ${this.bufferBlocks} blocks)`);
    this.usedBlocks += blocks;
    this.peakBlocks = Math.max(this.peakBlocks, this.usedBlocks);
    this.abr = (this.abr + blocks) % MOD;
  }

  /** A packet of `bytes` left the buffer (forwarded, or taken by the host). */
  onDrain(bytes: number): void {
    const blocks = creditBlocks(bytes);
    if (blocks > this.usedBlocks) throw new Error(`credit receiver: drained ${blocks} blocks, holds ${this.usedBlocks}`);
    this.usedBlocks -= blocks;
  }

  /** The FCCL its next flow-control packet carries: ABR plus the free blocks, 12 bits. */
  fccl(): number {
    return (this.abr + this.bufferBlocks - this.usedBlocks) % MOD;
  }
}
