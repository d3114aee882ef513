import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine, Rng } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { Ecn } from '@rocelab/wire';
import { markingQueues } from './ecn.js';
import type { SwitchSettings } from './profiles.js';
import { Switch } from './switch.js';
import { testSwitchConfig } from './testing.js';

const H1_IP = 0x0a_00_00_01;
const H2_IP = 0x0a_00_00_02;
const SEED = 1;

/**
 * h1 —40G— sw —10G— h2: 20 ECT frames from h1 queue up at sw's port 1 (at most ≈ 16 frames of
 * 1086 B). Kmin 0, Kmax 20,000 B and Pmax 1 make 0 < p < 1 for most departures that leave bytes
 * behind, so each of those is a coin flip from the switch's `ecn` stream.
 */
function run(ecn: Partial<SwitchSettings['ecn']>, dscp: number) {
  const nodes = testNodes([
    { a: 'h1', b: 'sw' },
    { a: 'h2', b: 'sw', rateBps: 10e9 },
  ]); // sorted: h1 = 0, h2 = 1, sw = 2
  const engine = new Engine({ seed: SEED, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  const ctx = engine.context(2);
  const base = testSwitchConfig(ctx, { routes: [{ ip: H2_IP, ports: [1] }] });
  const settings = { ...base.settings, ecn: { ...base.settings.ecn, kminBytes: 0, kmaxBytes: 20_000, pmax: 1, ...ecn } };
  const sw = new Switch(ctx, { ...base, settings });
  const h1 = new ScriptedNode(engine.context(0));
  const h2 = new ScriptedNode(engine.context(1));
  engine.attach(0, h1);
  engine.attach(1, h2);
  engine.attach(2, sw);
  for (let psn = 0; psn < 20; psn++) h1.send(0, dataFrame({ srcIp: H1_IP, dstIp: H2_IP, ttl: 64, dscp, ecn: Ecn.ect0, psn }));
  engine.runUntil(100_000_000);
  assert.equal(h2.received.length, 20, 'every frame arrives');
  const marked = h2.received.filter((r) => r.frame.ecn === Ecn.ce).length;
  const counted = sw.ecnMarked.reduce((a, b) => a + b, 0);
  assert.equal(counted, marked, 'the switch counts what it marks');
  // Whether the switch drew from its `ecn` stream: compare the stream's next number with a fresh twin's.
  const drew = ctx.rng('ecn').nextU32() !== new Rng(SEED, 'sw', 'ecn').nextU32();
  return { marked, drew };
}

test('by default every queue marks: the RoCE queue (3) and the default queue (0) both see marks and draws', () => {
  for (const dscp of [26, 0]) {
    const r = run({}, dscp);
    assert.ok(r.marked > 0 && r.marked < 20, `DSCP ${dscp}: ${r.marked} of 20 marked`);
    assert.ok(r.drew, `DSCP ${dscp}: the ecn stream advanced`);
  }
});

test('ecn.enabled false: no packet is marked and the ecn stream is never drawn from', () => {
  for (const dscp of [26, 0]) assert.deepEqual(run({ enabled: false }, dscp), { marked: 0, drew: false });
  // Even where every packet would be marked (p = 1 above Kmax = 1 B).
  assert.deepEqual(run({ enabled: false, kmaxBytes: 1 }, 26), { marked: 0, drew: false });
});

test('ecn.priorities [3]: queue 3 marks, queue 0 neither marks nor draws', () => {
  const roce = run({ priorities: [3] }, 26); // DSCP 26 → priority 3
  assert.ok(roce.marked > 0 && roce.drew);
  assert.deepEqual(run({ priorities: [3] }, 0), { marked: 0, drew: false }); // other DSCP → priority 0
  assert.deepEqual(run({ priorities: [] }, 26), { marked: 0, drew: false }, 'an empty list marks nothing');
});

test('markingQueues: a bit per queue that may mark, none when off', () => {
  assert.equal(markingQueues({ enabled: true, priorities: [0, 1, 2, 3, 4, 5, 6, 7] }), 0xff);
  assert.equal(markingQueues({ enabled: true, priorities: [3, 4] }), 0b0001_1000);
  assert.equal(markingQueues({ enabled: false, priorities: [3, 4] }), 0);
  assert.equal(markingQueues({ enabled: true, priorities: [] }), 0);
});
