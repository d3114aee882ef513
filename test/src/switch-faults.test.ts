/**
 * The switch-side faults of issue 24 through the whole stack — the fault table, the runtime's
 * events, the switch model — in one engine stepped through virtual time, and through the CLI in
 * one process and with one process per node (the same trace hash: the faults are engine events).
 *
 * The pod: h1 → h2 (40 MB) and h3 → h2 through sw1, 40 Gb/s, 1 µs, a 1 MiB buffer so a stuck port
 * pauses upstream within microseconds; `timing: drill` for the watchdog.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { Scenario } from './scenario.js';
import { cli, fixture } from './harness.js';

const US = PS_PER_US;

function pod(faults: string[], switchKeys = ''): string {
  return `name: swfaults
seed: 3
timing: drill
defaults:
  link: {rate: 40G, latency: 1us, mtu: 1024}
  switch: {bufferBytes: 1MiB${switchKeys}}
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
  - {kind: flow, from: h1, to: h2, sizeBytes: 40MB, start: 0us}
  - {kind: flow, from: h1, to: h3, sizeBytes: 40MB, start: 0us, rate: 5G}
faults:
${faults.map((f) => `  - ${f}\n`).join('')}`;
}

const total = (drops: Record<string, number>) => Object.values(drops).reduce((a, b) => a + b, 0);
const scenario = (text: string) => new Scenario(fixture('line.yaml'), () => text);
/** Payload h2 accepted from h1 between two instants, as a rate in Gb/s. */
function gbps(s: Scenario, fromPs: number, toPs: number): number {
  s.runTo(fromPs);
  const before = s.received(0, 'h1', 'h2');
  s.runTo(toPs);
  return ((s.received(0, 'h1', 'h2') - before) * 8) / ((toPs - fromPs) / 1e12) / 1e9;
}

test('egressStuck sw1:p2 for 300 µs: h2 gets nothing, sw1 pauses h1 with nothing dropped, the frames wait and leave after; conservation holds throughout', () => {
  const s = scenario(pod(['{at: 100us, kind: egressStuck, node: sw1, port: p2, for: 300us}']));
  assert.ok(gbps(s, 50 * US, 100 * US) > 30, 'about 35 Gb/s before (h1 → h3 takes 5)');
  const pausesBefore = s.pfcSent('sw1', 'p1');
  assert.equal(gbps(s, 110 * US, 400 * US), 0, 'nothing reaches h2 while its port is stuck');
  assert.ok(s.pfcSent('sw1', 'p1') > pausesBefore, "sw1's ingress from h1 crossed XOFF and paused h1");
  assert.ok(s.switch('sw1').queueBytes(s.portIndex('sw1', 'p2'), 3) > 0, 'the frames wait in the queue');
  assert.equal(s.switch('sw1').egress.stuckPs(s.portIndex('sw1', 'p2'), 3, 400 * US), 300 * US);
  s.assertConserved();
  assert.ok(s.received(1, 'h1', 'h3') > 0, 'h1 → h3 keeps going at first: only the stuck port holds');
  assert.ok(gbps(s, 500 * US, 1 * PS_PER_MS) > 30, 'and back at line rate after');
  assert.equal(total(s.drops()), 0, 'lossless: nothing dropped');
  s.assertConserved();
});

test('egressSlow sw1:p2 at 10 Gb/s for 500 µs: h2 receives at 10 Gb/s of wire (9.26 Gb/s of payload), then at line rate again', () => {
  const s = scenario(pod(['{at: 100us, kind: egressSlow, node: sw1, port: p2, rate: 10G, for: 500us}']));
  // 1024 B of payload in 1106 B on the wire: 10 × 1024 / 1106 = 9.259 Gb/s of payload.
  const slow = gbps(s, 200 * US, 600 * US);
  assert.ok(Math.abs(slow - 9.259) < 0.05, `${slow} Gb/s`);
  assert.ok(gbps(s, 700 * US, 1 * PS_PER_MS) > 30);
  assert.equal(total(s.drops()), 0);
  s.assertConserved();
});

test('switchPauseStorm sw1:p1 for 400 µs: sw1 pauses h1 with an empty buffer, h1 stops, and sends again after the storm', () => {
  const s = scenario(pod(['{at: 100us, kind: switchPauseStorm, node: sw1, port: p1, for: 400us}']));
  s.runTo(100 * US);
  const pauses = s.pfcSent('sw1', 'p1');
  assert.equal(gbps(s, 110 * US, 500 * US), 0, 'h1 is paused: nothing reaches h2');
  assert.ok(s.pfcSent('sw1', 'p1') > pauses, 'the storm refreshes its pauses');
  assert.equal(s.switch('sw1').queueBytes(s.portIndex('sw1', 'p2'), 3), 0, "sw1's buffer is empty: the pauses are the storm's");
  assert.equal(s.switch('sw1').pfc.stormPs(s.portIndex('sw1', 'p1'), 3, 500 * US), 400 * US);
  assert.ok(gbps(s, 600 * US, 1 * PS_PER_MS) > 30, 'h1 sends again');
  s.assertConserved();
});

