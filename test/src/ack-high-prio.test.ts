/**
 * hpcc-ns3's ACK_HIGH_PRIO end to end (issue 26): with `nic: {ackIgnoresPause: true}` a host sends
 * its ACKs while PAUSE holds their priority, and the switch, which still counts them in the
 * lossless group they arrive on, drops them when that group's headroom is full (`headroom_full`,
 * HPCC switch-mmu.cc CheckIngressAdmission's "Headroom full"). Without it the same pod drops
 * nothing. Fixture: test/fixtures/rnic/ack-high-prio.yaml.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, fixture } from './harness.js';

const DEFAULTS = '  switch: {bufferBytes: 512KiB}\n';

function run(file: string, args: string[], duration = '2ms') {
  const r = cli(['run', file, '--json', '--duration', duration, ...args]);
  assert.equal(r.status, 0, r.stderr);
  return r.json!;
}

/** A fixture with `defaults.nic.ackIgnoresPause: true`, as `rocelab import hpcc-ns3` writes ACK_HIGH_PRIO 1. */
function withAckIgnoresPause(name = 'rnic/ack-high-prio.yaml', from = DEFAULTS, to = `${DEFAULTS}  nic: {ackIgnoresPause: true}\n`): string {
  const text = readFileSync(fixture(name), 'utf8');
  assert.ok(text.includes(from));
  const file = join(mkdtempSync(join(tmpdir(), 'rocelab-ack-high-prio-')), 'pod.yaml');
  writeFileSync(file, text.replace(from, to));
  return file;
}

type Result = ReturnType<typeof run>;
const port = (r: Result, name: string) => r.summary.ports.find((p) => p.port === name)!;
const balanced = (r: Result) => r.packets.sent === r.packets.delivered + r.packets.dropped + r.packets.queued;

test('without ackIgnoresPause a paused host holds its ACKs: heavy PFC, nothing dropped', () => {
  const r = run(fixture('rnic/ack-high-prio.yaml'), []);
  assert.equal(r.conservation, true);
  assert.ok(balanced(r), JSON.stringify(r.packets));
  assert.equal(r.packets.dropped, 0, JSON.stringify(r.droppedByReason));
  const x = port(r, 'x:p0').pfc.find((p) => p.priority === 3)!;
  assert.ok(x.pausedNs > 1_000_000, `x (which sends nothing but ACKs) paused ${x.pausedNs} ns of 2 ms`);
});

test('with ackIgnoresPause (ACK_HIGH_PRIO 1) the switch drops the paused host\'s ACKs as headroom_full, conservation holds, one trace hash inproc and as processes', () => {
  const file = withAckIgnoresPause();
  const r = run(file, []);
  assert.equal(r.conservation, true);
  assert.ok(balanced(r), JSON.stringify(r.packets));
  const drops = r.droppedByReason.headroom_full;
  assert.ok(drops > 0, 'ACKs dropped for a full headroom');
  assert.equal(r.packets.dropped, drops, `every drop is headroom_full: ${JSON.stringify(r.droppedByReason)}`);
  // x sends nothing but ACKs, and every drop is on the switch port it feeds: every dropped frame is one of its ACKs.
  assert.deepEqual(port(r, 'sw1:p2').droppedByReason, { headroom_full: drops });
  assert.equal(r.summary.portTotals.losslessDrops, drops, 'counted as lossless drops: PFC did not protect them');
  const procs = run(file, ['--mode', 'procs']);
  assert.equal(procs.traceHash, r.traceHash);
  assert.deepEqual(procs.droppedByReason, r.droppedByReason);
  assert.deepEqual(procs.packets, r.packets);
});

test('the simulator\'s case (fixture ack-high-prio-incast: 32 hosts incast on v, x ACKs v): no drop without the setting, ACKs dropped as headroom_full with it, as HPCC prints "Headroom full" only with ACK_HIGH_PRIO 1', () => {
  const off = run(fixture('rnic/ack-high-prio-incast.yaml'), [], '3ms');
  assert.equal(off.conservation, true);
  assert.equal(off.packets.dropped, 0, JSON.stringify(off.droppedByReason));
  const NIC = '  nic: {dcqcn: {enabled: false}}\n';
  const on = run(withAckIgnoresPause('rnic/ack-high-prio-incast.yaml', NIC, '  nic: {dcqcn: {enabled: false}, ackIgnoresPause: true}\n'), [], '3ms');
  assert.equal(on.conservation, true);
  assert.ok(balanced(on), JSON.stringify(on.packets));
  const drops = on.droppedByReason.headroom_full;
  assert.ok(drops > 0);
  // The summary lists the 20 most paused ports of 68, so which port dropped is shown by the small pod above.
  assert.equal(on.packets.dropped, drops, JSON.stringify(on.droppedByReason));
  assert.equal(on.summary.portTotals.losslessDrops, drops);
});
