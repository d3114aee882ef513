import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, fixture, ROOT } from './harness.js';

const TREE = fixture('tree.yaml');
const run = (...args: string[]) => cli(['run', ...args, '--json']);

function hashOf(args: string[]): string {
  const r = run(...args);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.json !== null, `one JSON line expected, got: ${r.stdout}`);
  assert.equal(r.json.conservation, true);
  assert.equal(r.json.causalityViolations, 0);
  return r.json.traceHash;
}

test('rocelab run --json prints exactly one JSON line with the DESIGN §8 fields', () => {
  const r = run(TREE, '--seed', '7', '--duration', '2ms');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.split('\n').filter(Boolean).length, 1);
  const j = r.json!;
  for (const key of ['traceHash', 'seed', 'profile', 'mode', 'virtualNs', 'wallMs', 'windows', 'events', 'packets', 'droppedByReason', 'causalityViolations', 'conservation']) {
    assert.ok(key in j, `missing ${key}`);
  }
  assert.match(j.traceHash, /^[0-9a-f]{64}$/);
  assert.deepEqual([j.seed, j.profile, j.mode, j.virtualNs, j.windows], [7, 'vendor', 'inproc', 2_000_000, 0]);
  assert.deepEqual(Object.keys(j.packets), ['sent', 'delivered', 'dropped', 'queued']);
  assert.equal(j.packets.sent, j.packets.delivered + j.packets.dropped + j.packets.queued);
  assert.ok(j.events > 0 && j.packets.sent > 0);
});

test('the tree fixture hashes the same twice, in procs, with 2 workers and with 2 threads; seed 8 differs', () => {
  const base = hashOf([TREE, '--seed', '7', '--duration', '2ms']);
  assert.equal(hashOf([TREE, '--seed', '7', '--duration', '2ms']), base);
  assert.equal(hashOf([TREE, '--seed', '7', '--duration', '2ms', '--mode', 'procs']), base);
  assert.equal(hashOf([TREE, '--seed', '7', '--duration', '2ms', '--workers', '2']), base);
  assert.equal(hashOf([TREE, '--seed', '7', '--duration', '2ms', '--threads', '2']), base);
  assert.notEqual(hashOf([TREE, '--seed', '8', '--duration', '2ms']), base);
});

test('the result counts the messages between members: one per pair of neighbouring members each way per window (not one per crossing link), none in one process', () => {
  // The perf pod in two workers: one pod of the Clos and a spine each; 4 leaf–spine links cross, on one pair connection.
  const perf = fixture('perf/clos-permutation.yaml');
  const two = run(perf, '--duration', '50us', '--workers', '2').json!;
  assert.equal(two.linkMessages, two.windows * 2);
  assert.ok(two.linkBytes > two.linkMessages * 20, `${two.linkBytes} B in ${two.linkMessages} messages`);
  const one = run(perf, '--duration', '50us').json!;
  assert.deepEqual([one.linkMessages, one.linkBytes, one.traceHash], [0, 0, two.traceHash]);
  // Two threads of one process: one message through shared memory each way per window, the same hash.
  const threads = run(perf, '--duration', '50us', '--threads', '2').json!;
  assert.deepEqual([threads.mode, threads.workers, threads.linkMessages, threads.traceHash], ['threads', 2, threads.windows * 2, two.traceHash]);
});

