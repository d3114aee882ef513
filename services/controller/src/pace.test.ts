import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PaceWindow } from './pace.js';

/** Leases released every `everyMs` from `fromMs`, each completing `psPerLease` more virtual time. */
function feed(w: PaceWindow, fromMs: number, toMs: number, everyMs: number, startPs: number, psPerLease: number): number {
  let ps = startPs;
  for (let t = fromMs; t <= toMs; t += everyMs, ps += psPerLease) w.record(t, ps);
  return ps;
}

test('no pace before 2 s of wall time since the first lease; then virtual time completed per wall second', () => {
  const w = new PaceWindow();
  assert.equal(w.view(0), null);
  w.record(0, 0);
  assert.equal(w.view(1_999), null, 'a start-up is not a pace');
  // Dilation 10,000 kept: 40 µs of virtual time per 400 ms lease = 0.1 ms per wall second.
  feed(w, 400, 8_000, 400, 40e6, 40e6);
  assert.deepEqual(w.view(8_000), { virtualPsPerWallSecond: 1e8, overSeconds: 8 });
});

test('the pace is the last 10 s: a machine that slows down reads slow, whatever it kept before', () => {
  const w = new PaceWindow();
  // 20 s at 0.1 ms virtual per wall s, then 20 s at a quarter of that (the machine fell behind).
  const ps = feed(w, 0, 20_000, 400, 0, 40e6);
  feed(w, 20_400, 40_000, 400, ps, 10e6);
  const view = w.view(40_000)!;
  assert.equal(view.overSeconds, 10);
  assert.equal(view.virtualPsPerWallSecond, 0.25e8);
});

test('a pod that stops completing leases reads slower the longer it stalls, down to 0', () => {
  const w = new PaceWindow();
  feed(w, 0, 10_000, 500, 0, 50e6);
  assert.equal(w.view(10_000)!.virtualPsPerWallSecond, 1e8);
  assert.equal(w.view(15_000)!.virtualPsPerWallSecond, 0.5e8, 'half the window without progress: half the pace');
  assert.equal(w.view(25_000)!.virtualPsPerWallSecond, 0, 'a whole window without progress');
});

test('the window keeps a bounded number of samples however long the pod runs', () => {
  const w = new PaceWindow();
  feed(w, 0, 3_600_000, 10, 0, 1);
  assert.ok((w as unknown as { samples: unknown[] }).samples.length <= 1_002);
  assert.equal(w.view(3_600_000)!.virtualPsPerWallSecond, 100);
});
