import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coordinator } from './coordinator.js';
import { DEFAULT_LEASE_SIZING, leaseWindowsFor } from './lease-size.js';

test('a lease holds the windows that fit in half a second at the measured cost, between 128 and 4,096', () => {
  assert.equal(leaseWindowsFor(0.9), 555, 'two workers of the perf pod');
  assert.equal(leaseWindowsFor(4.7), 128, 'a window per process is slow: never fewer than before');
  assert.equal(leaseWindowsFor(0.01), 4096, 'a tiny pod: not more than 4,096');
  assert.equal(leaseWindowsFor(0), DEFAULT_LEASE_SIZING.minWindows, 'nothing measured');
  assert.equal(leaseWindowsFor(Number.NaN), DEFAULT_LEASE_SIZING.minWindows);
  assert.equal(leaseWindowsFor(1, { targetWallMs: 100, minWindows: 1, maxWindows: 50 }), 50);
});

test('the coordinator keeps doubling its leases up to the cap it is given, and a lower cap applies from the next lease', () => {
  const W = 1_000_000;
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: null, maxWindowsPerLease: 4 });
  const windows: number[] = [];
  let step = c.start();
  for (let lease = 1; lease <= 8; lease++) {
    assert.equal(step.type, 'grant');
    if (step.type !== 'grant') return;
    windows.push(step.grant.windows);
    if (lease === 3) c.setMaxWindowsPerLease(16);
    if (lease === 6) c.setMaxWindowsPerLease(2);
    step = c.onReport({ member: 'm1', lease: step.grant.lease, nextEventPs: step.grant.endPs, linksFailed: [], linkCounts: [] });
  }
  assert.deepEqual(windows, [1, 2, 4, 8, 16, 16, 2, 2]);
  assert.throws(() => c.setMaxWindowsPerLease(0), /positive integer/);
});
