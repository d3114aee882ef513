import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROGRESS_STEP_PS, runInproc } from '@rocelab/runtime';
import { loadTopologyFile } from '@rocelab/topology';
import { fixture } from './harness.js';

test('an inproc run reporting progress runs in slices and gives the same result as one without', async () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  const durationPs = 2 * PROGRESS_STEP_PS + 123_456;
  const plain = await runInproc(pod, { seed: 7, durationPs });
  const seen: number[] = [];
  const sliced = await runInproc(pod, { seed: 7, durationPs, onProgress: (t) => seen.push(t) });
  assert.deepEqual(seen, [PROGRESS_STEP_PS, 2 * PROGRESS_STEP_PS, durationPs]);
  assert.equal(sliced.traceHash, plain.traceHash);
  assert.deepEqual(sliced.packets, plain.packets);
});
