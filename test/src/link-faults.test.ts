/**
 * Issue 24's link and configuration faults through the engine (the fault table, the runtime's
 * events and the models' handlers): a one-way link failure, a link trained down to a lower rate,
 * a port MTU below its peer's, a DSCP-to-priority mistake on a switch or a NIC, and an ECMP
 * hash misconfiguration — what starts at `at`, what `for` undoes, and the counters that show it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { Scenario } from './scenario.js';
import { fixture } from './harness.js';

/** h1 → h2 (and h3 → h2 for incasts, h2 → h1 for a reverse flow) through sw1, 40 Gb/s, 1 µs. */
function pod(faults: string[], opts: { incast?: boolean; reverse?: boolean; switchKeys?: string; flowBytes?: string } = {}): string {
  return `name: link-faults
seed: 3
timing: drill
defaults:
  link: {rate: 40G, latency: 1us, mtu: 1024}
  switch: {bufferBytes: 1MiB${opts.switchKeys ? `, ${opts.switchKeys}` : ''}}
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
  - {name: h3, role: host, ip: 10.0.1.3}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
  - {a: h3:p0, b: sw1:p3}
workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: ${opts.flowBytes ?? '40MB'}, start: 0us}
${opts.incast ? '  - {kind: flow, from: h3, to: h2, sizeBytes: 40MB, start: 0us}\n' : ''}${opts.reverse ? '  - {kind: flow, from: h2, to: h1, sizeBytes: 40MB, start: 0us}\n' : ''}${faults.length === 0 ? '' : `faults:\n${faults.map((f) => `  - ${f}\n`).join('')}`}`;
}

const scenario = (text: string) => new Scenario(fixture('line.yaml'), () => text);
const dropsOf = (s: Scenario, reason: string) => s.drops()[reason] ?? 0;

test('linkDown direction out: h1 → sw1 carries nothing while sw1 → h1 carries on; for brings it back; no direction is both ways, as before', () => {
  const s = scenario(pod(['{at: 100us, kind: linkDown, link: h1:p0, direction: out, for: 100us}'], { reverse: true }));
  s.runTo(100 * PS_PER_US);
  assert.equal(dropsOf(s, 'link_down'), 0);
  const rx = s.port('h1', 'p0').rxFrames;
  s.runTo(200 * PS_PER_US);
  assert.ok(dropsOf(s, 'link_down') > 300, `${dropsOf(s, 'link_down')} frames lost on h1 → sw1`);
  assert.equal(s.ctx('sw1').stats.droppedByReason().link_down, 0, 'nothing lost the other way');
  assert.ok(s.port('h1', 'p0').rxFrames > rx + 300, 'h2 → h1 data kept arriving');
  const lost = dropsOf(s, 'link_down');
  s.runTo(3 * PS_PER_MS);
  assert.equal(dropsOf(s, 'link_down'), lost, 'up again after for');
  assert.ok(s.received(0, 'h1', 'h2') > 5e6, 'h1 → h2 recovers (go-back-N after the timeout)');
  s.assertConserved();
  // Without direction, and with direction both: the same events, so the same run.
  const hash = (f: string) => {
    const x = scenario(pod([f]));
    x.runTo(300 * PS_PER_US);
    return x.result().traceHash;
  };
  assert.equal(hash('{at: 100us, kind: linkDown, link: h1:p0, for: 100us}'), hash('{at: 100us, kind: linkDown, link: h1:p0, direction: both, for: 100us}'));
});

