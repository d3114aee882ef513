import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SCHEDULER_CONFIG, EgressScheduler, checkSchedulerConfig, type SchedulerConfig } from './scheduler.js';

const NONE_PAUSED = 0;
const bit = (q: number) => 1 << q;

/** Weights for queues 0.. (the rest 1), no strict queue unless given. */
function config(weights: number[], quantumBytes: number, strictPriorities: number[] = []): SchedulerConfig {
  return { strictPriorities, weights: [...weights, ...Array<number>(8 - weights.length).fill(1)], quantumBytes };
}

/**
 * Keeps the given queues backlogged (each item sent from one is replaced by a new item of the
 * size `size(queue, k)` gives for the queue's k-th item) and records what left.
 */
class Backlog {
  readonly sent: number[] = [];
  readonly bytesSent = new Array<number>(8).fill(0);
  private readonly count = new Array<number>(8).fill(0);

  constructor(
    readonly s: EgressScheduler<number>,
    private readonly queues: number[],
    private readonly size: (queue: number, k: number) => number = () => 1000,
  ) {
    for (const q of queues) for (let i = 0; i < 4; i++) this.add(q);
  }

  private add(q: number): void {
    this.s.enqueue(q, this.count[q]!, this.size(q, this.count[q]!));
    this.count[q]!++;
  }

  run(n: number, pausedMask = NONE_PAUSED): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const d = this.s.dequeue(pausedMask);
      assert.ok(d, 'a backlogged scheduler always has something eligible');
      out.push(d.queue);
      this.bytesSent[d.queue]! += d.sizeBytes;
      if (this.queues.includes(d.queue)) this.add(d.queue);
    }
    for (const q of out) this.sent.push(q);
    return out;
  }
}

const countOf = (queues: number[], q: number) => queues.filter((x) => x === q).length;

function assertShares(actual: number[], expected: number[], what: string): void {
  const total = actual.reduce((a, b) => a + b, 0);
  expected.forEach((share, q) => {
    const got = actual[q]! / total;
    assert.ok(Math.abs(got - share) <= 0.01 * share, `${what}: queue ${q} got ${got}, expected ${share} ± 1 %`);
  });
}

test('FIFO order within a queue, and length/bytes bookkeeping', () => {
  const s = new EgressScheduler<string>(DEFAULT_SCHEDULER_CONFIG);
  s.enqueue(3, 'a', 100);
  s.enqueue(3, 'b', 200);
  s.enqueue(0, 'x', 50);
  assert.equal(s.length(), 3);
  assert.equal(s.length(3), 2);
  assert.equal(s.bytes(3), 300);
  assert.equal(s.bytes(0), 50);
  const out = [s.dequeue(NONE_PAUSED), s.dequeue(NONE_PAUSED), s.dequeue(NONE_PAUSED)];
  assert.deepEqual(out.filter((d) => d!.queue === 3).map((d) => [d!.item, d!.sizeBytes]), [['a', 100], ['b', 200]]);
  assert.equal(s.dequeue(NONE_PAUSED), null);
  assert.equal(s.length(), 0);
  assert.equal(s.bytes(3), 0);
  // The peak is the high-water mark: it stays after the queue drains.
  assert.deepEqual([s.peakBytes(3), s.peakBytes(0), s.peakBytes(1)], [300, 50, 0]);
});

test('FIFO order survives compaction of a long queue filled and drained concurrently', () => {
  const s = new EgressScheduler<number>(DEFAULT_SCHEDULER_CONFIG);
  let next = 0;
  let expected = 0;
  for (let i = 0; i < 5000; i++) s.enqueue(2, next++, 100);
  for (let i = 0; i < 20_000; i++) {
    s.enqueue(2, next++, 100);
    if (i % 3 !== 0) assert.equal(s.dequeue(NONE_PAUSED)!.item, expected++);
  }
  while (s.length(2) > 0) assert.equal(s.dequeue(NONE_PAUSED)!.item, expected++);
  assert.equal(expected, next);
});

test('a strict queue goes first even while DWRR queues are backlogged, and strict queues in list order', () => {
  const s = new EgressScheduler<number>(DEFAULT_SCHEDULER_CONFIG);
  const b = new Backlog(s, [0, 1, 2, 3]);
  b.run(5);
  for (let i = 0; i < 3; i++) s.enqueue(6, 100 + i, 78); // three CNPs (62 + 16 B)
  assert.deepEqual(b.run(3).slice(0, 3), [6, 6, 6]);
  b.run(7);
  s.enqueue(6, 200, 78);
  assert.deepEqual(b.run(1), [6]);

  const two = new EgressScheduler<string>({ ...DEFAULT_SCHEDULER_CONFIG, strictPriorities: [7, 6] });
  two.enqueue(6, 'six', 78);
  two.enqueue(0, 'zero', 1000);
  two.enqueue(7, 'seven', 78);
  assert.deepEqual([0, 1, 2].map(() => two.dequeue(NONE_PAUSED)!.item), ['seven', 'six', 'zero']);
});

