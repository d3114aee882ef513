/**
 * The host CPU model end to end (issue 24): `host: {cpu: {perOperation, jitter}}` makes each
 * verbs call cost a jittered time drawn from the seed. Off, idle pingmesh round trips are all
 * equal and the lost-update race gives one count whatever the seed; on, the round trips spread
 * (P50 < P99) and the seed picks the race's interleaving, with the same trace hash in one process
 * and as processes.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, fixture } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-host-cpu-'));
const LINK = '  link: {rate: 40G, latency: 1us, mtu: 1024}\n';

/** The fixture with the CPU model in its defaults, written beside a copy of its app. */
function withCpu(name: string, cpu: string, app?: string): string {
  const text = readFileSync(fixture(name), 'utf8');
  assert.ok(text.includes(LINK));
  const file = join(dir, `${name.replace(/\W/g, '-')}.yaml`);
  writeFileSync(file, text.replace(LINK, `${LINK}  host: {cpu: ${cpu}}\n`));
  if (app !== undefined) copyFileSync(fixture(app), join(dir, app.split('/').at(-1)!));
  return file;
}

function run(file: string, args: string[]) {
  const r = cli(['run', file, '--json', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return r.json!;
}

test('pingmesh on an idle fabric: every round trip of a pair equal without the CPU model, spread with it (P50 < P99), the same in one process and as processes', () => {
  // Round trips per host pair, from probes.csv: one value each without the model (the fixture's hand-computed three).
  const rtts = (traceDir: string) => {
    const byPair = new Map<string, Set<string>>();
    for (const line of readFileSync(join(traceDir, 'probes.csv'), 'utf8').trim().split('\n').slice(1)) {
      const [, from, to, rtt] = line.split(',');
      byPair.set(`${from}→${to}`, (byPair.get(`${from}→${to}`) ?? new Set()).add(rtt!));
    }
    return byPair;
  };
  const offDir = mkdtempSync(join(dir, 'off-'));
  const off = run(fixture('results/pingmesh-rtt.yaml'), ['--duration', '1100us', '--trace', offDir]);
  assert.equal(rtts(offDir).size, 6);
  for (const [pair, values] of rtts(offDir)) assert.equal(values.size, 1, `${pair}: every round trip the same`);
  const file = withCpu('results/pingmesh-rtt.yaml', '{perOperation: 1us, jitter: 500ns}');
  const onDir = mkdtempSync(join(dir, 'on-'));
  const on = run(file, ['--duration', '1100us', '--trace', onDir]);
  assert.equal(on.probes.completed, 60);
  assert.ok(on.probes.p50Ns! < on.probes.p99Ns!, `P50 ${on.probes.p50Ns} < P99 ${on.probes.p99Ns}`);
  for (const [pair, values] of rtts(onDir)) assert.ok(values.size >= 5, `${pair}: ${values.size} different round trips of 10`);
  for (const pair of on.probes.perTorPair) assert.ok(pair.p50Ns! < pair.p99Ns!, `${pair.fromTor}→${pair.toTor}: P50 ${pair.p50Ns} < P99 ${pair.p99Ns}`);
  // The CPU costs 0.5–1.5 µs before each probe's post: every round trip is longer by at least that.
  assert.ok(on.probes.p50Ns! > off.probes.p50Ns! + 500, `${on.probes.p50Ns} vs ${off.probes.p50Ns}`);
  assert.notEqual(on.traceHash, off.traceHash);
  const procs = run(file, ['--duration', '1100us', '--mode', 'procs']);
  assert.equal(procs.traceHash, on.traceHash);
  assert.deepEqual(procs.probes, on.probes);
});

test('the lost-update race: one count for every seed without the CPU model; with it the seed picks the interleaving, the same as processes', () => {
  const counter = (r: ReturnType<typeof run>) => r.apps.find((a) => a.node === 'h3')!.reports.counter;
  const plain = [1, 2].map((seed) => run(fixture('apps/lost-update.yaml'), ['--duration', '2ms', '--seed', String(seed)]));
  assert.equal(plain[0]!.traceHash, plain[1]!.traceHash, 'nothing random: the seed changes nothing');
  assert.equal(counter(plain[0]!), counter(plain[1]!));
  const file = withCpu('apps/lost-update.yaml', '{perOperation: 2us, jitter: 1500ns}', 'apps/lost-update.mjs');
  const seeded = [1, 2, 3].map((seed) => run(file, ['--duration', '2ms', '--seed', String(seed)]));
  const counts = seeded.map(counter);
  for (const r of seeded) assert.ok(r.apps.every((a) => a.status === 'finished'), JSON.stringify(r.apps.map((a) => a.status)));
  assert.ok(counts.every((c) => typeof c === 'number' && c < 100 && c >= 50), `updates lost: ${counts.join(', ')} of 100`);
  assert.ok(new Set(counts).size >= 2, `the seed changes the outcome: ${counts.join(', ')}`);
  assert.equal(new Set(seeded.map((r) => r.traceHash)).size, 3);
  const procs = run(file, ['--duration', '2ms', '--seed', '2', '--mode', 'procs']);
  assert.equal(procs.traceHash, seeded[1]!.traceHash);
  assert.equal(counter(procs), counts[1]);
});
