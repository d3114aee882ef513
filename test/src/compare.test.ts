/**
 * `rocelab compare` through the built CLI, on the hand-made trace directories of
 * test/fixtures/compare: `ref` holds two runs (seed1 is `run` itself, seed2 is slower and
 * pauses longer) with the run column first, in the middle and last; `run` has no run column.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, fixture } from './harness.js';

const REF = fixture('compare/ref');
const RUN = fixture('compare/run');
const compare = (...args: string[]) => cli(['compare', ...args]);

/** A copy of `dir` in a temporary directory, with `edit` applied to its files. */
function copyOf(dir: string, edit: (path: (name: string) => string) => void = () => {}): string {
  const out = join(mkdtempSync(join(tmpdir(), 'rocelab-compare-')), 'dir');
  cpSync(dir, out, { recursive: true });
  edit((name) => join(out, name));
  return out;
}

function replaceIn(path: string, from: string, to: string): void {
  const text = readFileSync(path, 'utf8');
  assert.ok(text.includes(from), `${path} has ${from}`);
  writeFileSync(path, text.replace(from, to));
}

test('a run passes against itself and against the two-run reference it belongs to (exit 0)', () => {
  const self = compare(RUN, RUN);
  assert.equal(self.status, 0, self.stderr + self.stdout);
  assert.match(self.stdout, /^PASS: 0 of 25 rows fail \(1 reference run; tolerance fct 10 %, .*; rate window \[25, 50\] µs\)$/m);
  const r = compare(REF, RUN);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /^pass {2}pauses +count +2 +2 +2 +1\.8–2\.2$/m);
  assert.match(r.stdout, /^pass {2}pauses +mean length +8\.500 µs +8\.500 µs +9\.000 µs +7\.650–9\.900 µs$/m);
  assert.match(r.stdout, /^PASS: 0 of 25 rows fail \(2 reference runs;/m);
});

test('--json prints one line: pass, every row with its reference range, the reference runs', () => {
  const r = compare(REF, RUN, '--json', '--tolerance', 'all=5%');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean);
  assert.equal(lines.length, 1);
  const j = JSON.parse(lines[0]!);
  assert.equal(j.pass, true);
  assert.deepEqual(j.referenceRuns, ['seed1', 'seed2']);
  assert.equal(j.rows.length, 25);
  const marks = j.rows.find((row: { group: string }) => row.group === 'marks');
  assert.deepEqual(marks, { group: 'marks', name: 'CE marks', unit: 'count', value: 9, refMin: 9, refMax: 10, allowedMin: 8.549999999999999, allowedMax: 10.5, pass: true, note: '' });
});

test('one reference value changed: exit 1, the failing row first, named with the amount', () => {
  // The run itself as the reference, with flow 1099780063232's FCT cut from 30.2 to 20 µs.
  const ref = copyOf(RUN, (p) => replaceIn(p('fct.csv'), '0.000000,30.200000,30.200000,', '0.000000,30.200000,20.000000,'));
  const r = compare(ref, RUN);
  assert.equal(r.status, 1, r.stderr + r.stdout);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[1]!, /^FAIL {2}fct +min .*\+29\.5 % above the allowed max \(\+6\.500 µs\)$/);
  assert.match(r.stdout, /^FAIL {2}fct +flow 1099780063232 +30\.200 µs +20\.000 µs +20\.000 µs +18\.000–22\.000 µs {2}\+37\.3 % above the allowed max \(\+8\.200 µs\)$/m);
  assert.equal(lines.at(-1)!.startsWith('FAIL: 3 of 25 rows fail'), true, lines.at(-1));
  // A wider FCT tolerance lets it pass.
  assert.equal(compare(ref, RUN, '--tolerance', 'fct=60%').status, 0);
});

