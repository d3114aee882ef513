import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventClass, type SimEvent } from './event.js';
import { combineTraceHashes, TraceHash } from './trace-hash.js';

const event = (i: number): SimEvent => ({
  timePs: i * 1000,
  cls: EventClass.timer,
  origin: 0,
  seq: i,
  target: 0,
  kind: i % 3,
  port: -1,
  arg: i,
  frame: null,
  data: null,
});

test('the digest does not depend on when it is read (buffer flushes and copies)', () => {
  const read = new TraceHash();
  const once = new TraceHash();
  for (let i = 0; i < 5000; i++) {
    read.fold(event(i));
    once.fold(event(i));
    if (i % 777 === 0) read.digest();
  }
  assert.deepEqual(read.digest(), once.digest());
  assert.equal(read.count, 5000);
});

test('one different field in one event changes the digest', () => {
  const a = new TraceHash();
  const b = new TraceHash();
  for (let i = 0; i < 100; i++) {
    a.fold(event(i));
    b.fold(i === 42 ? { ...event(i), timePs: event(i).timePs + 1 } : event(i));
  }
  assert.notDeepEqual(a.digest(), b.digest());
});

test('the run hash covers node names and order', () => {
  const d1 = new Uint8Array(32).fill(1);
  const d2 = new Uint8Array(32).fill(2);
  const h = combineTraceHashes([{ name: 'a', digest: d1 }, { name: 'b', digest: d2 }]);
  assert.match(h, /^[0-9a-f]{64}$/);
  assert.notEqual(h, combineTraceHashes([{ name: 'b', digest: d2 }, { name: 'a', digest: d1 }]));
  assert.notEqual(h, combineTraceHashes([{ name: 'a', digest: d1 }, { name: 'c', digest: d2 }]));
});
