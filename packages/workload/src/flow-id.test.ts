import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SEQ, MAX_SLOTS, MAX_WORKLOADS, connectionKey, flowId, flowIdParts } from './flow-id.js';

test('flow ids pack (workload, slot, seq) into a safe integer and unpack again', () => {
  assert.equal(flowId(3, 0, 7), 3 * 2 ** 40 + 7);
  assert.equal(flowId(1, 2, 3), 2 ** 40 + 2 * 2 ** 28 + 3);
  const top = flowId(MAX_WORKLOADS - 1, MAX_SLOTS - 1, MAX_SEQ - 1);
  assert.equal(top, Number.MAX_SAFE_INTEGER);
  assert.deepEqual(flowIdParts(top), { workload: MAX_WORKLOADS - 1, slot: MAX_SLOTS - 1, seq: MAX_SEQ - 1 });
  assert.deepEqual(flowIdParts(flowId(5, 17, 123456)), { workload: 5, slot: 17, seq: 123456 });
  assert.throws(() => flowId(MAX_WORKLOADS, 0, 0), RangeError);
  assert.throws(() => flowId(0, 0, MAX_SEQ), RangeError);
  assert.equal(connectionKey(3, 'h1', 'h9'), 'w3:h1->h9');
});
