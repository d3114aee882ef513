import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { RingFull, ThreadRing } from './thread-ring.js';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

test('messages come out whole and in order, also across the end of the ring', () => {
  const ring = new ThreadRing(ThreadRing.allocate(64));
  // 64 bytes of room: messages of 4 + 20 bytes wrap around the end every few writes.
  for (let i = 0; i < 50; i++) {
    ring.write(bytes(20, i));
    if (i % 2 === 1) {
      assert.deepEqual(ring.read(), bytes(20, i - 1));
      assert.deepEqual(ring.read(), bytes(20, i));
    }
  }
  assert.equal(ring.read(), null);
  assert.equal(ring.pending, 0);
});

test('an empty message is a message', () => {
  const ring = new ThreadRing(ThreadRing.allocate(64));
  ring.write(new Uint8Array(0));
  assert.deepEqual(ring.read(), new Uint8Array(0));
  assert.equal(ring.read(), null);
});

test('a message that does not fit the room left is refused and the ring keeps what it had', () => {
  const ring = new ThreadRing(ThreadRing.allocate(64));
  ring.write(bytes(40, 1));
  assert.throws(() => ring.write(bytes(17, 2)), (err: unknown) => err instanceof RingFull && /17 bytes does not fit the ring's 20 free bytes \(of 64\)/.test(err.message));
  assert.deepEqual(ring.read(), bytes(40, 1));
  ring.write(bytes(60, 3));
  assert.deepEqual(ring.read(), bytes(60, 3));
});

test('a capacity that is not a power of two is refused: a cursor wrapping at 2³² would land elsewhere in the ring', () => {
  assert.throws(() => ThreadRing.allocate(100), /power of two in \[64, 2³⁰\] bytes, got 100/);
  assert.throws(() => ThreadRing.allocate(32), /got 32/);
});

test('another thread reads what this one writes, waking from Atomics.wait; waiting with nothing written times out', async () => {
  const memory = ThreadRing.allocate(1024);
  const ring = new ThreadRing(memory);
  assert.equal(ring.waitForData(ring.writtenMark, 5), false);
  // The reader sums each message's bytes and answers on a second ring, 200 times.
  const back = ThreadRing.allocate(1024);
  const worker = new Worker(new URL('./thread-ring-peer.js', import.meta.url), { workerData: { memory, back } });
  const answers = new ThreadRing(back);
  for (let i = 0; i < 200; i++) {
    const m = bytes(1 + (i % 300), i);
    ring.write(m);
    let answer: Uint8Array | null = null;
    for (let tries = 0; answer === null && tries < 100; tries++) {
      const mark = answers.writtenMark;
      answer = answers.read();
      if (answer === null) answers.waitForData(mark, 100, 0.05);
    }
    assert.ok(answer !== null, `no answer to message ${i}`);
    assert.equal(new DataView(answer.buffer).getUint32(0, true), m.reduce((a, b) => a + b, 0));
  }
  ring.write(new Uint8Array(0));
  assert.equal(await new Promise((resolve) => worker.once('exit', resolve)), 0);
});
