import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameKind, pfcFrame } from '@rocelab/wire';
import { combineTraceHashes, littleEndianRecords, TraceHash, TraceRecord } from './trace-hash.js';
import { dataFrame, scriptedPod } from './testing.js';

const hex = (d: Uint8Array): string => Buffer.from(d).toString('hex');

test('the digest does not depend on when it is read (buffer flushes and copies)', () => {
  const read = new TraceHash();
  const once = new TraceHash();
  for (let i = 0; i < 5000; i++) {
    for (const h of [read, once]) {
      h.frame(TraceRecord.tx, i * 1000, i % 4, dataFrame({ psn: i }));
      if (i % 10 === 0) h.done(i * 1000, 7, i, 4096, 0);
    }
    if (i % 777 === 0) read.digest();
  }
  assert.deepEqual(read.digest(), once.digest());
  assert.equal(read.count, 5500);
});

test('one different field of one record changes the digest: time, port, direction, frame field, drop reason, pause quanta, completion', () => {
  const base = (h: TraceHash, change: string) => {
    h.frame(change === 'type' ? TraceRecord.rx : TraceRecord.tx, change === 'time' ? 1001 : 1000, change === 'port' ? 2 : 1, dataFrame({ psn: change === 'psn' ? 6 : 5, destQp: change === 'qp' ? 9 : 8 }));
    h.frame(TraceRecord.drop, 2000, 1, dataFrame(), change === 'reason' ? 3 : 2);
    h.frame(TraceRecord.tx, 3000, 0, pfcFrame(0x08, [0, 0, 0, change === 'quanta' ? 0xfffe : 0xffff, 0, 0, 0, 0]));
    h.pause(4000, 0, 3, change !== 'pause');
    h.done(5000, 4, change === 'wrId' ? 2 ** 40 + 1 : 1, 4096, 0);
    h.fault(6000, -1, 1, change === 'fault' ? 2 : 1, 0);
    return hex(h.digest());
  };
  const reference = base(new TraceHash(), '');
  const changes = ['time', 'port', 'type', 'psn', 'qp', 'reason', 'quanta', 'pause', 'wrId', 'fault'];
  const digests = changes.map((c) => base(new TraceHash(), c));
  for (const [i, d] of digests.entries()) assert.notEqual(d, reference, changes[i]);
  assert.equal(new Set(digests).size, changes.length);
});

/** a sends 20 frames to b; `idleTimers` adds a timer on a that fires and does nothing every 100 ns. */
function run(options: { idleTimers: boolean; gapPs: number }): { digests: string[]; events: number } {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const a = model('a');
  for (let k = 0; k < 20; k++) a.at(k * options.gapPs, () => a.send(0, dataFrame({ psn: k })));
  if (options.idleTimers) for (let k = 0; k < 200; k++) a.at(k * 100_000 + 1, () => undefined);
  engine.runUntil(50_000_000);
  return { digests: [0, 1].map((i) => hex(engine.digest(i))), events: engine.eventsProcessed(0) + engine.eventsProcessed(1) };
}

test('internal events are not observable: timers that change nothing leave the hash as it was; a frame 1 ps later changes it', () => {
  const plain = run({ idleTimers: false, gapPs: 1_000_000 });
  const busy = run({ idleTimers: true, gapPs: 1_000_000 });
  assert.ok(busy.events >= plain.events + 200, 'the idle timers were dispatched');
  assert.deepEqual(busy.digests, plain.digests);
  const later = run({ idleTimers: false, gapPs: 1_000_001 });
  assert.notEqual(later.digests[0], plain.digests[0], 'the sender saw its frames leave later');
  assert.notEqual(later.digests[1], plain.digests[1], 'the receiver saw them arrive later');
});

test('what a node drops enters its hash with the reason', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const before = hex(engine.digest(1));
  engine.context(1).drop(dataFrame({ kind: FrameKind.data }), 'buffer', 0);
  assert.notEqual(hex(engine.digest(1)), before);
  assert.equal(model('a').received.length, 0);
});

test('the run hash covers node names and order', () => {
  const d1 = new Uint8Array(32).fill(1);
  const d2 = new Uint8Array(32).fill(2);
  const h = combineTraceHashes([{ name: 'a', digest: d1 }, { name: 'b', digest: d2 }]);
  assert.match(h, /^[0-9a-f]{64}$/);
  assert.notEqual(h, combineTraceHashes([{ name: 'b', digest: d2 }, { name: 'a', digest: d1 }]));
  assert.notEqual(h, combineTraceHashes([{ name: 'a', digest: d1 }, { name: 'c', digest: d2 }]));
});

test('a big-endian machine hashes the same bytes: each record field reversed back to little-endian', () => {
  // Two records written field by field in each byte order, as a DataView would on either machine.
  const write = (little: boolean): Uint8Array => {
    const view = new DataView(new ArrayBuffer(80));
    for (let r = 0; r < 2; r++) {
      view.setFloat64(r * 40, 123_456_789.5 + r, little);
      for (let w = 0; w < 8; w++) view.setUint32(r * 40 + 8 + 4 * w, 0x01020304 * (w + 1) + r, little);
    }
    return new Uint8Array(view.buffer);
  };
  assert.deepEqual(littleEndianRecords(write(false)), write(true));
});
