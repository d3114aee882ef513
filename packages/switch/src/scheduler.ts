/**
 * The egress scheduler of one switch port (DESIGN §5): strict priority for a few queues (the
 * CNP class by default), then deficit round robin among the others (Shreedhar & Varghese,
 * "Efficient Fair Queuing using Deficit Round Robin", SIGCOMM 1995) with a weight per queue.
 *
 * Pull form: the link's transmitter asks for one item at a time and passes the priorities it
 * may not start (PFC), so a paused queue is skipped instead of blocking the port. The round
 * robin position ("whose turn", "has it had its quantum") survives between calls, so a turn
 * spans as many calls as its deficit allows.
 *
 * Pauses: a queue paused when its turn comes is skipped without a quantum and keeps its
 * deficit, so it earns nothing while paused. A queue paused in the middle of its turn ends the
 * turn keeping its unused credit, capped at one quantum: the credit was granted while it was
 * eligible, and the cap stops a pause that lands after every first packet from building credit.
 * After a resume a queue thus sends at most one quantum more than a normal turn.
 */
import { STRICT_PRIORITIES } from './defaults.js';
import type { ConfigProblem } from './ecn.js';

/** 802.1Qbb: eight priorities, one egress queue each. */
const QUEUES = 8;

export interface SchedulerConfig {
  /** Priorities served strictly before all others, in this order (default [6]: the CNP class). */
  strictPriorities: readonly number[];
  /** DWRR weights of the 8 queues, non-negative integers (strict ones ignored; 0 = never served). */
  weights: readonly number[];
  /** DWRR quantum per unit weight, in bytes. */
  quantumBytes: number;
}

/**
 * Strict priority 6: the CNP class (DESIGN §5, §9). Equal weights: DESIGN §5 gives none.
 * Quantum 1102 B: the largest RoCEv2 data frame at the default 1024 B MTU (payload + 62 B of
 * headers + 16 B RETH, DESIGN §5), so every turn of weight 1 can send at least one frame.
 */
export const DEFAULT_SCHEDULER_CONFIG: Readonly<SchedulerConfig> = Object.freeze({
  strictPriorities: STRICT_PRIORITIES,
  weights: Object.freeze([1, 1, 1, 1, 1, 1, 1, 1]),
  quantumBytes: 1102,
});

export interface QueuedItem<T> {
  item: T;
  sizeBytes: number;
  /** The number given with the item (a switch: its ingress port). */
  tag: number;
}

/** Every problem of a scheduler config (all of them, so a user fixes the file in one pass). */
export function checkSchedulerConfig(c: SchedulerConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  c.strictPriorities.forEach((p, i) => {
    if (!isQueue(p) || c.strictPriorities.indexOf(p) !== i) {
      problems.push({ field: `strictPriorities[${i}]`, expected: 'a priority 0..7, listed once', actual: p });
    }
  });
  if (c.weights.length !== QUEUES) problems.push({ field: 'weights', expected: `${QUEUES} weights`, actual: c.weights.length });
  c.weights.forEach((w, i) => {
    if (!(Number.isSafeInteger(w) && w >= 0)) problems.push({ field: `weights[${i}]`, expected: 'an integer ≥ 0', actual: w });
  });
  if (!(Number.isSafeInteger(c.quantumBytes) && c.quantumBytes > 0)) {
    problems.push({ field: 'quantumBytes', expected: 'an integer number of bytes > 0', actual: c.quantumBytes });
  }
  return problems;
}

export class EgressScheduler<T> {
  private readonly fifos: Fifo<T>[] = Array.from({ length: QUEUES }, () => new Fifo<T>());
  private readonly strict: readonly number[];
  /** Bytes of credit one turn adds, per queue; 0 for queues DWRR does not serve. */
  private readonly grantBytes: number[];
  private readonly deficitBytes: number[] = new Array<number>(QUEUES).fill(0);
  /** Bit q set = DWRR serves queue q (not strict, weight > 0). */
  private readonly dwrrMask: number;
  /** Bit q set = queue q holds items. */
  private nonEmptyMask = 0;
  /** The most bytes each queue ever held. */
  private readonly peak: number[] = new Array<number>(QUEUES).fill(0);
  private current = 0;
  /** Whether `current` has had its quantum for the turn in progress. */
  private inTurn = false;

