/**
 * A live clear and a file's `for` are one fault to the engine (issue 24): fault N cleared at C
 * schedules exactly the events of fault N with `for: C − at` — the same times, numbers, targets
 * and notes — so a session's log and the drill `rocelab fault export` writes from it give the
 * same trace hash.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Engine } from '@rocelab/sim';
import { parseTopology } from '@rocelab/topology';
import { twoHostPod } from '@rocelab/topology/testing';
import { clearToWire, faultToWire, scheduleWireFault } from './fault-wire.js';
import { runInproc } from './inproc.js';
import { scheduleFault } from './faults.js';
import { podContext } from './pod-context.js';

const WORK = `workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 400KB, start: 0us}
`;
const US = 1_000_000;

/** Every call a fault makes on an engine, in order: what the engine would queue. */
function recorder(): { engine: Engine; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const rec = (name: string) => (...args: unknown[]) => calls.push([name, ...args]);
  const engine = { scheduleLinkState: rec('link'), scheduleFault: rec('fault'), scheduleImpairments: rec('impair'), scheduleKill: rec('kill'), scheduleRestart: rec('restart') } as unknown as Engine;
  return { engine, calls };
}

const KINDS = [
  '{kind: linkDown, link: sw1:p2}',
  '{kind: loss, link: h1:p0, rate: 0.25, direction: out}',
  '{kind: nicPauseStorm, node: h2}',
  '{kind: slowReceiver, node: h2, drainRate: 10G}',
  '{kind: pfcMisconfig, node: sw1, priority: 3, enabled: false}',
  '{kind: watchdog, node: sw1, enabled: false}',
  '{kind: kill, node: sw1}',
];

test('fault N cleared at C schedules the events of fault N with for C − at: same times, numbers and notes, for every undoable kind', () => {
  for (const item of KINDS) {
    // Fault 1 after a topology fault 0, as a live fault after the topology's would be.
    const live = parseTopology(twoHostPod('pair', `${WORK}faults:\n  - {kind: macFlush, node: sw1, at: 5us}\n  - ${item.replace('{', '{at: 20us, ')}\n`));
    const drill = parseTopology(twoHostPod('pair', `${WORK}faults:\n  - {kind: macFlush, node: sw1, at: 5us}\n  - ${item.replace('{', '{at: 20us, for: 30us, ')}\n`));
    const hosted = new Set(live.nodes.map((n) => n.index));
    const a = recorder();
    const pcLive = podContext(live, 1);
    scheduleFault(a.engine, pcLive, live.faults[1]!, hosted);
    const clear = clearToWire(50 * US, live.faults[1]!);
    assert.equal(clear.id, 1, `${item}: a clear is numbered as its fault`);
    scheduleWireFault(a.engine, pcLive, clear, hosted);
    const b = recorder();
    scheduleFault(b.engine, podContext(drill, 1), drill.faults[1]!, hosted);
    assert.ok(b.calls.length > a.calls.length / 2, item);
    assert.deepEqual(a.calls, b.calls, item);
  }
});

test('a session cleared through its log and the drill with for give one trace hash; a clear is not the fault left on', async () => {
  const base = parseTopology(twoHostPod('pair', WORK));
  const withFor = parseTopology(twoHostPod('pair', `${WORK}faults:\n  - {kind: nicPauseStorm, node: h2, at: 20us, for: 30us}\n`));
  const open = parseTopology(twoHostPod('pair', `${WORK}faults:\n  - {kind: nicPauseStorm, node: h2, at: 20us}\n`));
  const storm = open.faults[0]!;
  const log = [faultToWire(storm), clearToWire(50 * US, storm)];
  const run = (pod: typeof base, faults = [] as typeof log) => runInproc(pod, { seed: 1, durationPs: 150 * US, faults });
  const session = await run(base, log);
  const drill = await run(withFor);
  assert.equal(session.traceHash, drill.traceHash);
  assert.notEqual((await run(open)).traceHash, drill.traceHash, 'the clear changed the run');
  assert.ok(session.summary.portTotals.pauseFramesSent > 0, 'the storm paused');
});
