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

function run(file: string, args: string[]) {
  const r = cli(['run', file, '--json', '--duration', '2ms', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return r.json!;
}

/** The fixture with `defaults.nic.ackIgnoresPause: true`, as `rocelab import hpcc-ns3` writes ACK_HIGH_PRIO 1. */
function withAckIgnoresPause(): string {
  const text = readFileSync(fixture('rnic/ack-high-prio.yaml'), 'utf8');
  assert.ok(text.includes(DEFAULTS));
  const file = join(mkdtempSync(join(tmpdir(), 'rocelab-ack-high-prio-')), 'ack-high-prio.yaml');
  writeFileSync(file, text.replace(DEFAULTS, `${DEFAULTS}  nic: {ackIgnoresPause: true}\n`));
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