test('linkRate: h2 trained down to 10 Gb/s queues h1 → h2 at sw1:p2 and PFC pauses h1; goodput is 10 Gb/s while it lasts and 40 again after', () => {
  const s = scenario(pod(['{at: 200us, kind: linkRate, link: h2:p0, direction: in, rate: 10G, for: 400us}']));
  s.runTo(200 * PS_PER_US);
  const pfcBefore = s.pfcSent('sw1', 'p1');
  const at200 = s.received(0, 'h1', 'h2');
  s.runTo(300 * PS_PER_US); // let the queue settle
  const at300 = s.received(0, 'h1', 'h2');
  s.runTo(600 * PS_PER_US);
  const during = ((s.received(0, 'h1', 'h2') - at300) * 8) / 300e-6;
  assert.ok(during > 9e9 && during < 10e9, `goodput ${during / 1e9} Gb/s while trained down (payload of a 10 Gb/s wire)`);
  assert.ok(s.pfcSent('sw1', 'p1') > pfcBefore, 'the queue behind the slow link pauses h1');
  assert.equal(s.ctx('sw1').transmitters[s.portIndex('sw1', 'p2')]!.currentRateBps, 10e9);
  assert.ok(at300 - at200 > 0);
  s.runTo(1 * PS_PER_MS);
  assert.equal(s.ctx('sw1').transmitters[s.portIndex('sw1', 'p2')]!.currentRateBps, 40e9, 'for restores the configured rate');
  const at1 = s.received(0, 'h1', 'h2');
  s.runTo(1.2 * PS_PER_MS);
  const after = ((s.received(0, 'h1', 'h2') - at1) * 8) / 200e-6;
  assert.ok(after > 35e9, `goodput ${after / 1e9} Gb/s after`);
  assert.equal(Object.values(s.drops()).reduce((a, b) => a + b, 0), 0, 'nothing dropped: lossless');
  s.assertConserved();
});

test('mtuMismatch: sw1:p2 at IP MTU 1000 drops every 1024 B data packet toward h2 as mtu_exceeded; 1500 drops none; for restores it', () => {
  const small = scenario(pod(['{at: 100us, kind: mtuMismatch, node: sw1, port: p2, mtu: 1500}']));
  small.runTo(500 * PS_PER_US);
  assert.equal(dropsOf(small, 'mtu_exceeded'), 0, '1024 B payload is a 1068 B IP packet (+16 B RETH on the first): it fits 1500');
  const s = scenario(pod(['{at: 100us, kind: mtuMismatch, node: sw1, port: p2, mtu: 1000, for: 200us}']));
  s.runTo(100 * PS_PER_US);
  const delivered = s.received(0, 'h1', 'h2');
  s.runTo(300 * PS_PER_US);
  assert.ok(dropsOf(s, 'mtu_exceeded') > 100, `${dropsOf(s, 'mtu_exceeded')} dropped`);
  assert.equal(s.ctx('sw1').stats.ports[s.portIndex('sw1', 'p2')]!.dropped.at(-1), dropsOf(s, 'mtu_exceeded'), 'counted on sw1:p2');
  // What was already on the wire or in flight beyond sw1:p2 at 100 µs (1 µs of latency: about 6 packets).
  assert.ok(s.received(0, 'h1', 'h2') - delivered <= 8 * 1024, `${s.received(0, 'h1', 'h2') - delivered} B got through`);
  s.runTo(3 * PS_PER_MS);
  assert.ok(s.received(0, 'h1', 'h2') > delivered + 1e6, 'the flow recovers after for');
  s.assertConserved();
});

test('dscpMisconfig on the switch: RoCE to priority 0 on sw1 — an incast stops pausing and drops (buffer) and go-back-N retransmits; the same incast configured right pauses and drops nothing', () => {
  const right = scenario(pod([], { incast: true, switchKeys: 'ecn: {enabled: false}' }));
  right.runTo(1 * PS_PER_MS);
  assert.ok(right.pfcSent('sw1', 'p1') + right.pfcSent('sw1', 'p3') > 0);
  assert.equal(dropsOf(right, 'buffer'), 0);
  const s = scenario(pod(['{at: 0us, kind: dscpMisconfig, node: sw1, dscp: 26, priority: 0}'], { incast: true, switchKeys: 'ecn: {enabled: false}' }));
  s.runTo(1 * PS_PER_MS);
  assert.equal(s.pfcSent('sw1', 'p1') + s.pfcSent('sw1', 'p3'), 0, 'PFC counters stay at zero');
  assert.ok(dropsOf(s, 'buffer') > 10, `${dropsOf(s, 'buffer')} buffer drops`);
  const retx = s.host('h1').results().sent[0]!.retransmittedPackets + s.host('h3').results().sent[0]!.retransmittedPackets;
  assert.ok(retx > 10, `${retx} retransmitted`);
  assert.equal(s.switch('sw1').dscpRemapped, 3, 'DSCP 26 on three ports');
  s.assertConserved();
});

