import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchWatchdog } from './liveness.js';

test('a member stuck awaiting batches for the limit gives up; progress or another phase restarts the count', () => {
  const w = new BatchWatchdog(60_000, 0);
  assert.equal(w.expired(1_000, true), false, 'first look: starts counting');
  assert.equal(w.expired(59_000, true), false);
  assert.equal(w.expired(61_000, true), true);
  w.onProgress();
  assert.equal(w.expired(62_000, true), false, 'a batch arrived');
  assert.equal(w.expired(121_000, true), false);
  assert.equal(w.expired(122_000, true), true);
  assert.equal(w.expired(200_000, false), false, 'waiting for a grant is the controller pacing, not a stall');
  assert.equal(w.expired(250_000, true), false);
  assert.equal(w.expired(260_000, true), true);
  assert.equal(w.checkEveryMs, 15_000);
  assert.equal(new BatchWatchdog(2_000, 0).checkEveryMs, 1_000);
});
