/**
 * A binary min-heap of events ordered by `compareEvents`. Keys are unique (origin, seq), so
 * the order is total and the heap's own tie behaviour never matters.
 *
 * Each slot's time is also kept in a typed array beside the event: nearly every comparison is
 * decided by time alone, and reading it from a dense array of doubles spares the cache miss of
 * loading two events scattered over the heap (a profile of the perf pod put a third of the
 * engine loop's own time on the first field read of that comparison). Events are read only on
 * a tie in time.
 */
import type { SimEvent } from './event.js';

const INITIAL_CAPACITY = 1024;

export class EventQueue {
  private heap: SimEvent[] = [];
  private times = new Float64Array(INITIAL_CAPACITY);
  /** Changes with every push and pop: whoever summarises the queue can tell when to do it again. */
  version = 0;

  get size(): number {
    return this.heap.length;
  }

  peek(): SimEvent | undefined {
    return this.heap[0];
  }

  push(event: SimEvent): void {
    this.version++;
    const heap = this.heap;
    const i = heap.length;
    if (i === this.times.length) this.grow();
    heap.push(event);
    this.rise(i, event, event.timePs);
  }

  /**
   * Floyd's pop: the hole left at the top sinks to a leaf along the smaller children (one
   * comparison per level), then the last event rises from there. The last event is nearly always
   * one of the latest (a frame's arrival a link latency ahead), so it rises a level or two at
   * most, where the textbook sift-down would compare twice per level all the way down.
   */
  pop(): SimEvent | undefined {
    this.version++;
    const heap = this.heap;
    const times = this.times;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    const n = heap.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n) {
        const tr = times[right]!;
        const tl = times[left]!;
        if (tr < tl || (tr === tl && tieBefore(heap[right]!, heap[left]!))) child = right;
      }
      heap[i] = heap[child]!;
      times[i] = times[child]!;
      i = child;
    }
    this.rise(i, last, last.timePs);
    return top;
  }

  /** Every queued event, in no particular order (for audits, not for scheduling). */
  *[Symbol.iterator](): IterableIterator<SimEvent> {
    yield* this.heap;
  }

  /** Put `event` (at `timePs`) in the hole at `i`, moving it up past every parent that comes after it. */
  private rise(i: number, event: SimEvent, timePs: number): void {
    const heap = this.heap;
    const times = this.times;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const tp = times[parent]!;
      if (tp < timePs || (tp === timePs && tieBefore(heap[parent]!, event))) break;
      heap[i] = heap[parent]!;
      times[i] = tp;
      i = parent;
    }
    heap[i] = event;
    times[i] = timePs;
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    times.set(this.times);
    this.times = times;
  }
}

/** `compareEvents(a, b) < 0` for two events at the same time. */
function tieBefore(a: SimEvent, b: SimEvent): boolean {
  if (a.cls !== b.cls) return a.cls < b.cls;
  if (a.origin !== b.origin) return a.origin < b.origin;
  return a.seq < b.seq;
}
