/**
 * The deadlock detector on a real run: the flooding pod of test/fixtures/drills (Guo et al.,
 * SIGCOMM 2016, §4.2) through the built CLI with --trace, its queue.csv read back and searched
 * for a cycle of blocked queues. With `losslessFlood: flood` the ring ToR → leaf → ToR → leaf is
 * found; with `drop` (the fix) there is none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findDeadlock, type Deadlock } from '@rocelab/drill';
import { parseTraceFile } from '@rocelab/results';
import { loadTopologyFile } from '@rocelab/topology';
import { cli, ROOT } from './harness.js';

const FIXTURE = join(ROOT, 'drills', 'pods', 'deadlock-flooding.yaml');
/** Long enough that a queue merely held by a refreshing pause for a while does not count (pauses last 838 µs at 40 Gb/s). */
const STALL_US = 200;

/** Runs `file` for 3 ms with traces, and the detector over its queue.csv. */
function detect(file: string): { deadlock: Deadlock | null; withoutHairpins: Deadlock | null; dropped: Record<string, number> } {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-deadlock-'));
  const run = cli(['run', file, '--duration', '3ms', '--trace', dir, '--json']);
  assert.equal(run.status, 0, run.stderr);
  assert.ok(run.json !== null && run.json.conservation, 'conservation holds');
  const path = join(dir, 'queue.csv');
  const { rows } = parseTraceFile({ name: 'queue.csv', path, text: readFileSync(path, 'utf8') });
  const pod = loadTopologyFile(file);
  // Leaves route a copy their ToR flooded up straight back down the link it came up.
  const hairpinNodes = pod.nodes.filter((n) => n.role === 'leaf' || n.role === 'spine').map((n) => n.name);
  return {
    deadlock: findDeadlock({ queue: rows, links: pod.links, stallUs: STALL_US, hairpinNodes }),
    withoutHairpins: findDeadlock({ queue: rows, links: pod.links, stallUs: STALL_US }),
    dropped: run.json.droppedByReason,
  };
}

test('flooding pod: the detector finds the ring tor1:up1 → leaf1:down1 → tor1:up2 → leaf2:down1, and it lasts', () => {
  const { deadlock, withoutHairpins } = detect(FIXTURE);
  assert.ok(deadlock !== null, 'a deadlock');
  assert.deepEqual(deadlock.cycle, [
    { node: 'leaf1', port: 'down1', priority: 3 },
    { node: 'tor1', port: 'up2', priority: 3 },
    { node: 'leaf2', port: 'down1', priority: 3 },
    { node: 'tor1', port: 'up1', priority: 3 },
  ]);
  // macFlush at 1.5 ms; the ring stops within a few hundred µs, then STALL_US must pass.
  assert.ok(deadlock.atUs >= 1500 + STALL_US && deadlock.atUs <= 2600, `found at ${deadlock.atUs} µs`);
  assert.equal(deadlock.untilUs, null, 'nothing moves again');
  // Every hop of the ring goes through a leaf sending a packet back out of the port it came in.
  assert.equal(withoutHairpins, null);
});

test('the same pod with losslessFlood: drop on the ToR: no deadlock, the packets for the dead host are dropped', () => {
  const text = readFileSync(FIXTURE, 'utf8');
  assert.ok(text.includes('losslessFlood: flood'), 'the fixture names its flood setting');
  const file = join(mkdtempSync(join(tmpdir(), 'rocelab-deadlock-drop-')), 'deadlock-flooding-drop.yaml');
  writeFileSync(file, text.replace('losslessFlood: flood', 'losslessFlood: drop'));
  const { deadlock, dropped } = detect(file);
  assert.equal(deadlock, null);
  assert.ok((dropped.flood_blocked ?? 0) > 0, 'flood_blocked drops');
});