test('a flow missing from the reference fails with a note; --window changes the rate rows', () => {
  const ref = copyOf(REF, (p) => {
    const text = readFileSync(p('fct.csv'), 'utf8');
    writeFileSync(p('fct.csv'), text.split('\n').filter((l) => !l.startsWith('1099511627777,')).join('\n'));
  });
  const r = compare(ref, RUN, '--json', '--window', '0us-20us');
  assert.equal(r.status, 1, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.deepEqual(j.rows.filter((row: { pass: boolean }) => !row.pass).map((row: { name: string; note: string }) => `${row.name}: ${row.note}`), [
    'flow 1099511627777: not in the reference (in none of its 2 runs)',
  ]);
  assert.deepEqual(j.window, { startUs: 0, endUs: 20, endInclusive: false });
  assert.equal(j.rows.find((row: { name: string }) => row.name === 'aggregate').value, (19.8 + 19.6) / 2);
});

test('bad input exits 2 with what is wrong, where and what was expected', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-compare-'));
  const missingDir = compare(join(dir, 'nope'), RUN);
  assert.equal(missingDir.status, 2);
  assert.equal(missingDir.stderr, `rocelab compare: REF_DIR ${join(dir, 'nope')}: expected a directory of trace files (rates.csv, queue.csv, pfc.csv, fct.csv, probes.csv, events.csv, qp-events.csv, packet-events.csv), got nothing there (ENOENT)\n`);

  const run = copyOf(RUN, (p) => rmSync(p('queue.csv')));
  const missingFile = compare(REF, run);
  assert.equal(missingFile.status, 2);
  assert.equal(missingFile.stderr, `rocelab compare: ${join(run, 'queue.csv')}: expected a trace file, as the reference has ${join(REF, 'queue.csv')}, got nothing there\n`);

  const badTolerance = compare(REF, RUN, '--tolerance', 'fct=10%,latency=5%');
  assert.equal(badTolerance.status, 2);
  assert.match(badTolerance.stderr, /--tolerance <spec>' argument 'fct=10%,latency=5%' is invalid\. expected KEY=PERCENT\[,KEY=PERCENT…\] with KEY one of fct, rate, queue, pauses, marks, cnps, slowdown, all .*, got the key "latency" in "latency=5%"/);

  const badWindow = compare(REF, RUN, '--window', '5ms-1ms');
  assert.equal(badWindow.status, 2);
  assert.match(badWindow.stderr, /expected A-B, two durations with a unit \(ns, us, ms, s\) and A < B, e\.g\. 1ms-5ms, got "5ms-1ms"/);

  const broken = copyOf(REF, (p) => replaceIn(p('pfc.csv'), 'seed2,pause', 'seed2,stop'));
  const badCsv = compare(broken, RUN);
  assert.equal(badCsv.status, 2);
  assert.equal(badCsv.stderr, `rocelab compare: ${join(broken, 'pfc.csv')}:7: event (column 6): expected one of pause, resume, got "stop"\n`);

  const severalRuns = compare(RUN, REF);
  assert.equal(severalRuns.status, 2);
  assert.match(severalRuns.stderr, /^rocelab compare: RUN_DIR .*compare\/ref: expected one run \(files without a run column, or one value in it\), got 2 runs \(seed1, seed2\)$/m);
});

/** A directory holding only fct.csv: `rows` as `flow,size_bytes,slowdown`, every one completed (ideal 1 µs, FCT = slowdown µs). */
function fctDir(rows: ReadonlyArray<[number, number, number]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-slowdown-'));
  const lines = rows.map(([flow, size, slowdown]) => `${flow},h1,h2,${size},0.000000,${slowdown.toFixed(6)},${slowdown.toFixed(6)},1.000000,${slowdown.toFixed(6)},success`);
  writeFileSync(join(dir, 'fct.csv'), `flow,from,to,size_bytes,start_us,completion_us,fct_us,ideal_fct_us,slowdown,status,bucket\n${lines.map((l) => `${l},\n`).join('')}`);
  return dir;
}

test('slowdown per size group: P50/P95/P99 rows named by group; within the slowdown tolerance passes, beyond it fails (exit 1)', () => {
  // 20 messages, sizes 1..20 kB, slowdown 1 + k/10: groups of 5 % hold one message each.
  const ref = fctDir(Array.from({ length: 20 }, (_, k): [number, number, number] => [k + 1, (k + 1) * 1000, 1 + k / 10]));
  // The same sizes, the largest message 15 % slower (2.9 → 3.335): within 20 %, beyond 10 %.
  const slower = fctDir(Array.from({ length: 20 }, (_, k): [number, number, number] => [k + 1, (k + 1) * 1000, k === 19 ? 3.335 : 1 + k / 10]));
  const pass = compare(ref, slower, '--json', '--tolerance', 'fct=100%,slowdown=20%');
  assert.equal(pass.status, 0, pass.stderr + pass.stdout);
  const rows = JSON.parse(pass.stdout).rows.filter((r: { group: string }) => r.group === 'slowdown');
  assert.equal(rows.length, 60);
  assert.deepEqual(rows.at(-1), { group: 'slowdown', name: 'bucket 95-100% p99', unit: 'ratio', value: 3.335, refMin: 2.9, refMax: 2.9, allowedMin: 2.32, allowedMax: 2.9 * 1.2, pass: true, note: '' });
  // The FCT rows of the largest message fail too (fct 10 %); the slowdown rows are the point here.
  const fail = compare(ref, slower, '--tolerance', 'slowdown=10%');
  assert.equal(fail.status, 1, fail.stderr + fail.stdout);
  assert.match(fail.stdout, /^FAIL {2}slowdown +bucket 95-100% p50 +3\.335 +2\.9 +2\.9 +2\.61–3\.19 {2}\+4\.5 % above the allowed max \(\+0\.145\)$/m);
  assert.doesNotMatch(fail.stdout, /^FAIL {2}slowdown +bucket 90-95%/m);
});
