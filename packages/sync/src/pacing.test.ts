import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lagSeconds, maxLeasePsForDilation, releaseAtWallMs } from './pacing.js';
import type { Grant, TimedFault } from './types.js';

const grant = (startPs: number): Grant<TimedFault> => ({ lease: 1, startPs, windowPs: 1e6, windows: 1, endPs: startPs + 1e6, final: false, faults: [], linksDown: [], linksUp: [], membersLost: [], membersJoined: [], losses: [] });

test('a grant is released at D times its start: 10,000 wall s per virtual s puts 1 ms at 10 s', () => {
  assert.equal(releaseAtWallMs(grant(1e9), 10_000), 10_000);
  assert.equal(releaseAtWallMs(grant(1e9), 0), 0);
});

test('a lease lasts at most 400 ms of wall time: 40 µs of virtual time at D = 10,000; no cap unpaced', () => {
  assert.equal(maxLeasePsForDilation(10_000), 40e6);
  assert.equal(maxLeasePsForDilation(10_000, 100), 10e6);
  assert.equal(maxLeasePsForDilation(0), null);
});

test('lag is the wall time past the paced end of the running lease; on time while it runs within it', () => {
  // A lease ending at 1 ms virtual should be done by 10 s of wall time at D = 10,000.
  assert.equal(lagSeconds(9_500, 1e9, 10_000), 0);
  assert.equal(lagSeconds(10_000, 1e9, 10_000), 0);
  assert.equal(lagSeconds(11_750, 1e9, 10_000), 1.75);
  assert.equal(lagSeconds(11_750, null, 10_000), 0, 'a lease held back for pacing is on time');
  assert.equal(lagSeconds(11_750, 1e9, 0), 0, 'an unpaced run has no schedule');
});
