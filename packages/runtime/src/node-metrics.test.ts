import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { declareAppRegions, loadTopologyFile } from '@rocelab/topology';
import { buildEngine } from './models.js';
import { podContext, prepareApps } from './pod-context.js';
import { NodeMetrics } from './node-metrics.js';
import { onePod } from './testing.js';

const POD = onePod(`timing: drill
workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 1MB, start: 0us}
`);
const US = 1_000_000;

test('a restarted node’s metrics read its new model; while dead they show its last life', async () => {
  const pc = podContext(POD, 1);
  const engine = buildEngine(pc, [0, 1, 2]);
  const h2 = POD.nodes.find((n) => n.name === 'h2')!.index;
  const metrics = new NodeMetrics(POD, [0, 1, 2], () => engine, () => 0);
  engine.runUntil(100 * US);
  const first = metrics.registry(h2)!;
  const goodput = async () => Number(/^rocelab_goodput_bytes_total\{[^}]*\} (\d+)$/m.exec(await metrics.registry(h2)!.metrics())![1]);
  const before = await goodput();
  assert.ok(before > 0, 'h2 received payload');
  engine.scheduleKill(100 * US, 0, h2, 0);
  engine.scheduleRestart(200 * US, 1, h2, 0);
  engine.runUntil(150 * US);
  assert.equal(metrics.registry(h2), first, 'dead: the same registry, frozen');
  assert.equal(await goodput(), before);
  engine.runUntil(250 * US);
  assert.notEqual(metrics.registry(h2), first, 'rebooted: a registry over the new model');
  assert.equal(await goodput(), 0, 'its model counters start over');
});

test('an app’s own counters and histograms appear in its node’s /metrics once it creates them', async () => {
  const pod = loadTopologyFile(join(fileURLToPath(new URL('../../../examples/atomic-counter/pod.yaml', import.meta.url))));
  await declareAppRegions(pod);
  const pc = podContext(pod, 1);
  const all = pod.nodes.map((n) => n.index);
  await prepareApps(pc, all);
  const engine = buildEngine(pc, all);
  const h1 = pod.nodes.find((n) => n.name === 'h1')!.index;
  const metrics = new NodeMetrics(pod, all, () => engine, () => 0);
  assert.doesNotMatch(await metrics.registry(h1)!.metrics(), /rocelab_app_/, 'nothing before the app made one');
  engine.runUntil(200 * US);
  const text = await metrics.registry(h1)!.metrics();
  const count = /^rocelab_app_fetch_add_seconds_count\{app="counter\.ts",node="h1",role="host"\} (\d+)$/m.exec(text);
  assert.ok(count !== null, text.split('\n').filter((l) => l.includes('rocelab_app')).join('\n'));
  assert.ok(Number(count[1]) > 10, `${count[1]} round trips observed`);
  assert.match(text, /^# HELP rocelab_app_fetch_add_seconds FETCH_AND_ADD round trips$/m);
});
