/**
 * Issue 24's link and configuration faults end to end through the CLI: each kind in the small
 * Clos of `switch/clos.yaml` gives the same trace hash, counts and drops in one process and with
 * one process per node — its events are engine events, computed from the file by every member.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RunResult } from '@rocelab/runtime';
import { cli, fixture } from './harness.js';

const BASE = readFileSync(fixture('switch/clos.yaml'), 'utf8');
const DIR = mkdtempSync(join(tmpdir(), 'rocelab-link-faults-'));

/** Per kind: the fault, and what the run must show (so a fault that did nothing fails). */
const delivered = (r: RunResult, to: string) => r.flows.filter((f) => f.to === to).reduce((a, f) => a + f.deliveredBytes, 0);
const KINDS: Array<[string, string, (r: RunResult, clean: RunResult) => void]> = [
  ['linkDown-out', '{at: 200us, kind: linkDown, link: leaf1:up2, direction: out, for: 300us}', (r) => assert.ok(r.droppedByReason.link_down > 0)],
  ['linkRate', '{at: 200us, kind: linkRate, link: tor2:p1, direction: out, rate: 10G, for: 1ms}', (r, clean) => assert.ok(delivered(r, 'h3') < 0.8 * delivered(clean, 'h3'), `${delivered(r, 'h3')} B to h3 (clean: ${delivered(clean, 'h3')})`)],
  ['mtuMismatch', '{at: 200us, kind: mtuMismatch, node: tor2, port: p1, mtu: 1000, for: 300us}', (r) => assert.ok(r.droppedByReason.mtu_exceeded > 0)],
  ['dscpMisconfig', '{at: 0us, kind: dscpMisconfig, node: tor2, dscp: 26, priority: 0}', (r) => assert.ok(r.droppedByReason.buffer > 0)],
  ['dscpMisconfig-nic', '{at: 0us, kind: dscpMisconfig, node: h1, priority: 0}', (r) => assert.ok(r.droppedByReason.buffer > 0)],
  ['ecmpMisconfig', '{at: 100us, kind: ecmpMisconfig, node: leaf2, seed: 12345, fields: [dstIp, srcPort]}', () => undefined],
];

function run(file: string, mode: string[]): RunResult {
  const r = cli(['run', file, '--duration', '2ms', ...mode, '--json'], {}, 300_000);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.json !== null, r.stdout);
  return r.json;
}

const outcome = (r: RunResult) => ({ traceHash: r.traceHash, events: r.events, packets: r.packets, droppedByReason: r.droppedByReason, flows: r.flows.map((f) => [f.from, f.to, f.status, f.deliveredBytes]) });

for (const [name, fault, check] of KINDS) {
  test(`${name}: the same trace hash and counts inproc and in procs; conservation holds`, { timeout: 600_000 }, () => {
    const file = join(DIR, `${name}.yaml`);
    writeFileSync(file, `${BASE}faults:\n  - ${fault}\n`);
    const [inproc, procs] = [[], ['--mode', 'procs']].map((mode) => run(file, mode));
    assert.equal(inproc!.conservation, true);
    assert.equal(procs!.conservation, true);
    assert.deepEqual(outcome(procs!), outcome(inproc!));
    const cleanFile = join(DIR, 'clean.yaml');
    writeFileSync(cleanFile, BASE);
    const clean = run(cleanFile, []);
    assert.notEqual(clean.traceHash, inproc!.traceHash, 'the fault changed the run');
    check(inproc!, clean);
  });
}