test('--threads is for one process: with --mode procs or --workers, run and drill run refuse it before anything runs', () => {
  for (const [extra, what] of [[['--mode', 'procs'], '--mode procs'], [['--workers', '2'], '--workers']] as const) {
    for (const command of [['run', TREE, '--duration', '1ms'], ['drill', 'run', join(ROOT, 'drills', 'gray-link.yaml')]]) {
      const r = cli([...command, '--threads', '2', ...extra]);
      assert.equal(r.status, 2, `${command.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`--threads is for one process \\(--mode inproc without --workers\\), not ${what}`));
    }
  }
});

test('changing one link latency by 1 ps changes the hash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-'));
  const file = join(dir, 'tree-1ps.yaml');
  const text = readFileSync(TREE, 'utf8').replace('{a: sw1:p9, b: sw2:p9}', '{a: sw1:p9, b: sw2:p9, latency: 1000001ps}');
  assert.notEqual(text, readFileSync(TREE, 'utf8'));
  writeFileSync(file, text);
  assert.notEqual(hashOf([file, '--seed', '7', '--duration', '2ms']), hashOf([TREE, '--seed', '7', '--duration', '2ms']));
});

test('line.yaml delivers exactly the packets the link arithmetic predicts', () => {
  // h1 → sw1 → h2 at 40 Gb/s (200 ps per byte), 1 µs per link, 1024 B packets, store and forward (DESIGN §5).
  // Data: packet 0 is WRITE FIRST, 1024 + 62 + 16 (RETH) = 1102 B + 20 B preamble/gap = 224,400 ps on
  // the wire; the others 1086 + 20 B = 221,200 ps. h1 sends back to back; sw1 starts packet 0 on
  // arrival and every later one waits behind it, so packet k reaches h2's NIC at
  //   t_k = (224,400 + 1 µs) + 224,400 + 1 µs + k · 221,200 = 2,448,800 + k · 221,200 ps,
  // and is delivered when host memory has drained it from the NIC buffer at 80 Gb/s (100 ps per
  // byte): d_k = t_k + 108,600 (110,200 for packet 0).
  // ACKs: h2 acknowledges every 4th packet (psn 3, 7, …) at d_k: 66 B + 20 B = 17,200 ps to sw1,
  // 1 µs, again to h1, 1 µs, drained in 6,600 ps: delivered at d_k + 2,041,000.
  const D = 2e9; // 2 ms
  const t = (k: number) => 2_448_800 + k * 221_200;
  const d = (k: number) => t(k) + (k === 0 ? 110_200 : 108_600);
  const ks = Array.from({ length: 20_000 }, (_, k) => k);
  const dataDelivered = ks.filter((k) => d(k) < D).length;
  const acksSent = ks.filter((k) => k % 4 === 3 && d(k) < D).length;
  const acksDelivered = ks.filter((k) => k % 4 === 3 && d(k) + 2_041_000 < D).length;
  // h1 starts packet k at 224,400 + (k − 1) · 221,200 (k ≥ 1) and packet 0 at 0.
  const dataSent = Math.floor((D - 1 - 224_400) / 221_200) + 2;
  assert.deepEqual([dataDelivered, acksDelivered, dataSent, acksSent], [9031, 2255, 9042, 2257]);
  const r = run(fixture('line.yaml'), '--duration', '2ms');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json!.packets.delivered, dataDelivered + acksDelivered);
  assert.equal(r.json!.packets.sent, dataSent + acksSent);
  assert.ok(r.json!.packets.sent > 0);
  assert.equal(r.json!.packets.dropped, 0);
  assert.equal(r.json!.packets.queued, r.json!.packets.sent - r.json!.packets.delivered);
});

test('an uncounted loss fails the conservation audit and the run exits 1, in every mode', () => {
  for (const mode of [[], ['--mode', 'procs'], ['--threads', '2']]) {
    const r = run(TREE, '--duration', '2ms', '--debug-uncounted-loss', 'sw1', ...mode);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.json!.conservation, false);
    const p = r.json!.packets;
    assert.ok(p.sent > p.delivered + p.dropped + p.queued, JSON.stringify(p));
  }
});

test('a bad topology is refused before anything starts: file, path and expectation, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, readFileSync(TREE, 'utf8').replace('rate: 40G', 'rate: 40Q'));
  const r = cli(['run', file, '--duration', '1ms', '--json']);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`${file.replace(/[.]/g, '\\.')}: defaults\\.link\\.rate: expected a rate like 40G`));
});

test('bad flags are refused with what was expected', () => {
  const r = cli(['run', TREE, '--duration', '5parsecs']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--duration.*expected a duration/);
  const m = cli(['run', TREE, '--duration', '1ms', '--mode', 'docker-ish']);
  assert.equal(m.status, 2);
  assert.match(m.stderr, /--mode: expected inproc, procs, docker or k8s, got docker-ish/);
});

test('every command and subcommand answers --help with its usage, exit 0', () => {
  for (const args of [[], ['run'], ['up'], ['status'], ['compose'], ['topology'], ['topology', 'validate'], ['topology', 'clos']]) {
    const r = cli([...args, '--help']);
    assert.equal(r.status, 0, `${args.join(' ')} --help: ${r.stderr}`);
    assert.match(r.stdout, /^Usage: rocelab/, `${args.join(' ')} --help`);
  }
});

test('rocelab topology clos writes a valid pod, and refuses impossible shapes naming each problem, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-clos-'));
  const gen = cli(['topology', 'clos', '--spines', '1', '--leaves-per-pod', '2', '--tors-per-pod', '2', '--pods', '1', '--hosts-per-tor', '2', '--permutation', '1MB']);
  assert.equal(gen.status, 0, gen.stderr);
  writeFileSync(join(dir, 'pod.yaml'), gen.stdout);
  const valid = cli(['topology', 'validate', join(dir, 'pod.yaml')]);
  assert.equal(valid.status, 0, valid.stderr);
  assert.match(valid.stdout, /9 nodes \(4 hosts\), 10 links, 1 workloads/);
  const bad = cli(['topology', 'clos', '--spines', '1', '--leaves-per-pod', '2', '--tors-per-pod', '300', '--pods', '1', '--hosts-per-tor', '2', '--rate', '40Q']);
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /torsPerPod: expected an integer in 1\.\.254, got 300\n\s+rate: expected a rate like 40G, 100M or 2\.5G, got "40Q"/);
});

test('rocelab compose refuses a node named like a compose service, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-compose-'));
  const file = join(dir, 'clash.yaml');
  writeFileSync(file, 'name: clash\nnodes:\n  - {name: prometheus, role: tor}\n  - {name: h1, role: host, ip: 10.0.0.1}\nlinks:\n  - {a: h1:p0, b: prometheus:p1}\n');
  const r = cli(['compose', file]);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /node name prometheus: expected names other than controller, prometheus, grafana/);
});

test('rocelab status without a controller says where it looked, exit 1; the container entry names a bad role, exit 2', () => {
  const s = cli(['status', '--controller', 'http://127.0.0.1:9']);
  assert.equal(s.status, 1);
  assert.match(s.stderr, /no controller answers at http:\/\/127\.0\.0\.1:9\/status, --controller .*start one \(npm start, rocelab up FILE, or docker compose up\), or point at one with --controller URL or ROCELAB_CONTROLLER/);
  const c = cli(['container'], { ROCELAB_ROLE: 'router' });
  assert.equal(c.status, 2);
  assert.match(c.stderr, /ROCELAB_ROLE="router": expected one of controller, switch, host, member/);
});

test('the rocelab bin exists before any build, so npm ci links it on a fresh clone, and runs the built CLI', () => {
  for (const [manifest, dir] of [['package.json', ROOT], ['services/cli/package.json', join(ROOT, 'services', 'cli')]] as const) {
    const bin = (JSON.parse(readFileSync(join(ROOT, manifest), 'utf8')) as { bin: Record<string, string> }).bin.rocelab!;
    assert.doesNotMatch(bin, /dist\//, `${manifest}: bin must not point into dist/, which npm ci has not built yet`);
    const file = join(dir, bin);
    assert.ok(statSync(file).mode & 0o100, `${file} is executable`);
    assert.match(readFileSync(file, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  }
  const r = spawnSync(process.execPath, [join(ROOT, 'services', 'cli', 'bin', 'rocelab.mjs'), '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '0.1.0');
});
