/**
 * What a run shows (issue 9): the summary names paused ports and stalled flows, probe
 * percentiles match a hand-computed case, goodput means goodput, the trace files are the same
 * bytes in every mode and hold the hand-computed FCT and PFC behaviour, captures decode in
 * tshark, and bad recording options are refused before anything runs.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, fixture } from './harness.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'rocelab-results-'));

/** A fixture with one text replacement, as a file of its own. */
function edited(name: string, from: string, to: string): string {
  const text = readFileSync(fixture(name), 'utf8');
  assert.ok(text.includes(from), `${name} holds ${from}`);
  const file = join(tmp(), name.replace(/\//g, '-'));
  writeFileSync(file, text.replace(from, to));
  return file;
}

function runJson(args: string[]) {
  const r = cli(['run', ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.json !== null, r.stdout);
  return r.json;
}

/** Rows of a trace CSV as objects keyed by the header. */
function csv(file: string): Array<Record<string, string>> {
  const [header, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\n');
  const names = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i]!, v])));
}

test('stuck receiver: the summary names the paused ports with their paused time, and the stalled flows with their goodput so far', () => {
  const r = runJson([fixture('switch/stuck-receiver.yaml'), '--duration', '6ms']);
  const ports = r.summary.ports as Array<{ port: string; pfc: Array<{ priority: number; pausedNs: number; pausingNs: number }>; firstPauseReceivedNs: number | null }>;
  const paused = (name: string) => ports.find((p) => p.port === name)?.pfc.find((q) => q.priority === 3)?.pausedNs ?? 0;
  // h4's NIC pauses tor2:p2 from 2 ms on; the watchdog stops honouring it, the chain upstream clears.
  assert.ok(paused('tor2:p2') > 3.9e6, `tor2:p2 held ${paused('tor2:p2')} ns`);
  assert.ok(ports[0]!.port === 'tor2:p2', `the most paused port comes first, got ${ports[0]!.port}`);
  for (const hop of ['leaf2:down1', 'tor1:up1', 'h1:p0', 'h2:p0']) assert.ok(paused(hop) > 1e6, `the pause climbed to ${hop}: ${paused(hop)} ns`);
  assert.ok(ports.find((p) => p.port === 'tor2:p2')!.firstPauseReceivedNs! >= 2e6);
  const h4 = ports.find((p) => p.port === 'h4:p0')!.pfc.find((q) => q.priority === 3)!;
  assert.ok(h4.pausingNs > 3.9e6, 'h4 held its ToR');
  const flows = r.flows as Array<{ from: string; to: string; status: string; stalled: boolean; goodputGbps: number; deliveredBytes: number }>;
  const toH4 = flows.filter((f) => f.to === 'h4');
  assert.equal(toH4.length, 2);
  for (const f of toH4) {
    assert.equal(f.status, 'pending');
    assert.equal(f.stalled, true, `${f.from}→h4 stalled`);
    // 5 Gb/s for 2 ms, then nothing: about 1.25 MB delivered, 5 Gb/s × 2/6 ≈ 1.7 Gb/s so far.
    assert.ok(f.deliveredBytes > 1e6 && f.deliveredBytes < 1.3e6, `${f.deliveredBytes} B`);
    assert.ok(f.goodputGbps > 1.3 && f.goodputGbps < 1.8, `${f.goodputGbps} Gb/s`);
  }
  const victim = flows.find((f) => f.to === 'h3')!;
  assert.equal(victim.stalled, false, 'the watchdog frees the victim');
  assert.equal(r.flowTotals.stalled, 2);
  // The readable table says the same.
  const text = cli(['run', fixture('switch/stuck-receiver.yaml'), '--duration', '6ms']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^\s+tor2:p2\s+3\s+\d+\s+0\s+3\.99\d/m);
  assert.match(text.stdout, /STALLED/);
});

test('pingmesh percentiles: nearest rank over the hand-computed round trips, overall and per ToR pair', () => {
  const r = runJson([fixture('results/pingmesh-rtt.yaml'), '--duration', '1200us']);
  const p = r.probes;
  assert.deepEqual([p.sent, p.completed, p.lost], [60, 60, 0]);
  // 20 × 6.1200, 20 × 12.2192, 20 × 14.2192 µs (see the fixture's header).
  assert.deepEqual([p.p50Ns, p.p90Ns, p.p99Ns, p.p999Ns, p.maxNs], [12_219.2, 14_219.2, 14_219.2, 14_219.2, 14_219.2]);
  assert.ok(Math.abs(p.meanNs! - (6_120 + 12_219.2 + 14_219.2) / 3) < 1e-9, `mean ${p.meanNs}`);
  const pair = (from: string, to: string) => p.perTorPair.find((x) => x.fromTor === from && x.toTor === to);
  const local = pair('tor1', 'tor1')!;
  assert.deepEqual([local.count, local.p50Ns, local.maxNs], [20, 6_120, 6_120]);
  for (const [from, to] of [['tor1', 'tor2'], ['tor2', 'tor1']] as const) {
    const far = pair(from, to)!;
    assert.deepEqual([far.count, far.p50Ns, far.p90Ns], [20, 12_219.2, 14_219.2], `${from}→${to}`);
  }
});