  constructor(config: SchedulerConfig) {
    const problems = checkSchedulerConfig(config);
    if (problems.length > 0) {
      throw new RangeError(`scheduler config: ${problems.map((p) => `${p.field}: expected ${p.expected}, got ${String(p.actual)}`).join('; ')}`);
    }
    this.strict = [...config.strictPriorities];
    this.grantBytes = config.weights.map((w, q) => (this.strict.includes(q) ? 0 : w * config.quantumBytes));
    this.dwrrMask = this.grantBytes.reduce((mask, grant, q) => (grant > 0 ? mask | (1 << q) : mask), 0);
  }

  /** What the last `take` returned: its queue, size and tag. */
  takenQueue = -1;
  takenBytes = 0;
  takenTag = 0;

  /** Append an item of `sizeBytes` to queue `queue` (0..7), with a number that comes back with it (`tag`). */
  enqueue(queue: number, item: T, sizeBytes: number, tag = 0): void {
    if (!(Number.isSafeInteger(sizeBytes) && sizeBytes > 0)) throw new RangeError(`scheduler: item size must be a positive integer, got ${sizeBytes}`);
    const fifo = this.fifo(queue);
    fifo.push(item, sizeBytes, tag);
    this.nonEmptyMask |= 1 << queue;
    if (fifo.bytes > this.peak[queue]!) this.peak[queue] = fifo.bytes;
  }

  /**
   * The next item to send, removed: strict queues first (in order), then DWRR among non-empty
   * queues whose bit is clear in `pausedMask` (strict queues honour the mask too: a paused
   * priority may not start); null if nothing is eligible.
   */
  dequeue(pausedMask: number): (QueuedItem<T> & { queue: number }) | null {
    const item = this.take(pausedMask);
    return item === null ? null : { item, queue: this.takenQueue, sizeBytes: this.takenBytes, tag: this.takenTag };
  }

  /**
   * `dequeue` without the record: the item, its queue, size and tag left in `takenQueue`,
   * `takenBytes` and `takenTag` (a switch takes one per frame it sends: nothing allocated).
   */
  take(pausedMask: number): T | null {
    const ready = this.nonEmptyMask & ~pausedMask;
    const strict = this.strict;
    for (let i = 0; i < strict.length; i++) {
      const q = strict[i]!;
      if ((ready >> q) & 1) return this.pop(q);
    }
    const q = this.pickDwrr(ready & this.dwrrMask);
    if (q < 0) return null;
    const item = this.pop(q);
    this.deficitBytes[q]! -= this.takenBytes;
    if (this.fifos[q]!.length === 0) {
      this.deficitBytes[q] = 0; // classic DRR: an emptied queue forfeits its deficit
      this.nextTurn();
    }
    return item;
  }

  /** Remove and return every item of a queue, oldest first (the PFC watchdog's drop action). */
  flush(queue: number): Array<QueuedItem<T>> {
    const items = this.fifo(queue).drain();
    this.nonEmptyMask &= ~(1 << queue);
    this.deficitBytes[queue] = 0;
    return items;
  }

  /** Items in one queue, or in all. */
  length(queue?: number): number {
    if (queue !== undefined) return this.fifo(queue).length;
    return this.fifos.reduce((sum, f) => sum + f.length, 0);
  }

  /** The queues holding items, as a bit mask (bit q = queue q). */
  nonEmptyQueues(): number {
    return this.nonEmptyMask;
  }

  /** Bytes queued in one queue. */
  bytes(queue: number): number {
    return this.fifo(queue).bytes;
  }

  /** The most bytes one queue ever held. */
  peakBytes(queue: number): number {
    this.fifo(queue);
    return this.peak[queue]!;
  }

  private fifo(queue: number): Fifo<T> {
    if (!isQueue(queue)) throw new RangeError(`scheduler: queue must be 0..7, got ${queue}`);
    return this.fifos[queue]!;
  }

