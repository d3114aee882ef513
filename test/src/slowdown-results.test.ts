/**
 * FCT slowdown by size group (HPCC's figures) in a run's result and in its fct.csv: the summary
 * of `rocelab run --json` is what `slowdownBuckets` makes of the trace's own rows, every
 * measured message's `bucket` names its group, and one process and one per node agree.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bucketLabel, parseTraceFile, slowdownBuckets } from '@rocelab/results';
import { cli, fixture } from './harness.js';

const run = (...extra: string[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-slowdown-'));
  const r = cli(['run', fixture('workloads.yaml'), '--duration', '1ms', '--json', '--trace', dir, ...extra]);
  assert.equal(r.status, 0, r.stderr);
  const path = join(dir, 'fct.csv');
  return { result: JSON.parse(r.stdout), rows: parseTraceFile({ name: 'fct.csv', path, text: readFileSync(path, 'utf8') }).rows, text: readFileSync(path, 'utf8') };
};

test('the run summary is the groups of fct.csv, and each measured message carries its group', () => {
  const { result, rows, text } = run();
  assert.ok(text.split('\n')[0]!.endsWith(',slowdown,status,bucket'));
  const measured = rows.filter((r) => r.status === 'success' && r.slowdown !== null);
  assert.ok(measured.length >= 10, `${measured.length} measured messages`);
  assert.deepEqual(result.slowdown, slowdownBuckets(measured.map((r) => ({ flow: r.flow, sizeBytes: r.sizeBytes, slowdown: r.slowdown! })), rows.length - measured.length));
  for (const b of result.slowdown.buckets) {
    const members = rows.filter((r) => r.bucket === bucketLabel(b.fromPercent, b.toPercent));
    assert.equal(members.length, b.count);
    assert.equal(Math.max(...members.map((r) => r.sizeBytes)), b.upToBytes);
  }
  assert.equal(rows.filter((r) => r.bucket !== undefined).length, measured.length);
});

test('one process per node gives the same summary and the same fct.csv', () => {
  const inproc = run();
  const procs = run('--mode', 'procs');
  assert.deepEqual(procs.result.slowdown, inproc.result.slowdown);
  assert.equal(procs.text, inproc.text);
});
