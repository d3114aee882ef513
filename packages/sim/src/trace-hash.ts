/**
 * A node's running hash of what can be observed of it (DESIGN §3, issue 27): what leaves or
 * enters its ports and what its users see. Six kinds of record are folded:
 *
 * - `tx`: a frame starts serializing on a port (PFC frames included, with their quanta);
 * - `rx`: a frame arrives intact at a port, before the model sees it;
 * - `drop`: a frame is dropped, with its reason;
 * - `pause`: a received PFC frame turns a priority's pause on, or a RESUME lifts it early;
 * - `done`: a work request completes (queue pair, id, bytes, status);
 * - `fault`: a fault or link-state change applies at the node.
 *
 * Internal events (serialization ends, timers, pause expiries) are not folded, so the engine
 * may merge, split or skip them without changing a run's hash; an internal change that alters
 * a frame's time or content still does. No record carries an event sequence number, which
 * counts internal events.
 *
 * Each record is a fixed 40-byte block in a buffer fed to SHA-256 when full, so a record costs
 * a few stores and the digest of the stream is the same however it was chunked.
 */
import { createHash, type Hash } from 'node:crypto';
import { FrameKind, PFC_PRIORITIES, type Frame } from '@rocelab/wire';

export const TraceRecord = { tx: 1, rx: 2, drop: 3, pause: 4, done: 5, fault: 6 } as const;
export type TraceRecord = (typeof TraceRecord)[keyof typeof TraceRecord];

const RECORD_BYTES = 40;
const BUFFER_BYTES = RECORD_BYTES * 1638; // ≈ 64 KiB

export class TraceHash {
  private hash: Hash = createHash('sha256');
  private readonly buffer = new ArrayBuffer(BUFFER_BYTES);
  private readonly view = new DataView(this.buffer);
  private readonly bytes = new Uint8Array(this.buffer);
  private offset = 0;
  /** Records folded so far. */
  count = 0;

  /** A frame leaving (`tx`), entering (`rx`) or dropped at (`drop`, `detail` = reason index) `port`. */
  frame(type: TraceRecord, timePs: number, port: number, frame: Frame, detail = 0): void {
    const o = this.head(type, timePs, port);
    const v = this.view;
    v.setUint32(o + 12, frame.kind | (frame.ecn << 8) | (frame.dscp << 10) | (detail << 16), true);
    v.setUint32(o + 16, frame.payloadBytes, true);
    v.setUint32(o + 20, frame.kind === FrameKind.pfc ? quantaWord(frame) : frame.psn, true);
    v.setUint32(o + 24, frame.ipId | (frame.pfcEnable << 16) | (frame.opcode << 24), true);
    v.setUint32(o + 28, frame.dstIp, true);
    v.setUint32(o + 32, frame.destQp, true);
    v.setUint32(o + 36, frame.udpSrcPort | (frame.syndrome << 16), true);
  }

  /** A priority's received pause turned on (`on`) or was lifted by a RESUME before it expired. */
  pause(timePs: number, port: number, priority: number, on: boolean): void {
    this.words(TraceRecord.pause, timePs, port, priority, on ? 1 : 0, 0, 0);
  }

  /** A work request of queue pair `qpn` completed: `status` 0 for success, else the failure's code. */
  done(timePs: number, qpn: number, wrId: number, bytes: number, status: number): void {
    this.words(TraceRecord.done, timePs, -1, qpn, wrId >>> 0, Math.floor(wrId / 2 ** 32), bytes, status);
  }

  /** A fault (or link-state change) applied: its number in the fault log, its kind and argument. */
  fault(timePs: number, port: number, faultSeq: number, kind: number, arg: number): void {
    this.words(TraceRecord.fault, timePs, port, faultSeq, kind, arg);
  }

  /** The digest of everything folded so far; folding may continue afterwards. */
  digest(): Uint8Array {
    this.flush();
    return new Uint8Array(this.hash.copy().digest());
  }

  /** Starts a record (time, type, port; the rest zero) and returns its offset. */
  private head(type: TraceRecord, timePs: number, port: number): number {
    if (this.offset === BUFFER_BYTES) this.flush();
    const o = this.offset;
    this.view.setFloat64(o, timePs, true);
    this.view.setUint32(o + 8, type | ((port + 1) << 8), true);
    this.offset = o + RECORD_BYTES;
    this.count++;
    return o;
  }

  private words(type: TraceRecord, timePs: number, port: number, ...words: number[]): void {
    const o = this.head(type, timePs, port);
    for (let i = 0; i < 7; i++) this.view.setUint32(o + 12 + 4 * i, (words[i] ?? 0) >>> 0, true);
  }

  private flush(): void {
    if (this.offset === 0) return;
    this.hash.update(this.bytes.subarray(0, this.offset));
    this.offset = 0;
  }
}

/** A PFC frame's quanta in one word (they decide how long the peer pauses). */
function quantaWord(frame: Frame): number {
  let word = 0;
  for (let p = 0; p < PFC_PRIORITIES; p++) word = (Math.imul(word, 31) + (frame.pfcQuanta[p] ?? 0)) >>> 0;
  return word;
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
