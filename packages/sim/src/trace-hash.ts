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
 *
 * The records are little-endian: a float64 time, then eight uint32 words. They are written
 * through typed arrays (a record per frame per hop made the DataView's stores a visible cost);
 * typed arrays store in the machine's order, so a big-endian machine reverses each field's bytes
 * as the buffer is hashed, and every machine folds the same bytes.
 */
import { createHash, type Hash } from 'node:crypto';
import { FrameKind, PFC_PRIORITIES, type Frame } from '@rocelab/wire';

export const TraceRecord = { tx: 1, rx: 2, drop: 3, pause: 4, done: 5, fault: 6 } as const;
export type TraceRecord = (typeof TraceRecord)[keyof typeof TraceRecord];

const RECORD_BYTES = 40;
const RECORD_WORDS = RECORD_BYTES / 4;
const BUFFER_BYTES = RECORD_BYTES * 1638; // ≈ 64 KiB
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class TraceHash {
  private hash: Hash = createHash('sha256');
  private readonly buffer = new ArrayBuffer(BUFFER_BYTES);
  private readonly times = new Float64Array(this.buffer);
  private readonly words32 = new Uint32Array(this.buffer);
  private readonly bytes = new Uint8Array(this.buffer);
  /** The next record's first uint32 word (records are 10 words; the time takes two). */
  private word = 0;
  /** Records folded so far. */
  count = 0;

  /** A frame leaving (`tx`), entering (`rx`) or dropped at (`drop`, `detail` = reason index) `port`. */
  frame(type: TraceRecord, timePs: number, port: number, frame: Frame, detail = 0): void {
    const w = this.head(type, timePs, port);
    const u = this.words32;
    u[w + 3] = frame.kind | (frame.ecn << 8) | (frame.dscp << 10) | (detail << 16);
    u[w + 4] = frame.payloadBytes;
    u[w + 5] = frame.kind === FrameKind.pfc ? quantaWord(frame) : frame.psn;
    u[w + 6] = frame.ipId | (frame.pfcEnable << 16) | (frame.opcode << 24);
    u[w + 7] = frame.dstIp;
    u[w + 8] = frame.destQp;
    u[w + 9] = frame.udpSrcPort | (frame.syndrome << 16);
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

  /** Starts a record (time, type, port) and returns its first word; the caller writes words 3 to 9. */
  private head(type: TraceRecord, timePs: number, port: number): number {
    if (this.word === BUFFER_BYTES / 4) this.flush();
    const w = this.word;
    this.times[w >> 1] = timePs;
    this.words32[w + 2] = type | ((port + 1) << 8);
    this.word = w + RECORD_WORDS;
    this.count++;
    return w;
  }

  private words(type: TraceRecord, timePs: number, port: number, ...words: number[]): void {
    const w = this.head(type, timePs, port);
    for (let i = 0; i < 7; i++) this.words32[w + 3 + i] = (words[i] ?? 0) >>> 0;
  }

  private flush(): void {
    if (this.word === 0) return;
    const bytes = this.bytes.subarray(0, this.word * 4);
    this.hash.update(LITTLE_ENDIAN ? bytes : littleEndianRecords(bytes));
    this.word = 0;
  }
}

/** Records written in a big-endian machine's order, as the little-endian bytes every machine hashes. */
export function littleEndianRecords(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let r = 0; r < bytes.length; r += RECORD_BYTES) {
    for (let i = 0; i < 8; i++) out[r + i] = bytes[r + 7 - i]!;
    for (let w = r + 8; w < r + RECORD_BYTES; w += 4) for (let i = 0; i < 4; i++) out[w + i] = bytes[w + 3 - i]!;
  }
  return out;
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
