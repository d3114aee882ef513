import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { cli, fixture } from './harness.js';

const CONFIG = fixture('hpcc-ns3/config.txt');


test('rocelab import hpcc-ns3 writes the pod of the example, finding its files beside the config; the pod runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-import-'));
  const out = join(dir, 'mix.yaml');
  const r = cli(['import', 'hpcc-ns3', CONFIG, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /wrote .*mix\.yaml: 66 nodes, 65 links, 2 flows \(files found beside the config, by file name/);
  assert.match(r.stderr, /warning: .*trace\.txt:2: 282 node id\(s\)/);
  const text = readFileSync(out, 'utf8');
  assert.match(text, /^# Imported by rocelab import hpcc-ns3/);
  const runnable = join(dir, 'mix-now.yaml');
  writeFileSync(runnable, text);
  // The flows start at 2 s: the run jumps the idle time and runs 50 µs of them.
  const run = cli(['run', runnable, '--duration', '2.00005s', '--json']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.json!.conservation, true);
  const flows = run.json!.flows as Array<{ from: string; to: string; deliveredBytes: number }>;
  assert.deepEqual(flows.map((f) => [f.from, f.to]), [['n02', 'n01'], ['n03', 'n01']]);
  assert.ok(flows.every((f) => f.deliveredBytes > 0));
});

test('rocelab import hpcc-ns3 finds the files in the simulator\'s working directory, and prints to stdout without -o', () => {
  const sim = mkdtempSync(join(tmpdir(), 'rocelab-sim-'));
  mkdirSync(join(sim, 'mix'));
  for (const f of ['config.txt', 'topology.txt', 'flow.txt', 'trace.txt']) copyFileSync(fixture(`hpcc-ns3/${f}`), join(sim, 'mix', f));
  const r = cli(['import', 'hpcc-ns3', join(sim, 'mix', 'config.txt')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /found in the simulator's working directory/);
  assert.equal((parse(r.stdout) as { name: string }).name, 'hpcc-ns3-mix');
});

test('rocelab import and import hpcc-ns3 answer --help, exit 0', () => {
  for (const args of [['import'], ['import', 'hpcc-ns3']]) {
    const r = cli([...args, '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: rocelab import/);
  }
});

test('rocelab import hpcc-ns3 refuses a bad config with exit 2, naming file, line, key and expectation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-import-bad-'));
  for (const f of ['topology.txt', 'flow.txt', 'trace.txt']) copyFileSync(fixture(`hpcc-ns3/${f}`), join(dir, f));
  const config = join(dir, 'config.txt');
  writeFileSync(config, readFileSync(CONFIG, 'utf8').replace('CC_MODE 3', 'CC_MODE 10'));
  const out = join(dir, 'pod.yaml');
  const r = cli(['import', 'hpcc-ns3', config, '-o', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^rocelab import: .*config\.txt:15: CC_MODE 10: expected 1 \(DCQCN\), 3 \(HPCC\), 7 \(TIMELY\) or 8 \(DCTCP\): rocelab has no HPCC-PINT/m);
  writeFileSync(config, readFileSync(CONFIG, 'utf8').replace('mix/flow.txt', 'mix/none.txt'));
  const missing = cli(['import', 'hpcc-ns3', config, '-o', out]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /config\.txt:7: FLOW_FILE mix\/none\.txt: expected a file that exists \(tried /);
  const nofile = cli(['import', 'hpcc-ns3', join(dir, 'absent.txt')]);
  assert.equal(nofile.status, 2);
  assert.match(nofile.stderr, /absent\.txt/);
});

test('the comparison input of docs/hpcc-ns3-import.md (clos26) imports with exact per-port settings and runs its first half millisecond', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-import-clos26-'));
  const out = join(dir, 'clos26.yaml');
  const r = cli(['import', 'hpcc-ns3', fixture('hpcc-ns3/clos26/config.txt'), '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /wrote .*clos26\.yaml: 26 nodes, 32 links, 796 flows/);
  assert.doesNotMatch(r.stderr, /warning/);
  const pod = parse(readFileSync(out, 'utf8')) as { defaults: { nic: Record<string, unknown>; switch: Record<string, unknown> } };
  assert.deepEqual(pod.defaults.nic.window, { enabled: true, bytes: 'auto', varWin: true });
  assert.equal(pod.defaults.nic.cc, 'dcqcn');
  assert.deepEqual(pod.defaults.switch.alphaByRate, [{ rate: '50G', alpha: 0.25 }]);
  const run = cli(['run', out, '--duration', '2.0005s', '--json']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.json!.conservation, true);
});