test("a switch-originated storm is a neighbour switch's PFC storm: sw2:p9 storms sw1, whose watchdog on every port declares it, drops, and stops passing the pause on to its hosts", () => {
  const s = new Scenario(fixture('tree.yaml'), (y) =>
    y
      .replace('seed: 7', 'seed: 7\ntiming: drill')
      .replace('  link: {rate: 40G, latency: 1us, mtu: 1024}', '  link: {rate: 40G, latency: 1us, mtu: 1024}\n  switch: {watchdog: {enabled: true, ports: all, action: drop}}')
      .concat('faults:\n  - {at: 1ms, kind: switchPauseStorm, node: sw2, port: p9}\n')
      .replace(/sizeBytes: \dMB/g, 'sizeBytes: 400MB'),
  );
  const wd = s.switch('sw1').watchdog(s.portIndex('sw1', 'p9'), 3)!;
  s.runTo(1 * PS_PER_MS);
  assert.equal(wd.detections, 0);
  // Detection 2 ms in polls of 1 ms (drill timing, PHYSICS §4.2): the 2 ms poll still saw frames
  // leave since the 1 ms one (the first pause arrives 1 µs after the storm starts); the 3 and 4 ms
  // polls are storm polls, and the second finds time left ≤ poll: declared at 4 ms.
  s.runTo(4 * PS_PER_MS);
  assert.equal(wd.state, 'operational');
  s.runTo(4 * PS_PER_MS + 1);
  assert.equal(wd.state, 'stormed');
  assert.ok(s.drops().watchdog! > 0, 'what sw1 held for sw2 is dropped');
  const spread = ['p1', 'p2'].map((p) => s.pfcSent('sw1', p));
  assert.ok(spread.every((n) => n > 0), `before that, sw1's full ingress paused h1 and h2 (${spread.join(', ')} pauses)`);
  s.runTo(4 * PS_PER_MS + 100 * US);
  const settled = ['p1', 'p2'].map((p) => s.pfcSent('sw1', p));
  s.runTo(6 * PS_PER_MS);
  assert.deepEqual(
    ['p1', 'p2'].map((p) => s.pfcSent('sw1', p)),
    settled,
    'contained: sw1 pauses its hosts no more while sw2 storms on',
  );
  assert.ok(s.port('sw1', 'p9').pfcRx[3]! > 6, 'the storm goes on');
  s.assertConserved();
});

const KINDS = [
  ['egressStuck', '{at: 200us, kind: egressStuck, node: sw1, port: p2, for: 300us}'],
  ['egressSlow', '{at: 200us, kind: egressSlow, node: sw1, port: p2, priority: 3, rate: 10G}'],
  ['switchPauseStorm', '{at: 200us, kind: switchPauseStorm, node: sw1, port: p1, for: 400us}'],
] as const;

for (const [kind, item] of KINDS) {
  test(`${kind} end to end: the same trace hash and counts inproc and in procs, and not the hash without it`, { timeout: 300_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), `rocelab-${kind}-`));
    const file = join(dir, 'pod.yaml');
    writeFileSync(file, pod([item]));
    const runs = [[], ['--mode', 'procs']].map((mode) => {
      const r = cli(['run', file, '--duration', '1ms', '--json', ...mode], {}, 300_000);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.json!.conservation, true);
      return r.json!;
    });
    const outcome = (r: (typeof runs)[number]) => ({ traceHash: r.traceHash, packets: r.packets, droppedByReason: r.droppedByReason, summary: r.summary, faults: r.faults });
    assert.deepEqual(outcome(runs[1]!), outcome(runs[0]!));
    assert.deepEqual(
      runs[0]!.faults.map((f) => [f.kind, f.target]),
      [[kind, item.includes('port: p1') ? 'sw1:p1' : 'sw1:p2']],
    );
    const plain = join(dir, 'plain.yaml');
    writeFileSync(plain, pod([]).replace('\nfaults:\n', '\n'));
    const without = cli(['run', plain, '--duration', '1ms', '--json']);
    assert.equal(without.status, 0, without.stderr);
    assert.notEqual(without.json!.traceHash, runs[0]!.traceHash, 'the fault changed the run');
  });
}
