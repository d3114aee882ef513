import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { dscpMap, pfcFrame } from '@rocelab/wire';
import type { SwitchSettings } from './profiles.js';
import { Switch } from './switch.js';
import { testSwitchConfig } from './testing.js';

// Tagger wired into a ToR (issue 14): port 0 faces host h1, ports 1 and 2 face two leaves (up).
// h1's MAC entry ages out after 10 µs, so a packet for h1 that comes down from leaf1 is flooded:
// down to h1 (on its up-down path) and up to leaf2 (a bounce against up-down).
const H1_IP = 0x0a000001;
const H1_MAC = 0x020000000011;
const LEAF1_MAC = 0x020000000021;
const AGEING = 10_000_000;
const TAG2_DSCP = 34;
/** A host behind leaf1: the route goes up port 1. */
const REMOTE_IP = 0x0a000201;

function tor(beyond: { lossy: number } | 'drop') {
  const nodes = testNodes([
    { a: 'h1', b: 'sw' },
    { a: 'leaf1', b: 'sw' },
    { a: 'leaf2', b: 'sw' },
  ]); // h1 = 0, leaf1 = 1, leaf2 = 2, sw = 3 with port i facing node i
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1, 2, 3], wire: DEFAULT_WIRE_MODEL });
  const settings: Partial<SwitchSettings> = {
    macAgeingPs: AGEING,
    losslessPriorities: [3, 4],
    dscpMap: dscpMap({ 26: 3, [TAG2_DSCP]: 4, 48: 6 }),
    watchdog: { enabled: false, ports: 'all', action: 'drop', detectionPs: 1, restorationPs: 1, pollPs: 1 },
    tagger: { losslessByTag: [3, 4], beyond },
  };
  const config = testSwitchConfig(engine.context(3), { attachedHosts: [{ ip: H1_IP, mac: H1_MAC, port: 0 }], routes: [{ ip: REMOTE_IP, ports: [1] }], settings });
  const sw = new Switch(engine.context(3), { ...config, portDirections: ['down', 'up', 'up'] });
  engine.attach(3, sw);
  const [h1, leaf1, leaf2] = [0, 1, 2].map((i) => {
    const n = new ScriptedNode(engine.context(i));
    engine.attach(i, n);
    return n;
  });
  return { engine, sw, h1: h1!, leaf1: leaf1!, leaf2: leaf2!, stats: engine.context(3).stats };
}

/** A packet for h1 coming down from leaf1, with tag 1 (DSCP 26) or tag 2 (DSCP 34). */
const downToH1 = (psn: number, dscp: number) => dataFrame({ srcIp: REMOTE_IP, dstIp: H1_IP, srcMac: LEAF1_MAC, psn, dscp });

test('a flooded packet keeps its tag down to the host and takes the next tag (DSCP of priority 4) up to the other leaf', () => {
  const { engine, sw, h1, leaf1, leaf2 } = tor('drop');
  leaf1.at(20_000_000, () => leaf1.send(0, downToH1(1, 26)));
  engine.runUntil(30_000_000);
  assert.equal(h1.received.length, 1);
  assert.equal(h1.received[0]!.frame.dscp, 26, 'down to the host: still tag 1 (priority 3)');
  assert.equal(leaf2.received.length, 1);
  assert.equal(leaf2.received[0]!.frame.dscp, TAG2_DSCP, 'up again after coming down: tag 2, carried as the DSCP of priority 4');
  assert.deepEqual(sw.tagger!.stats, { retagged: 1, demoted: 0, dropped: 0 });
});

test('past the last lossless tag a bounce is dropped (`beyond: drop`, reason tagger) or demoted to the lossy priority', () => {
  for (const beyond of ['drop', { lossy: 0 }] as const) {
    const { engine, sw, h1, leaf1, leaf2, stats } = tor(beyond);
    leaf1.at(20_000_000, () => leaf1.send(0, downToH1(1, TAG2_DSCP)));
    engine.runUntil(30_000_000);
    assert.equal(h1.received[0]!.frame.dscp, TAG2_DSCP, 'down to the host it keeps tag 2');
    if (beyond === 'drop') {
      assert.equal(leaf2.received.length, 0);
      assert.equal(stats.droppedByReason().tagger, 1);
      assert.deepEqual(sw.tagger!.stats, { retagged: 1, demoted: 0, dropped: 1 });
    } else {
      assert.equal(leaf2.received.length, 1);
      assert.equal(leaf2.received[0]!.frame.dscp, 0, 'demoted: the DSCP of lossy priority 0');
      assert.deepEqual(sw.tagger!.stats, { retagged: 1, demoted: 1, dropped: 0 });
    }
  }
});

test('a host\'s packet is tagged 1 whatever it carried, and lossy traffic is never tagged', () => {
  const { engine, sw, h1, leaf1 } = tor('drop');
  const up = (psn: number, dscp: number) => dataFrame({ srcIp: H1_IP, dstIp: REMOTE_IP, srcMac: H1_MAC, psn, dscp });
  h1.send(0, up(1, TAG2_DSCP));
  h1.send(0, up(2, 0));
  engine.runUntil(10_000_000);
  assert.deepEqual(leaf1.received.map((r) => r.frame.dscp), [26, 0], 'tag 1 (priority 3) from a host; DSCP 0 untouched');
  assert.deepEqual(sw.tagger!.stats, { retagged: 0, demoted: 0, dropped: 0 });
});

test('the ingress group and the egress queue are accounted apart: a re-tagged copy waits in queue 4 while ingress group 3 holds it, and both release exactly', () => {
  const { engine, sw, leaf1, leaf2 } = tor('drop');
  // leaf2 pauses the switch's priority 4 before the flood, so the re-tagged copy waits at port 2.
  leaf2.at(15_000_000, () => leaf2.send(0, pfcFrame(1 << 4, [0, 0, 0, 0, 0xffff, 0, 0, 0])));
  leaf1.at(20_000_000, () => leaf1.send(0, downToH1(1, 26)));
  engine.runUntil(30_000_000);
  assert.equal(leaf2.received.length, 0, 'paused on priority 4');
  assert.ok(sw.queueBytes(2, 4) > 0, 'the copy waits in egress queue 4');
  assert.equal(sw.queueBytes(2, 3), 0);
  assert.equal(sw.mmu.egressBytes(2, 4), sw.queueBytes(2, 4), 'egress counted on queue 4');
  assert.equal(sw.mmu.ingressBytes(1, 3), sw.queueBytes(2, 4), 'ingress counted on the group it arrived in (3)');
  assert.equal(sw.mmu.ingressBytes(1, 4), 0);
  leaf2.at(31_000_000, () => leaf2.send(0, pfcFrame(1 << 4, [0, 0, 0, 0, 0, 0, 0, 0])));
  engine.runUntil(40_000_000);
  assert.equal(leaf2.received.length, 1);
  assert.equal(sw.mmu.ingressBytes(1, 3), 0, 'released from group 3');
  assert.equal(sw.mmu.egressBytes(2, 4), 0, 'released from queue 4');
  assert.equal(sw.heldFrames(), 0);
});