test('go-back-0 under the IP-ID rule: goodput 0 while the link carries line rate (raw payload), nothing completes', () => {
  const file = edited('rnic/livelock.yaml', 'recovery: goBackN', 'recovery: goBack0');
  const text = readFileSync(file, 'utf8').replace('impairments: {a_to_b: {loss: 1/256}}', 'impairments: {a_to_b: {dropIpIdLowByte: 255}}');
  writeFileSync(file, text);
  const r = runJson([file, '--duration', '10ms']);
  assert.equal(r.summary.hostTotals.goodputBytes, 0);
  assert.equal(r.flowTotals.completed, 0);
  assert.ok(r.flows.every((f: { deliveredBytes: number }) => f.deliveredBytes === 0));
  // 10 ms at 40 Gb/s is 50 MB of wire; 1024/1106 of it payload: the link is busy with data that never counts.
  assert.ok(r.summary.hostTotals.receivedPayloadBytes > 0.85 * 50e6 * (1024 / 1106), `raw ${r.summary.hostTotals.receivedPayloadBytes} B`);
});

test('fct.csv of a single flow equals the analytic FCT to the picosecond (and its ideal: slowdown 1)', () => {
  const dir = tmp();
  const result = runJson([fixture('results/single-flow.yaml'), '--duration', '100us', '--trace', dir]);
  assert.deepEqual(result.slowdown, { stepPercent: 5, measured: 1, notMeasured: 0, buckets: [{ fromPercent: 95, toPercent: 100, upToBytes: 10000, count: 1, p50: 1, p95: 1, p99: 1 }] });
  const [row, ...rest] = csv(join(dir, 'fct.csv'));
  assert.equal(rest.length, 0);
  // 6,517,200 ps, worked out in the fixture's header. One message fills only the last of the 20 size groups (HPCC fct_analysis.py's ⌊i·n/100⌋ cuts).
  assert.deepEqual(row, { flow: '0', from: 'h1', to: 'h2', size_bytes: '10000', start_us: '0.000000', completion_us: '6.517200', fct_us: '6.517200', ideal_fct_us: '6.517200', slowdown: '1.000000', status: 'success', bucket: '95-100%' });
});

test('lossless 2→1 incast, ECN off: each sender ingress is held at the PFC threshold, the bottleneck queue is their sum, pauses and resumes alternate', () => {
  const dir = tmp();
  const file = edited('switch/incast-lossless.yaml', 'switch: {bufferBytes: 1MiB}', 'switch: {bufferBytes: 1MiB, ecn: {enabled: false}}');
  runJson([file, '--duration', '1ms', '--trace', dir]);
  const rows = csv(join(dir, 'queue.csv')).filter((r) => r.priority === '3' && Number(r.time_us) >= 50);
  const at = new Map<string, Record<string, Record<string, string>>>();
  for (const r of rows) at.set(r.time_us!, { ...at.get(r.time_us!), [r.port!]: r });
  assert.ok(at.size >= 900, `${at.size} grid points`);
  const RESERVE = 4096;
  // XOFF when a group's shared bytes reach the threshold (what arrives after goes to headroom);
  // XON once they are a 1,086 B frame below it. The resume then takes a round trip (84 B PAUSE
  // at 40 Gb/s, 1 µs, the first frame, 1 µs: ≈ 2.05 µs) while the bottleneck drains 40 Gb/s:
  // ≈ 10.3 KB, shared by the two groups. So a group's shared bytes stay within 12 KB below it.
  const SWING = 12_000;
  let below = 0;
  for (const [t, byPort] of at) {
    const [p1, p2, p3] = [byPort.p1!, byPort.p2!, byPort.p3!];
    const threshold = Number(p3.threshold_bytes);
    let held = 0;
    for (const ingress of [p1, p2]) {
      const shared = Number(ingress.ingress_bytes) - RESERVE;
      assert.ok(shared >= threshold - SWING && shared <= threshold, `t=${t} ${ingress.port}: shared ${shared} B, threshold ${threshold} B`);
      below += threshold - shared;
      held += Number(ingress.ingress_bytes) + Number(ingress.headroom_bytes);
    }
    assert.equal(Number(p3.queue_bytes), held, `t=${t}: the bottleneck queue holds exactly what the two ingress groups hold`);
  }
  const threshold = Number([...at.values()][0]!.p3!.threshold_bytes);
  assert.ok(below / (2 * at.size) < 0.05 * threshold, `on average the groups sit ${below / (2 * at.size)} B below the ${threshold} B threshold`);
  const pfc = csv(join(dir, 'pfc.csv'));
  for (const host of ['h1', 'h2']) {
    const events = pfc.filter((r) => r.node === host).map((r) => r.event);
    assert.ok(events.length >= 100, `${host}: ${events.length} PFC events`);
    events.forEach((e, i) => assert.equal(e, i % 2 === 0 ? 'pause' : 'resume', `${host} event ${i}`));
  }
});