test('a paused strict queue is skipped (a paused priority may not start) and goes first once resumed', () => {
  const s = new EgressScheduler<number>(DEFAULT_SCHEDULER_CONFIG);
  const b = new Backlog(s, [0, 1]);
  s.enqueue(6, -1, 78);
  assert.ok(!b.run(10, bit(6)).includes(6));
  assert.deepEqual(s.dequeue(NONE_PAUSED)?.queue, 6);
});

test('equal weights and equal sizes: exact round robin, 25 % each', () => {
  // Quantum = item size: every turn sends exactly one item.
  const b = new Backlog(new EgressScheduler<number>(config([1, 1, 1, 1], 1000)), [0, 1, 2, 3]);
  assert.deepEqual(b.run(8), [0, 1, 2, 3, 0, 1, 2, 3]);
  b.run(39_992);
  assert.deepEqual([0, 1, 2, 3].map((q) => countOf(b.sent, q)), [10_000, 10_000, 10_000, 10_000]);
});

test('equal weights with the default quantum (1102 B) and 1000 B items still share 25 % each', () => {
  // A turn gets 1102 B of credit: one item, 102 B carried over; every ~10th turn sends two.
  const b = new Backlog(new EgressScheduler<number>(DEFAULT_SCHEDULER_CONFIG), [0, 1, 2, 3]);
  b.run(100_000);
  assertShares([0, 1, 2, 3].map((q) => countOf(b.sent, q)), [0.25, 0.25, 0.25, 0.25], 'packets');
});

test('weights 1:2:3:4 give 10/20/30/40 %', () => {
  // One round = 1 + 2 + 3 + 4 items of 1000 B with a 1000 B quantum; 100,000 items = 10,000 rounds.
  const b = new Backlog(new EgressScheduler<number>(config([1, 2, 3, 4], 1000)), [0, 1, 2, 3]);
  assert.deepEqual(b.run(10), [0, 1, 1, 2, 2, 2, 3, 3, 3, 3]);
  b.run(99_990);
  assert.deepEqual([0, 1, 2, 3].map((q) => countOf(b.sent, q)), [10_000, 20_000, 30_000, 40_000]);
  assertShares([0, 1, 2, 3].map((q) => countOf(b.sent, q)), [0.1, 0.2, 0.3, 0.4], 'packets');
});

test('mixed item sizes: byte shares follow the weights, packet shares do not', () => {
  // Weights 1:1:2, quantum 1500 B. Queue 0 sends 64 B items (~23 a turn), queue 1 1500 B items
  // (1 a turn), queue 2 cycles 64/300/1024/1500 B. Bytes: 25/25/50 %.
  const sizes = [64, 300, 1024, 1500];
  const size = (q: number, k: number) => (q === 0 ? 64 : q === 1 ? 1500 : sizes[k % 4]!);
  const b = new Backlog(new EgressScheduler<number>(config([1, 1, 2], 1500)), [0, 1, 2], size);
  b.run(200_000);
  assertShares(b.bytesSent.slice(0, 3), [0.25, 0.25, 0.5], 'bytes');
  assert.ok(countOf(b.sent, 0) > 20 * countOf(b.sent, 1), 'queue 0 sends far more (small) packets');
});

test('paused queues are skipped and the others share the capacity; unpaused, shares return', () => {
  const b = new Backlog(new EgressScheduler<number>(config([1, 1, 1, 1], 1000)), [0, 1, 2, 3]);
  const paused = b.run(30_000, bit(1));
  assert.deepEqual([0, 1, 2, 3].map((q) => countOf(paused, q)), [10_000, 0, 10_000, 10_000]);
  const resumed = b.run(40_000);
  assert.deepEqual([0, 1, 2, 3].map((q) => countOf(resumed, q)), [10_000, 10_000, 10_000, 10_000]);
  // Two paused: the remaining two split it.
  const two = b.run(20_000, bit(0) | bit(3));
  assert.deepEqual([0, 1, 2, 3].map((q) => countOf(two, q)), [0, 10_000, 10_000, 0]);
});

test('a queue paused mid-turn keeps the credit it was granted, earns none while paused, and bursts at most one quantum beyond a turn', () => {
  // Quantum 3000 B, 1000 B items: a normal turn is 3 items.
  const b = new Backlog(new EgressScheduler<number>(config([1, 1], 3000)), [0, 1]);
  assert.deepEqual(b.run(1), [0]); // q0 granted 3000, sent 1: 2000 left
  // q0 paused: its turn ends keeping 2000; q1 takes two turns; q0 is skipped without credit.
  assert.deepEqual(b.run(6, bit(0)), [1, 1, 1, 1, 1, 1]);
  // Resumed: 2000 + 3000 = 5 items (the rest of the interrupted turn plus one turn), then 3 each.
  assert.deepEqual(b.run(14), [0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]);
});

