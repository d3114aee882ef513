/**
 * A FIFO of bytes kept as the chunks they were written in (a stream's send and receive buffers,
 * stream.ts): appending never copies, reading copies only what it returns.
 */
export class ByteQueue {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes of `chunks[0]` already taken. */
  private headOffset = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  /** A copy of `lengthBytes` bytes from `offsetBytes` on (both within the queue). */
  peek(offsetBytes: number, lengthBytes: number): Uint8Array {
    if (offsetBytes < 0 || lengthBytes < 0 || offsetBytes + lengthBytes > this.size) {
      throw new RangeError(`ByteQueue.peek(${offsetBytes}, ${lengthBytes}) outside its ${this.size} bytes`);
    }
    const out = new Uint8Array(lengthBytes);
    let skip = offsetBytes + this.headOffset;
    let at = 0;
    for (const chunk of this.chunks) {
      if (at === lengthBytes) break;
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      const part = chunk.subarray(skip, Math.min(chunk.length, skip + lengthBytes - at));
      out.set(part, at);
      at += part.length;
      skip = 0;
    }
    return out;
  }

  /** Drops the first `count` bytes (at most all). */
  drop(count: number): void {
    let left = Math.min(count, this.size);
    this.size -= left;
    while (left > 0) {
      const head = this.chunks[0]!;
      const rest = head.length - this.headOffset;
      if (left < rest) {
        this.headOffset += left;
        return;
      }
      left -= rest;
      this.chunks.shift();
      this.headOffset = 0;
    }
  }

  /** Takes (copies and drops) up to `maxBytes` from the front. */
  take(maxBytes: number): Uint8Array {
    const n = Math.min(maxBytes, this.size);
    const out = this.peek(0, n);
    this.drop(n);
    return out;
  }

  clear(): void {
    this.drop(this.size);
  }
}