test('trace files and captures are the same bytes inproc, in procs, with 2 workers and with 2 threads; tracing does not change the hash', () => {
  const file = fixture('switch/stuck-receiver.yaml');
  const args = [file, '--duration', '2500us', '--trace-interval', 'rates=20us,queue=5us'];
  const plain = runJson([file, '--duration', '2500us']);
  const outputs = [[], ['--mode', 'procs'], ['--workers', '2'], ['--threads', '2']].map((mode) => {
    const trace = tmp();
    const pcap = tmp();
    const r = runJson([...args, ...mode, '--trace', trace, '--pcap', pcap, '--pcap-ports', 'h1:p0,tor2:p2']);
    assert.equal(r.traceHash, plain.traceHash, `${mode.join(' ') || 'inproc'}: recording changed the hash`);
    const files: Record<string, Buffer> = {};
    for (const f of readdirSync(trace)) files[`trace/${f}`] = readFileSync(join(trace, f));
    for (const f of readdirSync(pcap)) files[`pcap/${f}`] = readFileSync(join(pcap, f));
    return files;
  });
  assert.deepEqual(Object.keys(outputs[0]!).sort(), ['pcap/h1-p0.pcap', 'pcap/tor2-p2.pcap', 'trace/events.csv', 'trace/fct.csv', 'trace/packet-events.csv', 'trace/pfc.csv', 'trace/probes.csv', 'trace/qp-events.csv', 'trace/queue.csv', 'trace/rates.csv']);
  for (const [name, bytes] of Object.entries(outputs[0]!)) {
    if (!/events|probes/.test(name)) assert.ok(bytes.length > 200, `${name} has content`); // no probes, no watchdog yet at 2.5 ms
    outputs.slice(1).forEach((o, i) => assert.ok(bytes.equals(o[name]!), `${name} differs in ${['procs', 'workers', 'threads'][i]}`));
  }
});

test('bad recording options are refused before the run starts, with exit 2 and what was expected', () => {
  const line = fixture('line.yaml');
  const cases: Array<[string[], RegExp]> = [
    [['--trace', tmp(), '--trace-interval', '0us'], /--trace-interval.*expected a duration such as 10us, or rates=10us,queue=1us/],
    [['--trace', tmp(), '--trace-interval', 'rates=10us,rtt=1us'], /"rtt=1us": expected a duration such as 10us/],
    [['--trace-interval', '10us'], /--trace-interval needs --trace DIR/],
    [['--pcap', tmp(), '--pcap-ports', 'h1:p0,h9:p0'], /--pcap-ports: h9:p0: no such port in .*line\.yaml; expected node:port of the topology/],
    [['--pcap', tmp(), '--pcap-snaplen', '20'], /--pcap-snaplen.*expected a whole number of bytes from 70/],
  ];
  const readOnly = join(tmp(), 'ro');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o500);
  // root writes anywhere: a file in the way of the directory fails for every user.
  const blocked = join(tmp(), 'file');
  writeFileSync(blocked, '');
  cases.push([['--trace', join(blocked, 'sub')], /--trace .*file\/sub: expected a directory rocelab can create and write/]);
  if (process.getuid?.() !== 0) cases.push([['--pcap', join(readOnly, 'x')], /--pcap .*: expected a directory rocelab can create and write/]);
  for (const [args, message] of cases) {
    const r = cli(['run', line, '--duration', '10us', ...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '', 'nothing ran');
  }
  assert.equal(existsSync(join(blocked, 'sub')), false);
});

test('rocelab compare: a traced run passes against itself and fails, naming the row and the amount, when a reference value moves', () => {
  const run = tmp();
  const pod = edited('switch/incast-lossless.yaml', 'sizeBytes: 40MB', 'sizeBytes: 2MB');
  runJson([pod, '--duration', '2ms', '--trace', run]);
  const same = cli(['compare', run, run]);
  assert.equal(same.status, 0, same.stdout + same.stderr);
  // The reference: the same files with one message's FCT 20 % shorter, beyond the default 10 %.
  const ref = tmp();
  for (const f of readdirSync(run)) writeFileSync(join(ref, f), readFileSync(join(run, f)));
  const fct = csv(join(run, 'fct.csv'));
  const done = fct.find((r) => r.status === 'success');
  assert.ok(done !== undefined, 'a message completed within 2 ms');
  const shorter = (Number(done.fct_us) * 0.8).toFixed(6);
  const row = `,${done.completion_us},${done.fct_us},${done.ideal_fct_us},`;
  writeFileSync(join(ref, 'fct.csv'), readFileSync(join(run, 'fct.csv'), 'utf8').replace(row, `,${done.completion_us},${shorter},${done.ideal_fct_us},`));
  const moved = cli(['compare', ref, run]);
  assert.equal(moved.status, 1, moved.stdout + moved.stderr);
  assert.match(moved.stdout, new RegExp(`FAIL\\s+fct\\s+flow ${done.flow}\\b.*\\+13\\.6 % above the allowed max`));
  const loose = cli(['compare', ref, run, '--tolerance', 'fct=30%']);
  assert.equal(loose.status, 0, loose.stdout);
});
