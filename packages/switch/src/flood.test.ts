import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import type { SwitchSettings } from './profiles.js';
import { Switch } from './switch.js';
import { testSwitchConfig } from './testing.js';

// A ToR with three attached hosts; MAC entries age out after 10 µs (instead of 5 min) so the
// test sees what a ToR does when an ARP entry outlives its MAC entry (Guo et al. 2016).
const IP = [0x0a000001, 0x0a000002, 0x0a000003];
const MAC = [0x020000000011, 0x020000000012, 0x020000000013];
const AGEING = 10_000_000;

function tor(settings: Partial<SwitchSettings> = {}) {
  const nodes = testNodes([
    { a: 'h1', b: 'sw' },
    { a: 'h2', b: 'sw' },
    { a: 'h3', b: 'sw' },
  ]); // h1..h3 = 0..2, sw = 3 with port i facing host i
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1, 2, 3], wire: DEFAULT_WIRE_MODEL });
  const config = testSwitchConfig(engine.context(3), {
    peerMacs: MAC,
    attachedHosts: IP.map((ip, port) => ({ ip, mac: MAC[port]!, port })),
    settings: { macAgeingPs: AGEING, ...settings },
  });
  const sw = new Switch(engine.context(3), config);
  engine.attach(3, sw);
  const hosts = [0, 1, 2].map((i) => {
    const h = new ScriptedNode(engine.context(i));
    engine.attach(i, h);
    return h;
  });
  return { engine, sw, hosts, stats: engine.context(3).stats };
}

/** h1 → h3, lossless (DSCP 26) or lossy (DSCP 0). */
const toH3 = (psn: number, dscp = 26) => dataFrame({ srcIp: IP[0], dstIp: IP[2], srcMac: MAC[0], psn, dscp });

test('a known MAC is delivered to its port only', () => {
  const { engine, hosts, sw } = tor();
  hosts[0]!.send(0, toH3(1));
  engine.runUntil(5_000_000);
  assert.deepEqual(hosts.map((h) => h.received.length), [0, 0, 1]);
  assert.equal(hosts[2]!.received[0]!.frame.dstMac, MAC[2], 'dstMac from the ARP table');
  assert.equal(sw.floodCopies.reduce((a, b) => a + b, 0), 0);
});

test('once the MAC entry expires (ARP still valid) the ToR floods: every port but the ingress, copies counted', () => {
  const { engine, hosts, sw, stats } = tor();
  hosts[0]!.at(20_000_000, () => hosts[0]!.send(0, toH3(2, 0)));
  engine.runUntil(24_000_000);
  assert.deepEqual(hosts.map((h) => h.received.length), [0, 1, 1], 'h2 gets a copy (a real host drops it as misdelivered)');
  assert.equal(sw.floodCopies.reduce((a, b) => a + b, 0), 1, 'one new packet: the copy');
  assert.equal(stats.sent, 1, 'the copy counts as sent by the switch');
  // h3 answers at 25 µs (h1's MAC, learned at 21.2 µs, is still valid): the ToR learns h3's MAC
  // again and stops flooding for it.
  hosts[2]!.at(25_000_000, () => hosts[2]!.send(0, dataFrame({ srcIp: IP[2], dstIp: IP[0], srcMac: MAC[2] })));
  hosts[0]!.at(30_000_000, () => hosts[0]!.send(0, toH3(3, 0)));
  engine.runUntil(40_000_000);
  assert.deepEqual(hosts.map((h) => h.received.length), [1, 1, 2]);
});

test('lossless packets are flooded by default, and blocked with `losslessFlood: drop` (counted as flood_blocked)', () => {
  const flood = tor();
  flood.hosts[0]!.at(20_000_000, () => flood.hosts[0]!.send(0, toH3(1, 26)));
  flood.engine.runUntil(30_000_000);
  assert.deepEqual(flood.hosts.map((h) => h.received.length), [0, 1, 1]);

  const blocked = tor({ losslessFlood: 'drop' });
  blocked.hosts[0]!.at(20_000_000, () => {
    blocked.hosts[0]!.send(0, toH3(1, 26));
    blocked.hosts[0]!.send(0, toH3(2, 0));
  });
  blocked.engine.runUntil(30_000_000);
  assert.equal(blocked.stats.droppedByReason().flood_blocked, 1);
  assert.deepEqual(blocked.hosts.map((h) => h.received.map((r) => r.frame.psn)), [[], [2], [2]], 'the lossy one still floods');
});

test('a macFlush fault empties the MAC table: the next packet floods', () => {
  const { engine, hosts, sw } = tor({ macAgeingPs: 300_000_000_000 });
  engine.scheduleFault(1_000_000, 0, 3, 2, { kind: 'macFlush', mac: null });
  hosts[0]!.at(2_000_000, () => hosts[0]!.send(0, toH3(1)));
  engine.runUntil(10_000_000);
  assert.deepEqual(hosts.map((h) => h.received.length), [0, 1, 1]);
  assert.equal(sw.floodCopies.reduce((a, b) => a + b, 0), 1);
});
