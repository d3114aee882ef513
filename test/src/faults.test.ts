/**
 * Every fault kind through the engine (the fault table, the runtime's events and the models'
 * handlers): what starts at `at`, what `for` undoes, and the counters that show it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { Scenario } from './scenario.js';
import { fixture } from './harness.js';

/** h1 → h2 (and h3 → h2 for incasts) through sw1, 40 Gb/s, 1 µs; `extra` adds keys, faults and workloads. */
function pod(faults: string[], opts: { incast?: boolean; switchKeys?: string; flowBytes?: string } = {}): string {
  return `name: faults
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
${opts.incast ? '  - {kind: flow, from: h3, to: h2, sizeBytes: 40MB, start: 0us}\n' : ''}faults:
${faults.map((f) => `  - ${f}\n`).join('')}`;
}

const scenario = (text: string) => new Scenario(fixture('line.yaml'), () => text);
const dropsOf = (s: Scenario, reason: string) => s.drops()[reason] ?? 0;

test('loss with for: every frame on h1 → sw1 is lost between 100 and 200 µs, none before or after', () => {
  const s = scenario(pod(['{at: 100us, kind: loss, link: h1:p0, direction: out, rate: 1, for: 100us}']));
  s.runTo(100 * PS_PER_US);
  assert.equal(dropsOf(s, 'loss'), 0);
  s.runTo(200 * PS_PER_US);
  const during = dropsOf(s, 'loss');
  assert.ok(during > 400, `${during} frames lost in 100 µs of a 40 Gb/s link`);
  const delivered = s.received(0, 'h1', 'h2');
  s.runTo(2 * PS_PER_MS);
  assert.equal(dropsOf(s, 'loss'), during, 'the loss ended with its for');
  assert.ok(s.received(0, 'h1', 'h2') > delivered + 1e6, 'the flow recovers (go-back-N after the timeout)');
  s.assertConserved();
});

test('packetEvent: exactly packets 5 and 17 of the flow are dropped; one NAK, and the flow completes', () => {
  const s = scenario(pod(['{at: 0us, kind: packetEvent, flow: {from: h1, to: h2}, packets: [5, 17], action: drop}'], { flowBytes: '100KB' }));
  s.runTo(2 * PS_PER_MS);
  assert.equal(dropsOf(s, 'loss'), 2);
  // Packet 17 (PSN 16) left before the NAK for PSN 4 came back: it fell inside the same gap, and
  // go-back-N resends it with the rest, so the responder NAKs once.
  assert.equal(s.nic('h1').stats.naksReceived.seq, 1);
  assert.equal(s.host('h1').results().sent[0]!.status, 'success');
  assert.equal(s.host('h1').results().sent[0]!.retransmittedPackets > 0, true);
  s.assertConserved();
});

test('packetEvent ecn: the 3rd data packet arrives CE-marked and h2 answers with one CNP', () => {
  const s = scenario(pod(['{at: 0us, kind: packetEvent, flow: {from: h1, to: h2}, packets: [3], action: ecn}'], { flowBytes: '100KB' }));
  s.runTo(1 * PS_PER_MS);
  assert.equal(s.nic('h2').stats.cnpsSent, 1);
  assert.equal(s.nic('h1').stats.cnpsReceived, 1);
  assert.equal(dropsOf(s, 'loss') + dropsOf(s, 'corrupt'), 0);
});

test('slowReceiver with for: h2 drains at 10 Gb/s and pauses sw1 only while it lasts', () => {
  const s = scenario(pod(['{at: 100us, kind: slowReceiver, node: h2, drainRate: 10G, for: 300us}']));
  s.runTo(100 * PS_PER_US);
  assert.equal(s.pfcSent('h2', 'p0'), 0);
  s.runTo(400 * PS_PER_US);
  const during = s.pfcSent('h2', 'p0');
  assert.ok(during > 0, 'the slow receiver pauses its ToR');
  s.runTo(1 * PS_PER_MS);
  // After the end the buffer drains at 80 Gb/s again: at most the resume that follows.
  assert.ok(s.pfcSent('h2', 'p0') <= during + 1, `${s.pfcSent('h2', 'p0') - during} pause frames after the end`);
  s.assertConserved();
});

test('nicPauseStorm with for: h2 pauses its ToR for the storm, then resumes', () => {
  const s = scenario(pod(['{at: 100us, kind: nicPauseStorm, node: h2, for: 200us}']));
  s.runTo(300 * PS_PER_US);
  const paused = () => s.ctx('sw1').transmitters[s.portIndex('sw1', 'p2')]!.pausedPs(3, s.nowPs);
  // The pause reaches sw1 1 µs + 16.8 ns (84 B) after 100 µs; the resume, as long after 300 µs.
  assert.ok(paused() > 198 * PS_PER_US, `sw1:p2 held ${paused()} ps`);
  s.runTo(1 * PS_PER_MS);
  assert.ok(paused() < 201 * PS_PER_US, 'the storm ended with its for: a resume, not a pause running out');
});