  /** The queue DWRR serves next among `eligible` (a bitmask), updating turns and deficits; -1 if none. */
  private pickDwrr(eligible: number): number {
    if (eligible === 0) return -1;
    let fastForwarded = false;
    for (let visits = 0; ; visits++) {
      const q = this.current;
      const ok = (eligible >> q) & 1;
      if (this.inTurn) {
        if (ok && this.fifos[q]!.headSize() <= this.deficitBytes[q]!) return q;
        // Turn over: the head does not fit (the remainder carries over, as in DRR), or the
        // queue was paused mid-turn (keep at most one quantum: see the header).
        if (!ok) this.deficitBytes[q] = Math.min(this.deficitBytes[q]!, this.grantBytes[q]!);
        this.nextTurn();
      } else if (ok) {
        if (visits >= QUEUES && !fastForwarded) {
          this.skipIdleRounds(eligible);
          fastForwarded = true;
        }
        this.deficitBytes[q]! += this.grantBytes[q]!;
        this.inTurn = true;
      } else {
        this.nextTurn();
      }
    }
  }

  /**
   * Heads larger than a quantum take several rounds of grants before anything fits. Grant at
   * once the rounds in which no queue could send (the same deficits the loop would reach), so
   * a dequeue stays O(1) whatever the ratio of item size to quantum.
   */
  private skipIdleRounds(eligible: number): void {
    let rounds = Infinity;
    for (let q = 0; q < QUEUES; q++) {
      if (!((eligible >> q) & 1)) continue;
      const missing = this.fifos[q]!.headSize() - this.deficitBytes[q]!;
      rounds = Math.min(rounds, Math.max(1, Math.ceil(missing / this.grantBytes[q]!)));
    }
    for (let q = 0; q < QUEUES; q++) {
      if ((eligible >> q) & 1) this.deficitBytes[q]! += (rounds - 1) * this.grantBytes[q]!;
    }
  }

  private nextTurn(): void {
    this.current = (this.current + 1) % QUEUES;
    this.inTurn = false;
  }

  private pop(q: number): T {
    const fifo = this.fifos[q]!;
    this.takenQueue = q;
    this.takenBytes = fifo.headSize();
    this.takenTag = fifo.headTag();
    const item = fifo.shift();
    if (fifo.length === 0) this.nonEmptyMask &= ~(1 << q);
    return item;
  }
}

function isQueue(q: number): boolean {
  return Number.isInteger(q) && q >= 0 && q < QUEUES;
}

/**
 * A FIFO in a ring that doubles when full: push and shift are O(1) and allocate nothing in
 * the steady state (a queue that empties and refills reuses its slots).
 */
class Fifo<T> {
  private items: Array<T | undefined> = new Array<T | undefined>(16);
  private sizes = new Float64Array(16);
  private tags = new Int32Array(16);
  private head = 0;
  length = 0;
  bytes = 0;

  push(item: T, sizeBytes: number, tag: number): void {
    if (this.length === this.items.length) this.grow();
    const tail = (this.head + this.length) & (this.items.length - 1);
    this.items[tail] = item;
    this.sizes[tail] = sizeBytes;
    this.tags[tail] = tag;
    this.length++;
    this.bytes += sizeBytes;
  }

  /** Size of the oldest item; only called on a non-empty FIFO. */
  headSize(): number {
    return this.sizes[this.head]!;
  }

  /** Tag of the oldest item; only called on a non-empty FIFO. */
  headTag(): number {
    return this.tags[this.head]!;
  }

  /** Remove the oldest item (its size is `headSize()` before the call); only on a non-empty FIFO. */
  shift(): T {
    const head = this.head;
    const item = this.items[head] as T;
    this.items[head] = undefined; // let the frame be collected
    this.bytes -= this.sizes[head]!;
    this.head = (head + 1) & (this.items.length - 1);
    if (--this.length === 0) {
      this.head = 0;
      this.bytes = 0;
    }
    return item;
  }

  drain(): Array<QueuedItem<T>> {
    const out: Array<QueuedItem<T>> = [];
    while (this.length > 0) {
      const sizeBytes = this.headSize();
      const tag = this.headTag();
      out.push({ item: this.shift(), sizeBytes, tag });
    }
    return out;
  }

  /** Twice the slots, the items moved to the front in order. */
  private grow(): void {
    const capacity = this.items.length * 2;
    const items = new Array<T | undefined>(capacity);
    const sizes = new Float64Array(capacity);
    const tags = new Int32Array(capacity);
    for (let i = 0; i < this.length; i++) {
      const from = (this.head + i) & (this.items.length - 1);
      items[i] = this.items[from];
      sizes[i] = this.sizes[from]!;
      tags[i] = this.tags[from]!;
    }
    this.items = items;
    this.sizes = sizes;
    this.tags = tags;
    this.head = 0;
  }
}
