import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildEngine, podContext } from './models.js';
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
