import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pacingView } from '@rocelab/controller';
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

test('rocelab status says which fault comes next and when, in wall time at the dilation, and later when the machine lags', () => {
  const base: StatusView = { virtualPs: 2e9, dilation: 10_000, windowsPerSecond: 100, nodesUp: 26, nodesTotal: 26, lagSeconds: 0, state: 'running', windows: 2000, pod: 'default' };
  const storm = { id: 0, kind: 'nicPauseStorm', target: 'h16', atNs: 10_000_000 };
  assert.match(formatStatus({ ...base, nextFault: storm }), /^next fault +nicPauseStorm on h16 at 10\.000 ms virtual: in ≈ 80 s at dilation 10000$/m);
  assert.match(formatStatus({ ...base, nextFault: storm, lagSeconds: 12.34 }), /in ≈ 80 s at dilation 10000; 12\.3 s behind the pace now, so later$/m);
  assert.match(formatStatus({ ...base, dilation: 0, nextFault: storm }), /no pacing: as soon as the machine gets there/);
  assert.doesNotMatch(formatStatus({ ...base, nextFault: null }), /next fault/);
});
