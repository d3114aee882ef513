/**
 * The drills of issue 24's link faults fail when their central bound is made false, and say by
 * how much: `roce-lossy-queue` (the buffer drops a DSCP mistake causes) and `gray-link` (the
 * goodput of a flow ECMP hashed onto the trained-down link). That they pass, inproc and in procs
 * with the same numbers, is the drill tier (`builtin-drills.test.ts`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, ROOT } from './harness.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-link-drill-'));

/** A built-in drill with one text replacement, as a self-contained file elsewhere. */
function edited(drill: string, from: string, to: string): string {
  const text = readFileSync(join(ROOT, 'drills', drill), 'utf8');
  assert.ok(text.includes(from), `${drill} holds ${from}`);
  const file = join(tmp(), drill);
  writeFileSync(file, text.replace(from, to));
  return file;
}

test('roce-lossy-queue fails, with its margin, when the buffer drops of the DSCP mistake are bounded below what it causes', { timeout: 300_000 }, () => {
  const file = edited('roce-lossy-queue.yaml', "labels: {node: tor1, reason: buffer}, op: '>', value: 10000, description: 'while", "labels: {node: tor1, reason: buffer}, op: '<', value: 10000, description: 'while");
  const r = cli(['drill', 'run', file, '--variant', 'switch-map', '--out', tmp()], {}, 300_000);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /^FAIL  expect\[4\] +switch-map: while tor1 drops RoCE at the lossy buffer threshold \(30,394 measured\)\n +measured 30394 packets; expected < 10000 packets; 20394 packets the wrong side$/m);
  assert.match(r.stdout, /^FAIL: 3 of 4 expectations hold; failing: expect\[4\] \(switch-map\)$/m);
});

test('gray-link fails, with its margin, when a flow on the trained-down link is bounded below what it gets', { timeout: 300_000 }, () => {
  const file = edited('gray-link.yaml', 'during: 1500us-4ms, max: 5G, description: \'a flow hashed', 'during: 1500us-4ms, max: 4G, description: \'a flow hashed');
  const r = cli(['drill', 'run', file, '--variant', 'trained-down', '--out', tmp()], {}, 300_000);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /^FAIL  expect\[1\] +trained-down: a flow hashed onto the trained-down link gets about half of its 9\.26 Gb\/s of payload\n +measured 4\.325 Gb\/s \(1 flow\); expected ≤ 4 Gb\/s; 0\.3254 Gb\/s over$/m);
  assert.match(r.stdout, /^FAIL: 4 of 5 expectations hold; failing: expect\[1\] \(trained-down\)$/m);
});
