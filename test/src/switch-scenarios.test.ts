/**
 * The switch dataplane through the real engine (issue 3 acceptance): lossless and lossy incast,
 * and a stuck receiver whose pause storm spreads through a Clos — with and without the PFC
 * watchdog. Each scenario ends with the conservation audit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { cli, fixture } from './harness.js';
import { Scenario } from './scenario.js';

const PS_PER_BYTE_40G = 200; // 8e12 / 40e9


test('lossless incast: both senders are paused, nothing is dropped, the bottleneck stays ≥ 98 % busy', () => {
  const s = new Scenario(fixture('switch/incast-lossless.yaml'));
  // Find the first XOFF to the microsecond: the first PFC frame sw1 sends.
  const pfcFromSwitch = () => s.pfcSent('sw1', 'p1') + s.pfcSent('sw1', 'p2');
  let xoffPs = 0;
  for (let t = PS_PER_US; t <= 500 * PS_PER_US && xoffPs === 0; t += PS_PER_US) {
    s.runTo(t);
    if (pfcFromSwitch() > 0) xoffPs = t;
  }
  assert.ok(xoffPs > 0, 'XOFF is reached within 500 µs');
  const bottleneck = s.port('sw1', 'p3');
  const before = { frames: bottleneck.txFrames, bytes: bottleneck.txBytes };
  const endPs = 5 * PS_PER_MS;
  s.runTo(endPs);
  // Busy time of the port to h3: every frame's bytes plus 20 B preamble and gap, at 200 ps per byte.
  const busyPs = (bottleneck.txBytes - before.bytes + 20 * (bottleneck.txFrames - before.frames)) * PS_PER_BYTE_40G;
  const utilisation = busyPs / (endPs - xoffPs);
  assert.ok(utilisation >= 0.98, `bottleneck utilisation ${utilisation.toFixed(4)} from the first XOFF (${xoffPs} ps) to the end`);
  assert.ok(s.pfcSent('sw1', 'p1') > 0 && s.pfcSent('sw1', 'p2') > 0, 'pauses to both senders');
  assert.ok(s.port('h1', 'p0').pfcRx[3]! > 0 && s.port('h2', 'p0').pfcRx[3]! > 0, 'and both received them');
  assert.deepEqual(
    Object.entries(s.drops()).filter(([, n]) => n > 0),
    [],
    'zero drops',
  );
  s.assertConserved();
});

test('lossy incast: the same traffic on priority 0 is dropped (`buffer`) and nobody is paused', () => {
  const s = new Scenario(fixture('switch/incast-lossy.yaml'));
  s.runTo(5 * PS_PER_MS);
  const drops = s.drops();
  assert.ok(drops.buffer! > 1000, `buffer drops: ${drops.buffer}`);
  const pfc = s.pod.nodes.flatMap((n) => s.ctx(n.name).stats.ports.map((p) => p.pfcTx.reduce((a, b) => a + b, 0))).reduce((a, b) => a + b, 0);
  assert.equal(pfc, 0, 'zero pause frames anywhere');
  assert.ok(s.received(0, 'h1', 'h3') + s.received(1, 'h2', 'h3') > 0);
  s.assertConserved();
});

const STORM_PS = 2 * PS_PER_MS; // the fixture's nicPauseStorm on h4
const STEP_PS = 50 * PS_PER_US;
/** workloads[2]: the victim h2 → h3. */
const victimBytes = (s: Scenario) => s.received(2, 'h2', 'h3');

/** Pause counters on the path back from the stuck host: tor2's uplink, leaf2 to the spines, the spines to leaf1. */
const hops = (s: Scenario) => ({
  tor2: s.pfcSent('tor2', 'up1'),
  leaf2: s.pfcSent('leaf2', 'up1') + s.pfcSent('leaf2', 'up2'),
  spines: s.pfcSent('spine1', 'down1') + s.pfcSent('spine2', 'down1'),
});

