import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { imageProblem, logTail, podStates, resultFromLog, runDeadlineMs, runNamespace, SLOWEST_WALL_PER_VIRTUAL, STARTUP_ALLOWANCE_MS } from './k8s-run-plan.js';

test('runNamespace: the run\'s own, a DNS-1123 label of at most 63 characters, or null when the pod name makes none', () => {
  assert.equal(runNamespace('default', '0a1b2c3d'), 'rocelab-run-default-0a1b2c3d');
  const long = runNamespace('x'.repeat(80), '0a1b2c3d')!;
  assert.equal(long.length, 63);
  assert.match(long, /^rocelab-run-x+-0a1b2c3d$/);
  assert.equal(runNamespace(`${'a'.repeat(41)}-b`, '0a1b2c3d'), `rocelab-run-${'a'.repeat(41)}-0a1b2c3d`, 'a cut that ends in - loses it');
  assert.equal(runNamespace('Lab_Pod', '0a1b2c3d'), null);
});

test('runDeadlineMs: the start-up allowance plus the duration at the slower of the dilation and the slowest expected pace', () => {
  assert.equal(runDeadlineMs(0, 0), STARTUP_ALLOWANCE_MS);
  assert.equal(runDeadlineMs(1e9, 0), STARTUP_ALLOWANCE_MS + SLOWEST_WALL_PER_VIRTUAL); // 1 ms virtual
  assert.equal(runDeadlineMs(1e9, 200_000), STARTUP_ALLOWANCE_MS + 200_000, 'a slower pacing extends it');
  assert.ok(runDeadlineMs(20e9, 0) > runDeadlineMs(1e9, 0));
});

test('resultFromLog: the last line that is a result, not the pino lines around it; null when there is none', () => {
  const result = { traceHash: 'abc', conservation: true };
  const log = ['{"level":30,"msg":"controller listening"}', JSON.stringify(result), '{"level":40,"msg":"closing"}', '{not json', ''].join('\n');
  const read = resultFromLog(log);
  assert.deepEqual(read.result, result);
  assert.deepEqual(read.rest, ['{"level":30,"msg":"controller listening"}', '{"level":40,"msg":"closing"}', '{not json']);
  const none = resultFromLog('starting\n{"level":50,"msg":"controller failed"}\n');
  assert.equal(none.result, null);
  assert.equal(logTail(none.rest, 1), '  {"level":50,"msg":"controller failed"}');
  assert.equal(logTail([]), '  (its log is empty)');
});

const pod = (name: string, status: V1Pod['status']): V1Pod => ({ metadata: { name }, status });

test('imageProblem and podStates: the kubelet\'s reasons, a back-off on the image but not its first failed pull', () => {
  const waiting = (reason: string, message: string) => ({ phase: 'Pending', containerStatuses: [{ name: 'rocelab', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason, message } } }] });
  assert.equal(imageProblem([pod('h1', waiting('ErrImagePull', 'not found'))]), null, 'the first failure may be retried');
  assert.deepEqual(imageProblem([pod('h1', { phase: 'Running' }), pod('h2', waiting('ImagePullBackOff', 'Back-off'))]), { pod: 'h2', reason: 'ImagePullBackOff', message: 'Back-off' });
  const unschedulable = pod('tor1', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' }] });
  const states = podStates([pod('h1', { phase: 'Running' }), unschedulable, pod('controller', { phase: 'Running' })]);
  assert.equal(states, 'controller Running; tor1 Pending (Unschedulable: 0/1 nodes are available: 1 Insufficient cpu.)');
  assert.equal(podStates([pod('h1', { phase: 'Running' })]), 'all 1 running');
});
