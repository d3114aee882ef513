/**
 * One FIFO per egress port over a shared byte budget: the first-cut switch queueing (the
 * switch dataplane issue replaces it with 8 priority queues behind an MMU). A FIFO serves
 * its head only: when the head's priority is paused the port waits (head-of-line blocking,
 * as a single queue would).
 */
import type { Frame } from '@rocelab/wire';

export class PortFifo {
  private readonly frames: Frame[] = [];
  private readonly sizes: number[] = [];
  private head = 0;
  bytes = 0;

  get length(): number {
    return this.frames.length - this.head;
  }

  push(frame: Frame, sizeBytes: number): void {
    this.frames.push(frame);
    this.sizes.push(sizeBytes);
    this.bytes += sizeBytes;
  }

  peek(): Frame | null {
    return this.head < this.frames.length ? this.frames[this.head]! : null;
  }

  /** Remove the head; returns its size in bytes. */
  shift(): number {
    const size = this.sizes[this.head]!;
    this.head++;
    this.bytes -= size;
    if (this.head > 1024 && this.head * 2 > this.frames.length) {
      this.frames.splice(0, this.head);
      this.sizes.splice(0, this.head);
      this.head = 0;
    }
    return size;
  }
}