/** Victim goodput in bytes per virtual second over [fromPs, toPs). */
function victimRate(s: Scenario, fromPs: number, toPs: number): number {
  s.runTo(fromPs);
  const start = victimBytes(s);
  s.runTo(toPs);
  return ((victimBytes(s) - start) * 1e12) / (toPs - fromPs);
}

test('stuck receiver, watchdog off: pauses climb tor2 → leaf2 → spines and the victim starves', () => {
  const s = new Scenario(fixture('switch/stuck-receiver.yaml'), (y) => y.replace('watchdog: {enabled: true,', 'watchdog: {enabled: false,'));
  const preStorm = victimRate(s, 1 * PS_PER_MS, STORM_PS);
  assert.deepEqual(hops(s), { tor2: 0, leaf2: 0, spines: 0 }, 'no congestion before the storm');
  const first: Record<string, number> = {};
  for (let t = STORM_PS + STEP_PS; t <= 5 * PS_PER_MS; t += STEP_PS) {
    s.runTo(t);
    for (const [hop, count] of Object.entries(hops(s))) if (count > 0 && first[hop] === undefined) first[hop] = t;
  }
  assert.ok(first.tor2! <= first.leaf2! && first.leaf2! <= first.spines!, `pauses spread hop by hop: ${JSON.stringify(first)}`);
  const during = victimRate(s, 3 * PS_PER_MS, 5 * PS_PER_MS);
  assert.ok(preStorm > 1e9, `the victim ran at ${preStorm} B/s before the storm`);
  assert.ok(during < 0.1 * preStorm, `victim goodput collapses: ${during} B/s against ${preStorm} B/s before`);
  s.assertConserved();
});

test('stuck receiver, watchdog on (drop): tor2 declares the storm in time, the fabric calms down, the victim recovers', () => {
  const s = new Scenario(fixture('switch/stuck-receiver.yaml'));
  const preStorm = victimRate(s, 1 * PS_PER_MS, STORM_PS);
  const watchdog = s.switch('tor2').watchdog(s.portIndex('tor2', 'p2'), 3)!;
  let detectedPs = 0;
  for (let t = STORM_PS; t <= 8 * PS_PER_MS && detectedPs === 0; t += PS_PER_US) {
    s.runTo(t);
    if (watchdog.state === 'stormed') detectedPs = t;
  }
  // Detection 2 ms + 2 polls of 1 ms (drill timing) after the storm starts, at the latest.
  assert.ok(detectedPs > STORM_PS && detectedPs <= STORM_PS + 2 * PS_PER_MS + 2 * PS_PER_MS, `declared at ${detectedPs} ps`);
  assert.equal(watchdog.detections, 1);
  const recovered = victimRate(s, detectedPs + 750 * PS_PER_US, detectedPs + 1 * PS_PER_MS);
  assert.ok(recovered >= 0.9 * preStorm, `victim at ${recovered} B/s 1 ms after detection, ${preStorm} B/s before the storm`);
  const settled = hops(s);
  s.runTo(detectedPs + 4 * PS_PER_MS);
  const later = hops(s);
  assert.deepEqual({ leaf2: later.leaf2, spines: later.spines }, { leaf2: settled.leaf2, spines: settled.spines }, 'leaf and spine pause counters stop rising');
  assert.ok(s.drops().watchdog! > 0, 'traffic to the stuck host is dropped as `watchdog`');
  s.assertConserved();
});

test('switch/clos.yaml gives the same trace hash in inproc, procs and --workers 2', () => {
  const hashes = [[], ['--mode', 'procs'], ['--workers', '2']].map((mode) => {
    const r = cli(['run', fixture('switch/clos.yaml'), '--seed', '3', '--duration', '1ms', '--json', ...mode]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json!.conservation, true);
    assert.ok(r.json!.packets.sent > 5000);
    return r.json!.traceHash;
  });
  assert.equal(new Set(hashes).size, 1, hashes.join(' '));
});
