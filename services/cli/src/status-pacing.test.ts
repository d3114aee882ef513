import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pacingView } from '@rocelab/controller';
import { faultEta } from './fault-eta.js';
import { formatStatus, type StatusView } from './progress.js';

const grant = { lease: 12, startPs: 1_000_000_000, endPs: 1_100_000_000, windowPs: 1_000_000, windows: 100, final: false, faults: [], linksDown: [], linksUp: [], losses: [], membersLost: [], membersJoined: [] };

test('pacing: a lease starting at 1 ms under dilation 10,000 goes out 10 s after the pod started', () => {
  const view = pacingView(grant, 500, 10_000, 500 + 2_000, Date.UTC(2026, 0, 1, 12, 0, 0));
  assert.deepEqual(view, { lease: 12, leaseStartPs: 1e9, leaseEndPs: 1.1e9, releaseInSeconds: 8, releaseAt: '2026-01-01T12:00:08.000Z' });
  assert.equal(pacingView(grant, 500, 10_000, 500 + 20_000, 0).releaseInSeconds, 0, 'late: goes out now');
});

test('rocelab status says a lease is held for pacing, until when, and why windows/s reads 0', () => {
  const base: StatusView = { virtualPs: 1e9, dilation: 10_000, windowsPerSecond: 0, nodesUp: 6, nodesTotal: 6, lagSeconds: 0, state: 'running', windows: 1000, pod: 'tree' };
  const held = formatStatus({ ...base, pacing: pacingView(grant, 0, 10_000, 1_800, Date.UTC(2026, 0, 1)) });
  assert.match(held, /^windows +1000 \(0\.0 per wall second, none while held for pacing\)$/m);
  assert.match(held, /^pacing +held: lease 12 \(1\.000 ms → 1\.100 ms virtual\) goes out in 8\.2 s, at 2026-01-01T00:00:08\.200Z \(dilation 10000: the pod is on time and waits for the wall clock\)$/m);
  assert.doesNotMatch(formatStatus({ ...base, pacing: null }), /pacing/);
});

test('the next fault\'s wall time is estimated from the pace the pod keeps, not from the dilation (pure, injected numbers)', () => {
  // 8 ms of virtual time to go. Dilation 10,000 would make that 80 s; the machine keeps half that pace.
  const half = { virtualPsPerWallSecond: 0.5e8, overSeconds: 10 };
  assert.deepEqual(faultEta(10e9, 2e9, half, 10_000), { seconds: 160, basis: 'pace' });
  assert.deepEqual(faultEta(10e9, 2e9, { virtualPsPerWallSecond: 4e8, overSeconds: 10 }, 0), { seconds: 20, basis: 'pace' }, 'unpaced: at what the machine does');
  assert.deepEqual(faultEta(10e9, 2e9, { virtualPsPerWallSecond: 0, overSeconds: 10 }, 10_000), { seconds: null, basis: 'pace' }, 'stalled: no estimate');
  assert.deepEqual(faultEta(10e9, 2e9, null, 10_000), { seconds: 80, basis: 'dilation' }, 'before a pace is known: the dilation');
  assert.deepEqual(faultEta(10e9, 2e9, null, 0), { seconds: null, basis: 'none' });
  assert.deepEqual(faultEta(1e9, 2e9, half, 10_000), { seconds: 0, basis: 'pace' }, 'due already');
});