test('dscpMisconfig on a port: only what arrives on sw1:p1 is lossy; h3 is still paused', () => {
  const s = scenario(pod(['{at: 0us, kind: dscpMisconfig, node: sw1, port: p1, dscp: 26, priority: 0}'], { incast: true, switchKeys: 'ecn: {enabled: false}' }));
  s.runTo(1 * PS_PER_MS);
  assert.equal(s.pfcSent('sw1', 'p1'), 0);
  assert.ok(s.pfcSent('sw1', 'p3') > 0, 'h3 is paused as configured');
  assert.ok(s.ctx('sw1').stats.ports[s.portIndex('sw1', 'p1')]!.dropped[0]! > 0, 'drops (buffer) on the ingress p1');
  assert.equal(s.ctx('sw1').stats.ports[s.portIndex('sw1', 'p3')]!.dropped[0], 0);
});

test('dscpMisconfig on a NIC: h1 marks its RoCE for priority 0 (DSCP 0); sw1 queues it lossy; for restores the marking', () => {
  const s = scenario(pod(['{at: 0us, kind: dscpMisconfig, node: h1, priority: 0, for: 500us}'], { incast: true, switchKeys: 'ecn: {enabled: false}' }));
  s.runTo(500 * PS_PER_US);
  assert.ok(s.nic('h1').dscpRemarked > 1000);
  assert.equal(s.pfcSent('sw1', 'p1'), 0, 'h1 is never paused');
  assert.ok(s.ctx('sw1').stats.ports[s.portIndex('sw1', 'p1')]!.dropped[0]! > 0, "h1's packets are dropped at sw1 instead");
  const remarked = s.nic('h1').dscpRemarked;
  s.runTo(1.5 * PS_PER_MS);
  assert.equal(s.nic('h1').dscpRemarked, remarked, 'marked as configured again');
  assert.ok(s.pfcSent('sw1', 'p1') > 0, 'and paused again');
  s.assertConserved();
});

test('ecmpMisconfig: leaf1 hashing dstIp only puts h1 and h2 → h3 on one uplink; the settings spread them again', () => {
  const base = readFileSync(fixture('switch/clos.yaml'), 'utf8').replace(/workloads:[\s\S]*$/, '');
  const flows = ['h1', 'h2'].flatMap((from) => [0, 1, 2, 3].map((k) => `  - {kind: flow, from: ${from}, to: h3, sizeBytes: 100MB, start: ${k}us, rate: 2G}`));
  const text = `${base}workloads:\n${flows.join('\n')}\nfaults:\n  - {at: 500us, kind: ecmpMisconfig, node: leaf1, fields: [dstIp], for: 500us}\n`;
  const s = new Scenario(fixture('switch/clos.yaml'), () => text);
  const tx = () => ['up1', 'up2'].map((p) => s.port('leaf1', p).txFrames);
  s.runTo(400 * PS_PER_US);
  const a = tx();
  s.runTo(500 * PS_PER_US);
  const before = tx().map((x, i) => x - a[i]!);
  assert.ok(before.every((x) => x > 30), `both uplinks carry before: ${before}`);
  s.runTo(600 * PS_PER_US);
  const b = tx();
  s.runTo(1 * PS_PER_MS);
  const during = tx().map((x, i) => x - b[i]!);
  assert.ok(Math.min(...during) === 0 && Math.max(...during) > 500, `one uplink only while polarized: ${during}`);
  s.runTo(1.1 * PS_PER_MS);
  const c = tx();
  s.runTo(1.5 * PS_PER_MS);
  const after = tx().map((x, i) => x - c[i]!);
  assert.ok(after.every((x) => x > 30), `both again after for: ${after}`);
  s.assertConserved();
});
