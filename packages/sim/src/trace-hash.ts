/**
 * A node's running hash of the model events it processed (DESIGN §3). Each event is folded
 * as a fixed 48-byte record into a buffer that is fed to SHA-256 when full, so the per-event
 * cost is a few stores; the digest of the stream is the same however it was chunked.
 * Window and lease bookkeeping is never folded: the hash is the same for every mapping.
 */
import { createHash, type Hash } from 'node:crypto';
import type { SimEvent } from './event.js';

const RECORD_BYTES = 48;
const BUFFER_BYTES = RECORD_BYTES * 1365; // ≈ 64 KiB

export class TraceHash {
  private hash: Hash = createHash('sha256');
  private readonly buffer = new ArrayBuffer(BUFFER_BYTES);
  private readonly view = new DataView(this.buffer);
  private readonly bytes = new Uint8Array(this.buffer);
  private offset = 0;
  /** Events folded so far. */
  count = 0;

  fold(event: SimEvent): void {
    if (this.offset === BUFFER_BYTES) this.flush();
    const v = this.view;
    const o = this.offset;
    v.setFloat64(o, event.timePs, true);
    v.setFloat64(o + 8, event.seq, true);
    v.setUint32(o + 16, event.origin, true);
    v.setUint16(o + 20, event.port + 1, true);
    v.setUint16(o + 22, event.kind, true);
    v.setUint32(o + 24, event.cls, true);
    const frame = event.frame;
    if (frame === null) {
      v.setUint32(o + 28, 0, true);
      v.setFloat64(o + 32, event.arg, true);
      v.setFloat64(o + 40, 0, true);
    } else {
      v.setUint32(o + 28, frame.kind | (frame.ecn << 8) | (event.arg << 16), true);
      v.setUint32(o + 32, frame.payloadBytes, true);
      v.setUint32(o + 36, frame.psn, true);
      v.setUint32(o + 40, frame.ipId | (frame.pfcEnable << 16) | (frame.opcode << 24), true);
      v.setUint32(o + 44, frame.dstIp, true);
    }
    this.offset = o + RECORD_BYTES;
    this.count++;
  }

  /** The digest of everything folded so far; folding may continue afterwards. */
  digest(): Uint8Array {
    this.flush();
    return new Uint8Array(this.hash.copy().digest());
  }

  private flush(): void {
    if (this.offset === 0) return;
    this.hash.update(this.bytes.subarray(0, this.offset));
    this.offset = 0;
  }
}

/** The run's trace hash: SHA-256 over each node's name and final digest, in node-index order. */
export function combineTraceHashes(nodes: ReadonlyArray<{ name: string; digest: Uint8Array }>): string {
  const hash = createHash('sha256');
  for (const node of nodes) {
    hash.update(node.name);
    hash.update(new Uint8Array([0]));
    hash.update(node.digest);
  }
  return hash.digest('hex');
}
