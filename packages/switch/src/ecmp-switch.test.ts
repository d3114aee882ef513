import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine, type Profile } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { hpccEcmpHash } from './ecmp-hash-hpcc.js';
import { flowHash, ROCE_UDP_PORT } from './forwarding.js';
import type { SwitchSettings } from './profiles.js';
import { Switch } from './switch.js';
import { testSwitchConfig } from './testing.js';

const H1_IP = 0x0a_00_01_0b;
const FAR_IP = 0x0a_00_02_0b;
const FLOWS = 60;

/**
 * h1 — sw — {x1, x2, x3}: a three-way ECMP route to FAR over sw ports 1..3 (sorted names: h1 = 0,
 * sw = 1, x1..x3 = 2..4, so the switch's node index is 1). Returns, per UDP source port
 * 49152 + k, the port index (1..3) its frame left on.
 */
function paths(profile: Profile, settings: Partial<SwitchSettings> = {}): number[] {
  const nodes = testNodes([
    { a: 'h1', b: 'sw' },
    { a: 'sw', b: 'x1' },
    { a: 'sw', b: 'x2' },
    { a: 'sw', b: 'x3' },
  ]);
  const engine = new Engine({ seed: 1, nodes, hosted: nodes.map((n) => n.index), wire: DEFAULT_WIRE_MODEL });
  const sw = engine.context(1);
  const config = testSwitchConfig(sw, { profile, routes: [{ ip: FAR_IP, ports: [1, 2, 3] }], settings });
  engine.attach(1, new Switch(sw, config));
  const models = [0, 2, 3, 4].map((i) => {
    const model = new ScriptedNode(engine.context(i));
    engine.attach(i, model);
    return model;
  });
  for (let k = 0; k < FLOWS; k++) models[0]!.send(0, dataFrame({ srcIp: H1_IP, dstIp: FAR_IP, ttl: 64, udpSrcPort: 49152 + k }));
  engine.runUntil(100_000_000);
  const out: number[] = [];
  models.slice(1).forEach((m, i) => m.received.forEach((r) => (out[r.frame.udpSrcPort - 49152] = i + 1)));
  assert.equal(out.filter((p) => p !== undefined).length, FLOWS, 'every frame arrives once');
  return out;
}

const expected = (hash: (udp: number) => number) => Array.from({ length: FLOWS }, (_, k) => [1, 2, 3][hash(49152 + k) % 3]);

test('vendor: rocelab’s hash with seed 0 — the paths of runs before seeds existed', () => {
  assert.deepEqual(paths('vendor'), expected((udp) => flowHash(H1_IP, FAR_IP, udp)));
});

test('hpcc-ns3: HPCC’s EcmpHash seeded with the switch’s node index (1 here), unless ecmpSeed says otherwise', () => {
  assert.deepEqual(paths('hpcc-ns3'), expected((udp) => hpccEcmpHash(H1_IP, FAR_IP, udp, ROCE_UDP_PORT, 1)));
  assert.deepEqual(paths('hpcc-ns3', { ecmpSeed: 4242 }), expected((udp) => hpccEcmpHash(H1_IP, FAR_IP, udp, ROCE_UDP_PORT, 4242)));
});

test('ecmpSeed and ecmpHash apply to any profile', () => {
  assert.deepEqual(paths('vendor', { ecmpSeed: 9 }), expected((udp) => flowHash(H1_IP, FAR_IP, udp, 9)));
  assert.deepEqual(paths('vendor', { ecmpHash: 'hpcc-ns3' }), expected((udp) => hpccEcmpHash(H1_IP, FAR_IP, udp, ROCE_UDP_PORT, 1)));
  assert.notDeepEqual(paths('vendor', { ecmpSeed: 9 }), paths('vendor'), 'a seed changes some paths');
});