test('linkFlap: three times down for 50 µs; frames started while down are lost as link_down; the flow goes on', () => {
  const s = scenario(pod(['{at: 100us, kind: linkFlap, link: h1:p0, period: 100us, count: 3}']));
  s.runTo(500 * PS_PER_US);
  const down = dropsOf(s, 'link_down');
  assert.ok(down > 0, 'frames were lost on the down link');
  const delivered = s.received(0, 'h1', 'h2');
  s.runTo(3 * PS_PER_MS);
  assert.equal(dropsOf(s, 'link_down'), down);
  assert.ok(s.received(0, 'h1', 'h2') > delivered, 'the flow goes on after the flaps');
  s.assertConserved();
});

test('pfcMisconfig: sw1 stops pausing h1 (priority 3 lossy on p1) and drops instead; for restores it', () => {
  const s = scenario(pod(['{at: 200us, kind: pfcMisconfig, node: sw1, port: p1, priority: 3, enabled: false, for: 300us}'], { incast: true, switchKeys: 'ecn: {enabled: false}' }));
  s.runTo(200 * PS_PER_US);
  const before = s.pfcSent('sw1', 'p1');
  assert.ok(before > 0, 'the incast pauses h1 before');
  assert.equal(dropsOf(s, 'buffer'), 0);
  s.runTo(500 * PS_PER_US);
  assert.ok(s.pfcSent('sw1', 'p1') <= before + 1, 'no pause to h1 while lossy (at most the resume)');
  assert.ok(dropsOf(s, 'buffer') > 0, 'h1 traffic is dropped at the threshold instead');
  const drops = dropsOf(s, 'buffer');
  s.runTo(1 * PS_PER_MS);
  assert.ok(s.pfcSent('sw1', 'p1') > before + 1, 'lossless again after the for');
  assert.ok(dropsOf(s, 'buffer') - drops < 5, 'and no more drops than what was already in flight');
  s.assertConserved();
});

test('ecnMisconfig: marking off on sw1 stops the CE marks of an incast; on again with for', () => {
  const s = scenario(pod(['{at: 300us, kind: ecnMisconfig, node: sw1, enabled: false, for: 300us}'], { incast: true }));
  const marks = () => s.switch('sw1').ecnMarked.reduce((a, b) => a + b, 0);
  s.runTo(300 * PS_PER_US);
  const before = marks();
  assert.ok(before > 0, 'the incast is marked before');
  s.runTo(600 * PS_PER_US);
  assert.equal(marks(), before);
  s.runTo(2 * PS_PER_MS);
  assert.ok(marks() > before, 'marking again after the for');
});

test('watchdog: switched on at 1 ms on a switch configured without it, it finds the storm', () => {
  const faults = ['{at: 500us, kind: nicPauseStorm, node: h2}'];
  const off = scenario(pod(faults, { switchKeys: 'watchdog: {enabled: false}' }));
  off.runTo(6 * PS_PER_MS);
  const on = scenario(pod([...faults, '{at: 1ms, kind: watchdog, node: sw1, enabled: true, action: drop}'], { switchKeys: 'watchdog: {enabled: false}' }));
  on.runTo(6 * PS_PER_MS);
  assert.equal(off.switch('sw1').watchdog(off.portIndex('sw1', 'p2'), 3), null);
  assert.ok((on.switch('sw1').watchdog(on.portIndex('sw1', 'p2'), 3)?.detections ?? 0) > 0);
  assert.ok(dropsOf(on, 'watchdog') > 0);
});

test('macFlush of one host floods its packets; arpExpire makes them unroutable', () => {
  const flush = scenario(pod(['{at: 100us, kind: macFlush, node: sw1, host: h2}', '{at: 100us, kind: linkDown, link: h2:p0}'], { flowBytes: '1MB' }));
  flush.runTo(300 * PS_PER_US);
  assert.ok(flush.switch('sw1').floodCopies.reduce((a, b) => a + b, 0) > 0, 'no MAC entry for h2 (its link is down: nothing relearns it): flooded');
  const arp = scenario(pod(['{at: 100us, kind: arpExpire, node: sw1, host: h2}']));
  arp.runTo(300 * PS_PER_US);
  assert.ok(dropsOf(arp, 'no_route') > 0);
  arp.assertConserved();
});
