/**
 * Issue 24's configuration faults on the switch model: a DSCP-to-priority mistake on one ingress
 * port or all (`dscpMisconfig` → SwitchFault `dscp`) and an ECMP hash, seed or field-set mistake
 * (`ecmpMisconfig` → SwitchFault `ecmp`), each applied through `onFault` and undone with null.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { DEFAULT_DSCP_MAP } from '@rocelab/wire';
import { Classifier } from './classifier.js';
import { flowHash, Forwarding } from './forwarding.js';
import { Switch } from './switch.js';
import { testSwitchConfig } from './testing.js';

const H1_IP = 0x0a_00_01_0b;
const FAR_IP = 0x0a_00_02_0b;

test('Classifier.remap: one port, one DSCP; then every DSCP of every port; null restores the settings', () => {
  const c = new Classifier(DEFAULT_DSCP_MAP, [3], 3);
  const roce = dataFrame({ dscp: 26 });
  assert.deepEqual([0, 1, 2].map((p) => c.priorityAt(p, roce)), [3, 3, 3]);
  c.remap(1, 26, 0);
  assert.deepEqual([0, 1, 2].map((p) => c.priorityAt(p, roce)), [3, 0, 3]);
  assert.equal(c.priorityAt(1, dataFrame({ dscp: 48 })), 6, 'only DSCP 26 on port 1');
  assert.equal(c.priority(roce), 3, "the settings' map (re-tags, credit lanes) is untouched");
  assert.equal(c.remappedEntries, 1);
  c.remap(null, null, 1);
  assert.equal(c.priorityAt(2, dataFrame({ dscp: 48 })), 1);
  assert.equal(c.remappedEntries, 3 * 64, 'every (port, DSCP): the default map sends none to 1');
  c.remap(null, null, null);
  assert.deepEqual([0, 1, 2].map((p) => c.priorityAt(p, roce)), [3, 3, 3]);
  assert.equal(c.remappedEntries, 0);
});

test('Forwarding.setEcmp: a hash of dstIp only sends every flow to one destination down one port (polarization); the settings again spread them', () => {
  const f = new Forwarding([{ ip: FAR_IP, ports: [1, 2, 3, 4] }]);
  const ports = () => new Set(Array.from({ length: 64 }, (_, k) => f.egressPort(H1_IP, FAR_IP, 49152 + k)));
  assert.equal(ports().size, 4, 'the 5-tuple spreads 64 QPs over all four next hops');
  f.setEcmp({ hash: 'rocelab', seed: 0, fields: ['dstIp'] });
  assert.equal(ports().size, 1);
  assert.deepEqual([...ports()], [[1, 2, 3, 4][flowHash(0, FAR_IP, 0) % 4]], 'the omitted fields hash as 0');
  f.setEcmp({ hash: 'rocelab', seed: 0, fields: ['srcIp', 'dstIp', 'srcPort'] });
  assert.equal(ports().size, 4, 'all three fields: the full hash');
  f.setEcmp({ hash: 'rocelab', seed: 77 });
  assert.equal(f.egressPort(H1_IP, FAR_IP, 49152), [1, 2, 3, 4][flowHash(H1_IP, FAR_IP, 49152, 77) % 4]);
});

/** h1 — sw — {x1, x2}: a two-way ECMP route to FAR. Frames from h1 with `n` UDP source ports; which port each left on. */
function switchRun(faults: Array<[number, Parameters<Switch['onFault']>[1]]>, frames: (k: number) => ReturnType<typeof dataFrame>, n: number) {
  const nodes = testNodes([
    { a: 'h1', b: 'sw' },
    { a: 'sw', b: 'x1' },
    { a: 'sw', b: 'x2' },
  ]);
  const engine = new Engine({ seed: 1, nodes, hosted: nodes.map((x) => x.index), wire: DEFAULT_WIRE_MODEL });
  const ctx = engine.context(1);
  const sw = new Switch(ctx, testSwitchConfig(ctx, { profile: 'vendor', routes: [{ ip: FAR_IP, ports: [1, 2] }] }));
  engine.attach(1, sw);
  const models = [0, 2, 3].map((i) => {
    const m = new ScriptedNode(engine.context(i));
    engine.attach(i, m);
    return m;
  });
  faults.forEach(([at, fault], i) => engine.scheduleFault(at, i, 1, 1, fault));
  for (let k = 0; k < n; k++) models[0]!.at(k * 1_000_000, () => models[0]!.send(0, frames(k)));
  engine.runUntil(n * 1_000_000 + 10_000_000);
  return { sw, engine, received: models.slice(1).map((m) => m.received) };
}

test('SwitchFault dscp: RoCE arriving on the misconfigured port is queued on priority 0 while it lasts; txPackets shows the queue', () => {
  const roce = (k: number) => dataFrame({ srcIp: H1_IP, dstIp: FAR_IP, ttl: 64, dscp: 26, udpSrcPort: 49152 + k });
  const { sw } = switchRun(
    [
      [10_000_000, { kind: 'dscp', port: 0, dscp: 26, priority: 0 }],
      [20_000_000, { kind: 'dscp', port: 0, dscp: 26, priority: null }],
    ],
    roce,
    30,
  );
  const sent = (q: number) => sw.txPackets[1 * 8 + q]! + sw.txPackets[2 * 8 + q]!;
  assert.equal(sent(0), 10, 'frames 10..19 went out of queue 0');
  assert.equal(sent(3), 20, 'the others of queue 3');
  assert.equal(sw.dscpRemapped, 0, 'restored');
});

test('SwitchFault ecmp: fields [dstIp] from 10 µs on puts every QP on one uplink; null spreads them again', () => {
  const frame = (k: number) => dataFrame({ srcIp: H1_IP, dstIp: FAR_IP, ttl: 64, udpSrcPort: 49152 + k });
  const { received, sw } = switchRun(
    [
      [10_000_000, { kind: 'ecmp', change: { fields: ['dstIp'] } }],
      [40_000_000, { kind: 'ecmp', change: null }],
    ],
    frame,
    70,
  );
  const portOf = (k: number) => (received[0]!.some((r) => r.frame.udpSrcPort === 49152 + k) ? 1 : 2);
  const during = new Set(Array.from({ length: 30 }, (_, i) => portOf(10 + i)));
  assert.equal(during.size, 1, 'polarized');
  assert.equal(new Set(Array.from({ length: 30 }, (_, i) => portOf(40 + i))).size, 2, 'spread again');
  assert.deepEqual(sw.ecmp, { hash: 'rocelab', seed: 0 });
});
