import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareEvents, EventClass, type SimEvent } from './event.js';
import { EventQueue } from './event-queue.js';
import { Rng } from './rng.js';

const ev = (timePs: number, cls: number, origin: number, seq: number): SimEvent => ({
  timePs,
  cls: cls as SimEvent['cls'],
  origin,
  seq,
  target: 0,
  kind: 0,
  port: -1,
  arg: 0,
  frame: null,
  data: null,
});

test('at equal times the class decides: fault, link state, PFC, frame, transmitter, timer', () => {
  const q = new EventQueue();
  const classes = [EventClass.timer, EventClass.transmitter, EventClass.frameArrival, EventClass.pfcArrival, EventClass.linkState, EventClass.fault];
  classes.forEach((cls, i) => q.push(ev(100, cls, i, 0)));
  const order: number[] = [];
  while (q.size > 0) order.push(q.pop()!.cls);
  assert.deepEqual(order, [1, 2, 3, 4, 5, 6]);
});

test('at equal time and class, origin node index then origin sequence decide', () => {
  const q = new EventQueue();
  q.push(ev(5, 4, 2, 0));
  q.push(ev(5, 4, 1, 9));
  q.push(ev(5, 4, 1, 3));
  q.push(ev(4, 6, 9, 9));
  const order: string[] = [];
  while (q.size > 0) {
    const e = q.pop()!;
    order.push(`${e.timePs}/${e.origin}/${e.seq}`);
  }
  assert.deepEqual(order, ['4/9/9', '5/1/3', '5/1/9', '5/2/0']);
});

test('the heap pops 10,000 random events in sorted order', () => {
  const rng = new Rng(1, 'test', 'heap');
  const q = new EventQueue();
  const all: SimEvent[] = [];
  for (let i = 0; i < 10_000; i++) {
    const e = ev(rng.uniformInt(0, 50), rng.uniformInt(1, 6), rng.uniformInt(0, 3), i);
    all.push(e);
    q.push(e);
    if (i % 7 === 0) all.splice(all.indexOf(q.pop()!), 1); // interleave pops with pushes
  }
  all.sort(compareEvents);
  const popped: SimEvent[] = [];
  while (q.size > 0) popped.push(q.pop()!);
  assert.deepEqual(popped, all);
});

test('run as a simulation runs it (events pushed at or after the last popped time), every pop is the least pending event', () => {
  const rng = new Rng(2, 'test', 'heap-sim');
  const q = new EventQueue();
  const pending: SimEvent[] = [];
  let now = 0;
  let seq = 0;
  for (let step = 0; step < 20_000; step++) {
    for (let k = rng.uniformInt(0, 3); k > 0; k--) {
      const e = ev(now + rng.uniformInt(0, 2_000), rng.uniformInt(1, 6), rng.uniformInt(0, 25), seq++);
      pending.push(e);
      q.push(e);
    }
    if (pending.length === 0) continue;
    let least = 0;
    for (let i = 1; i < pending.length; i++) if (compareEvents(pending[i]!, pending[least]!) < 0) least = i;
    const popped = q.pop()!;
    assert.equal(popped, pending[least], `step ${step}`);
    pending.splice(least, 1);
    now = popped.timePs;
  }
  assert.equal(q.size, pending.length);
});
