import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AutoPace, DEFAULT_AUTO_PACE, roundUpReadable, type AutoPaceView } from './auto-pace.js';

const W = 1e6; // a 1 µs window

/**
 * Leases of 1, 2, 4, … windows released back to back, each window taking `msPerWindow` of wall
 * time after a first lease that takes `firstMs`; returns the dilation chosen and at which sample.
 */
function run(pace: AutoPace, msPerWindow: number, firstMs = msPerWindow, maxLeases = 40): { dilation: number | null; lease: number } {
  let wallMs = 0;
  let windows = 0;
  for (let lease = 1, size = 1; lease <= maxLeases; lease++, size = Math.min(128, size * 2)) {
    const chosen = pace.sample(wallMs, windows * W, windows);
    if (chosen !== null) return { dilation: chosen, lease };
    wallMs += lease === 1 ? firstMs : size * msPerWindow;
    windows += size;
  }
  return { dilation: null, lease: -1 };
}

test('measures unpaced until 200 windows have run, then keeps ×1.5 the measured pace, rounded up', () => {
  const pace = new AutoPace();
  assert.deepEqual({ ...pace.view }, { state: 'measuring', windows: 0, measureWindows: 200, measureWallSeconds: 3 });
  // 5.6 ms per 1 µs window = 5,600 wall s per virtual s; ×1.5 = 8,400.
  const { dilation, lease } = run(pace, 5.6);
  assert.equal(dilation, 8400);
  assert.equal(lease, 9, 'chosen as lease 9 goes out, after 1+2+…+128 = 255 windows');
  const view: AutoPaceView = pace.view;
  assert.ok(view.state === 'chosen');
  assert.equal(view.measuredDilation.toFixed(6), '5600.000000');
  assert.deepEqual({ ...view, measuredDilation: 0, wallSeconds: Number(view.wallSeconds.toFixed(6)) }, { state: 'chosen', dilation: 8400, measuredDilation: 0, headroom: 1.5, windows: 224, wallSeconds: 1.2544, atPs: 255 * W });
  assert.equal(pace.sample(99_999, 999 * W, 999), null, 'chosen once: later samples change nothing');
  assert.equal(pace.view, view);
});

test('the first windows (JIT warm-up) are left out of the measure', () => {
  // The first lease takes 2 s, every window after it 1 ms: 1,000 wall s per virtual s.
  assert.equal(run(new AutoPace(), 1, 2000).dilation, 1500);
});

test('a slow pod stops measuring after 3 s of wall time, at the next lease boundary', () => {
  // 100 ms per window: 1+2+4+8 windows take 1.5 s, 31 windows 3.1 s.
  const pace = new AutoPace();
  const { dilation, lease } = run(pace, 100);
  assert.equal(lease, 6);
  assert.equal(dilation, 150_000);
  assert.equal(pace.view.state === 'chosen' && pace.view.windows, 31, 'not yet past the warm-up: measured from the start');
});

test('one lease longer than the cap: measured whole, at the first boundary with virtual time behind it', () => {
  const pace = new AutoPace();
  assert.equal(pace.sample(0, 0, 0), null);
  assert.equal(pace.sample(4000, 2 * W, 2), 3e6, '4 s of wall time for 2 µs: 2,000,000 wall s per virtual s, ×1.5');
});

test('an idle pod that jumps ahead reads fast and gets a small pace; never 0 (that would be unpaced)', () => {
  const pace = new AutoPace({ ...DEFAULT_AUTO_PACE, measureWindows: 20, warmupWindows: 0 });
  assert.equal(pace.sample(0, 0, 0), null);
  assert.equal(pace.sample(0, 1e12, 20), null, 'no wall time measured yet');
  assert.equal(pace.sample(10, 1e12, 21), 0.015, '10 ms of wall time for 1 s of virtual time, ×1.5');
});

test('samples that go back in time are a bug', () => {
  const pace = new AutoPace();
  pace.sample(10, 5 * W, 5);
  assert.throws(() => pace.sample(5, 6 * W, 6), /samples go back/);
});

test('a configuration that cannot work is refused', () => {
  assert.throws(() => new AutoPace({ ...DEFAULT_AUTO_PACE, headroom: 0.5 }), /headroom must be at least 1/);
  assert.throws(() => new AutoPace({ ...DEFAULT_AUTO_PACE, measureWindows: 8 }), /more than the 16 of warm-up/);
});

test('paces are rounded up to two significant digits', () => {
  assert.deepEqual([840, 841, 849.9, 8400.0000001, 99.5, 1, 0.1234, 123_456].map(roundUpReadable), [840, 850, 850, 8400, 100, 1, 0.13, 130_000]);
  assert.throws(() => roundUpReadable(0), /positive pace/);
});