test('pauses that land after every first packet cannot build credit', () => {
  // Each cycle q0 is granted 3000 B, sends 1000 B and is paused. Uncapped, the 2000 B left
  // would pile up (200 items after 100 cycles); capped at one quantum, q0's first turn after the
  // storm is the 3000 B kept + 3000 B granted = 6 items.
  const b = new Backlog(new EgressScheduler<number>(config([1, 1], 3000)), [0, 1]);
  for (let cycle = 0; cycle < 100; cycle++) {
    while (b.run(1)[0] !== 0);
    b.run(3, bit(0));
  }
  const after = b.run(30);
  let longest = 0;
  for (let i = 0, run = 0; i < after.length; i++) longest = Math.max(longest, (run = after[i] === 0 ? run + 1 : 0));
  assert.equal(longest, 6);
});

test('items larger than a quantum take several rounds, skipped in one step with the same result', () => {
  // Quantum 100 B, 1500 B items, weights 1:3: q0 gets 100 B a round (an item per 15 rounds),
  // q1 300 B (an item per 5). Rounds 5 and 10: q1; round 15: q0 then q1; and so on.
  const b = new Backlog(new EgressScheduler<number>(config([1, 3], 100)), [0, 1], () => 1500);
  assert.deepEqual(b.run(12), [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1]);
  b.run(39_988);
  assertShares(b.bytesSent.slice(0, 2), [0.25, 0.75], 'bytes');
});

test('a tiny quantum does not make dequeue slow (O(1) whatever the item/quantum ratio)', { timeout: 10_000 }, () => {
  // 9000 B items with a 1 B quantum: 9000 rounds per item if the rounds were walked one by one.
  const b = new Backlog(new EgressScheduler<number>(config([1, 2, 3, 4], 1)), [0, 1, 2, 3], () => 9000);
  b.run(50_000);
  assertShares(b.bytesSent.slice(0, 4), [0.1, 0.2, 0.3, 0.4], 'bytes');
});

test('a weight-0 queue is never served by DWRR; nothing eligible gives null', () => {
  const s = new EgressScheduler<string>(config([0, 1], 1000));
  s.enqueue(0, 'starved', 1000);
  assert.equal(s.dequeue(NONE_PAUSED), null);
  s.enqueue(1, 'served', 1000);
  assert.equal(s.dequeue(bit(1)), null, 'the only servable queue is paused');
  assert.equal(s.dequeue(NONE_PAUSED)!.item, 'served');
  assert.equal(s.dequeue(NONE_PAUSED), null);
  assert.equal(s.length(0), 1);
});

test('flush returns a queue’s items oldest first and leaves the others', () => {
  const s = new EgressScheduler<string>(DEFAULT_SCHEDULER_CONFIG);
  s.enqueue(3, 'a', 1000);
  s.enqueue(4, 'x', 500);
  s.enqueue(3, 'b', 1100, 7);
  s.dequeue(bit(4)); // q3 in its turn, 'a' sent
  s.enqueue(3, 'c', 64);
  assert.deepEqual(s.flush(3), [
    { item: 'b', sizeBytes: 1100, tag: 7 },
    { item: 'c', sizeBytes: 64, tag: 0 },
  ]);
  assert.equal(s.length(3), 0);
  assert.equal(s.bytes(3), 0);
  assert.deepEqual(s.flush(3), []);
  assert.equal(s.length(), 1);
  assert.equal(s.bytes(4), 500);
  assert.equal(s.dequeue(NONE_PAUSED)!.item, 'x');
  assert.equal(s.dequeue(NONE_PAUSED), null);
});

test('config problems are all reported, and the constructor refuses a bad config', () => {
  assert.deepEqual(checkSchedulerConfig(DEFAULT_SCHEDULER_CONFIG), []);
  const bad = { strictPriorities: [6, 8, 6], weights: [1, 1, -1, 1.5, 1, 1, 1], quantumBytes: 0 };
  assert.deepEqual(
    checkSchedulerConfig(bad).map((p) => [p.field, p.actual]),
    [
      ['strictPriorities[1]', 8],
      ['strictPriorities[2]', 6],
      ['weights', 7],
      ['weights[2]', -1],
      ['weights[3]', 1.5],
      ['quantumBytes', 0],
    ],
  );
  assert.throws(() => new EgressScheduler(bad), RangeError);
  const s = new EgressScheduler<number>(DEFAULT_SCHEDULER_CONFIG);
  assert.throws(() => s.enqueue(8, 0, 100), RangeError);
  assert.throws(() => s.enqueue(0, 0, 0), RangeError);
});

test('take leaves the queue, size and tag of what it returns; a tag survives the ring growing', () => {
  const s = new EgressScheduler<string>(DEFAULT_SCHEDULER_CONFIG);
  for (let i = 0; i < 40; i++) s.enqueue(i % 2 === 0 ? 2 : 5, `f${i}`, 100 + i, 1000 + i);
  const seen: string[] = [];
  for (let item = s.take(0); item !== null; item = s.take(0)) {
    const i = Number(item.slice(1));
    assert.equal(s.takenQueue, i % 2 === 0 ? 2 : 5, item);
    assert.equal(s.takenBytes, 100 + i, item);
    assert.equal(s.takenTag, 1000 + i, item);
    seen.push(item);
  }
  assert.equal(seen.length, 40);
  assert.equal(s.length(), 0);
});
