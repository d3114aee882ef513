import { performance } from 'node:perf_hooks';

/**
 * A one-way channel between two threads of one process (`--threads K`): a ring of bytes in a
 * `SharedArrayBuffer`, one writer and one reader, messages framed by a 4-byte length. The two
 * cursors count bytes written and read (mod 2³²); the reader sleeps on the write cursor with
 * `Atomics.wait` and the writer wakes it with `Atomics.notify`, so no socket and no event loop
 * stands between two threads. The writer never waits: a window's message larger than the
 * room left is a protocol error the caller reports, not a stall, because both ends write
 * before they read and a writer waiting for room would wait for a reader that waits for it.
 */

/** Int32 slots of the header: bytes written and bytes read, each mod 2³². */
const WRITTEN = 0;
const READ = 1;
const HEADER_BYTES = 8;
const LENGTH_BYTES = 4;

/** What a ring is made of, as sent to a thread (a `SharedArrayBuffer` crosses as a reference). */
export interface RingMemory {
  buffer: SharedArrayBuffer;
}

export class RingFull extends Error {}

export class ThreadRing {
  private readonly cursors: Int32Array;
  private readonly data: Uint8Array;
  readonly capacity: number;

  static allocate(capacity: number): RingMemory {
    // A power of two divides 2³², so a cursor's place in the ring stays right when the cursor wraps.
    if (!Number.isSafeInteger(capacity) || capacity < 64 || capacity > 2 ** 30 || (capacity & (capacity - 1)) !== 0) {
      throw new RangeError(`ring capacity must be a power of two in [64, 2³⁰] bytes, got ${capacity}`);
    }
    return { buffer: new SharedArrayBuffer(HEADER_BYTES + capacity) };
  }

  constructor(memory: RingMemory) {
    this.cursors = new Int32Array(memory.buffer, 0, 2);
    this.data = new Uint8Array(memory.buffer, HEADER_BYTES);
    this.capacity = this.data.length;
  }

  /** Bytes written and not yet read. */
  get pending(): number {
    return (Atomics.load(this.cursors, WRITTEN) - Atomics.load(this.cursors, READ)) >>> 0;
  }

  /** Appends one message; throws `RingFull` when it does not fit in the room left. */
  write(message: Uint8Array): void {
    const need = LENGTH_BYTES + message.length;
    if (need > this.capacity - this.pending) {
      throw new RingFull(`a message of ${message.length} bytes does not fit the ring's ${this.capacity - this.pending} free bytes (of ${this.capacity})`);
    }
    const at = Atomics.load(this.cursors, WRITTEN) >>> 0;
    const length = new Uint8Array(LENGTH_BYTES);
    new DataView(length.buffer).setUint32(0, message.length, true);
    this.copyIn(at, length);
    this.copyIn(at + LENGTH_BYTES, message);
    // The store publishes the bytes: Atomics order the plain writes before it for the reader.
    Atomics.store(this.cursors, WRITTEN, (at + need) | 0);
    Atomics.notify(this.cursors, WRITTEN);
  }

  /** The next message, or null when none is complete yet. */
  read(): Uint8Array | null {
    const at = Atomics.load(this.cursors, READ) >>> 0;
    const available = ((Atomics.load(this.cursors, WRITTEN) >>> 0) - at) >>> 0;
    if (available < LENGTH_BYTES) return null;
    const length = this.copyOut(at, LENGTH_BYTES);
    const size = new DataView(length.buffer).getUint32(0, true);
    // The writer publishes whole messages, so a length seen means its bytes are there.
    const message = this.copyOut(at + LENGTH_BYTES, size);
    Atomics.store(this.cursors, READ, (at + LENGTH_BYTES + size) | 0);
    return message;
  }

  /**
   * Sleeps until something was written after `seen` (a value of `writtenMark`), at most
   * `timeoutMs`: false on time-out. It spins for up to `spinMs` first: a sleeping thread's wake
   * costs 0.1–0.3 ms on a virtual machine, as much as a window's work, while the other
   * thread's message is usually that close.
   */
  waitForData(seen: number, timeoutMs: number, spinMs = 0): boolean {
    if (spinMs > 0) {
      const until = performance.now() + spinMs;
      do {
        for (let i = 0; i < 256; i++) if (Atomics.load(this.cursors, WRITTEN) !== seen) return true;
      } while (performance.now() < until);
    }
    return Atomics.wait(this.cursors, WRITTEN, seen, timeoutMs) !== 'timed-out';
  }

  /** The write cursor, to wait on (`waitForData`). */
  get writtenMark(): number {
    return Atomics.load(this.cursors, WRITTEN);
  }

  private copyIn(at: number, bytes: Uint8Array): void {
    const start = at % this.capacity;
    const first = Math.min(bytes.length, this.capacity - start);
    this.data.set(bytes.subarray(0, first), start);
    if (first < bytes.length) this.data.set(bytes.subarray(first), 0);
  }

  private copyOut(at: number, size: number): Uint8Array {
    const start = at % this.capacity;
    const out = new Uint8Array(size);
    const first = Math.min(size, this.capacity - start);
    out.set(this.data.subarray(start, start + first), 0);
    if (first < size) out.set(this.data.subarray(0, size - first), first);
    return out;
  }
}
