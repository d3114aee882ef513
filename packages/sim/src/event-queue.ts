/**
 * A binary min-heap of events ordered by `compareEvents`. Keys are unique (origin, seq), so
 * the order is total and the heap's own tie behaviour never matters.
 */
import type { SimEvent } from './event.js';

export class EventQueue {
  private heap: SimEvent[] = [];
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
    heap.push(event);
    rise(heap, heap.length - 1, event);
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
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    const n = heap.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && before(heap[right]!, heap[left]!) ? right : left;
      heap[i] = heap[child]!;
      i = child;
    }
    rise(heap, i, last);
    return top;
  }

  /** Every queued event, in no particular order (for audits, not for scheduling). */
  *[Symbol.iterator](): IterableIterator<SimEvent> {
    yield* this.heap;
  }
}

/** Put `event` in the hole at `i`, moving it up past every parent that comes after it. */
function rise(heap: SimEvent[], i: number, event: SimEvent): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent]!;
    if (before(p, event)) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = event;
}

/** Inlined `compareEvents(a, b) < 0`: this is the engine's hottest comparison. */
function before(a: SimEvent, b: SimEvent): boolean {
  if (a.timePs !== b.timePs) return a.timePs < b.timePs;
  if (a.cls !== b.cls) return a.cls < b.cls;
  if (a.origin !== b.origin) return a.origin < b.origin;
  return a.seq < b.seq;
}