test('rocelab status says which fault comes next and when, at the pace the pod keeps, and at the dilation before there is one', () => {
  const base: StatusView = { virtualPs: 2e9, dilation: 10_000, windowsPerSecond: 100, nodesUp: 26, nodesTotal: 26, lagSeconds: 0, state: 'running', windows: 2000, pod: 'default' };
  const storm = { id: 0, kind: 'nicPauseStorm', target: 'h16', atNs: 10_000_000 };
  const slow = formatStatus({ ...base, nextFault: storm, pace: { virtualPsPerWallSecond: 0.4e8, overSeconds: 10 } });
  assert.match(slow, /^next fault +nicPauseStorm on h16 at 10\.000 ms virtual: in ≈ 200 s at the pace the pod keeps \(0\.040 ms virtual per wall s over the last 10 s; at dilation 10000 it would be 80 s\)$/m);
  assert.match(slow, /^pace +0\.040 ms virtual per wall s over the last 10 s \(dilation 10000 asks 0\.100\)$/m);
  assert.match(formatStatus({ ...base, nextFault: storm, pace: null }), /^next fault +nicPauseStorm on h16 at 10\.000 ms virtual: in ≈ 80 s at dilation 10000 \(no pace measured yet\)$/m);
  assert.match(formatStatus({ ...base, nextFault: storm, pace: { virtualPsPerWallSecond: 0, overSeconds: 10 } }), /: no estimate, no virtual time passed over the last 10 s$/m);
  assert.match(formatStatus({ ...base, dilation: 0, nextFault: storm, pace: { virtualPsPerWallSecond: 4e9, overSeconds: 10 } }), /in ≈ 2 s at the pace the pod keeps \(4\.000 ms virtual per wall s over the last 10 s\)$/m);
  assert.match(formatStatus({ ...base, dilation: 0, nextFault: storm }), /no pacing: as soon as the machine gets there/);
  assert.doesNotMatch(formatStatus({ ...base, nextFault: null }), /next fault/);
  assert.doesNotMatch(formatStatus({ ...base, pace: null }), /^pace/m);
});

test('rocelab status says how the pace came about: measured unpaced, chosen from the first windows, or fixed', () => {
  const base: StatusView = { virtualPs: 2e8, dilation: 0, windowsPerSecond: 100, nodesUp: 26, nodesTotal: 26, lagSeconds: 0, state: 'running', windows: 31, pod: 'default' };
  const measuring = formatStatus({ ...base, autoPace: { state: 'measuring', windows: 31, measureWindows: 200, measureWallSeconds: 3 } });
  assert.match(measuring, /^dilation +none yet: running unpaced to measure the pace \(the first 200 windows or 3 s of wall time; 31 run\)$/m);
  const chosen = { state: 'chosen' as const, dilation: 8400, measuredDilation: 5600.4, headroom: 1.5, windows: 224, wallSeconds: 1.2544, atPs: 255e6 };
  assert.match(formatStatus({ ...base, dilation: 8400, autoPace: chosen }), /^dilation +8400 wall s per virtual s, the pace chosen from the first windows \(224 windows took 5600 wall s per virtual s over 1\.3 s; ×1\.5 headroom\)$/m);
  assert.match(formatStatus({ ...base, dilation: 1000, autoPace: null }), /^dilation +1000 wall s per virtual s \(fixed when the pod started\)$/m);
  assert.match(formatStatus({ ...base, dilation: 1000 }), /^dilation +1000 wall s per virtual s$/m, 'an older controller says nothing of it');
});

test('a lag past 2 s says the pod cannot keep its pace, and that a chosen pace is kept all the same', () => {
  const base: StatusView = { virtualPs: 2e9, dilation: 8400, windowsPerSecond: 100, nodesUp: 26, nodesTotal: 26, lagSeconds: 1.5, state: 'running', windows: 2000, pod: 'default' };
  const chosen = { state: 'chosen' as const, dilation: 8400, measuredDilation: 5600, headroom: 1.5, windows: 224, wallSeconds: 1.25, atPs: 255e6 };
  assert.match(formatStatus({ ...base, autoPace: chosen }), /^lag +1\.500 s behind the paced schedule$/m, 'a hiccup');
  assert.match(formatStatus({ ...base, lagSeconds: 12.25, autoPace: chosen }), /^lag +12\.250 s behind the paced schedule: the pod cannot keep this pace now, chosen from its first windows, and keeps it \(rocelab up --dilation D fixes a slower one\)$/m);
  assert.match(formatStatus({ ...base, lagSeconds: 12.25, autoPace: null }), /^lag +12\.250 s behind the paced schedule: the pod cannot keep this pace now$/m);
});
