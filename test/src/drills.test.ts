/**
 * `rocelab drill`: a drill that does not fit is refused before anything runs (exit 2, naming
 * file, path and expectation); a false expectation makes the run exit 1 and the report say
 * which and by how much; `drill list` names every built-in drill.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadDrill } from '@rocelab/drill';
import { cli, ROOT } from './harness.js';

const LIVELOCK = join(ROOT, 'drills', 'livelock-go-back-0.yaml');
const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-drill-'));

/** The livelock drill with one text replacement, as a file beside its own copy of nothing else (it is self-contained). */
function edited(from: string, to: string): string {
  const text = readFileSync(LIVELOCK, 'utf8');
  assert.ok(text.includes(from), `the drill holds ${from}`);
  const file = join(tmp(), 'drill.yaml');
  writeFileSync(file, text.replace(from, to));
  return file;
}

test('a drill that does not fit is refused before any pod starts: exit 2 with file, path and what was expected', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['variants:', 'faults:\n  - {at: 1ms, kind: meteor, node: sw1}\nvariants:', /drill\.yaml: faults\[0\]\.kind: expected one of "linkDown"/],
    ['variants:', 'faults:\n  - {at: 1ms, kind: nicPauseStorm, node: h9}\nvariants:', /drill\.yaml: faults\[0\]\.node: expected the name of a host \(a nicPauseStorm fault acts on one\), got "h9"/],
    ['variants:', 'faults:\n  - {at: 20ms, kind: linkDown, link: h1:p0}\nvariants:', /drill\.yaml: faults\[0\]\.at: expected a time before the end of the drill \(12ms\), got "20ms"/],
    ['variant: go-back-n, flows', 'variant: go-back-2, flows', /drill\.yaml: expect\[3\]\.variant: expected a variant of this drill \(go-back-0, go-back-n\), got "go-back-2"/],
    ['    set: {defaults: {nic: {recovery: goBack0}}}', '    set: {defaults: {nic: {recovery: goBack7}}}', /variant go-back-0\): defaults\.nic\.recovery: expected one of "goBackN", "goBack0"/],
    ['duration: 12ms', 'duration: [12ms', /drill\.yaml:\d+:\d+: .*\(expected valid YAML\)/],
    ['  - {kind: goodputRatio', '  - {kind: noLosslessDrops, flows: {from: h1}}\n  - {kind: goodputRatio', /drill\.yaml: expect\[5\]\.flows: expected one of the keys kind, description, why, variant/],
    ['  - {kind: goodputRatio', '  - {kind: metric, name: rocelab_bogus_total, op: ">", value: 1}\n  - {kind: goodputRatio', /expect\[5\]\.name: expected a metric a drill can read/],
    // Issue 24: conservation is an audit of every run now, not an expectation; a drill that names it is told so.
    ['  - {kind: goodputRatio', '  - {kind: conservation}\n  - {kind: goodputRatio', /expect\[5\]\.kind: expected an expectation kind \(conservation is no longer one: every run audits it/],
    ['  - {kind: goodputRatio', '  - {kind: timeToDetect, max: 1ms}\n  - {kind: goodputRatio', /expect\[5\]\.kind: expected a variant with a fault to measure from/],
    ['  - {kind: goodputRatio', '  - {kind: appResult, key: x, finished: true}\n  - {kind: goodputRatio', /expect\[5\]\.key: expected either key \(a value an app reported\) or finished: true, not both/],
    ['during: 1ms-8ms, min: 30G', 'during: 8ms-1ms, min: 30G', /expect\[3\]\.during: expected a window A-B with A < B ≤ the drill's duration/],
  ];
  for (const [from, to, message] of cases) {
    const out = tmp();
    const r = cli(['drill', 'run', edited(from, to), '--out', out]);
    assert.equal(r.status, 2, `${to}: exit ${r.status}\n${r.stderr}`);
    assert.match(r.stderr, message);
    // Issue 24: a problem in the drill's own faults was found by each of its two variants and printed twice.
    assert.equal(r.stderr.split('\n').filter((line) => message.test(line)).length, 1, `printed once:\n${r.stderr}`);
    assert.deepEqual(readdirSync(out), [], 'nothing ran');
  }
  const unknown = cli(['drill', 'run', LIVELOCK, '--variant', 'go-back-7', '--out', tmp()]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /--variant go-back-7: expected a variant of .*livelock-go-back-0\.yaml \(go-back-0, go-back-n\)/);
});

test('a false expectation fails the drill: exit 1, and the report names it and by how much', () => {
  const out = tmp();
  const file = edited('during: 1ms-8ms, min: 30G, description: go-back-N keeps the link useful', 'during: 1ms-8ms, min: 39G, description: go-back-N keeps the link useful');
  const r = cli(['drill', 'run', file, '--variant', 'go-back-n', '--out', out]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /^FAIL  expect\[3\] +go-back-n: go-back-N keeps the link useful\n +measured 33\.845 Gb\/s \(1 flow\); expected ≥ 39 Gb\/s; 5\.155 Gb\/s short$/m);
  assert.match(r.stdout, /^FAIL: 1 of 2 expectations hold; failing: expect\[3\] \(go-back-n\)$/m);
  assert.match(r.stdout, /^audit go-back-n: sent \d+ = delivered \d+ \+ dropped \d+ \+ queued \d+; 0 causality violations: holds$/m);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { pass: boolean; variants: Array<{ expectations: Array<{ id: string; pass: boolean; margin: string }> }> };
  assert.equal(report.pass, false);
  assert.deepEqual(report.variants[0]!.expectations.find((e) => e.id === 'expect[3]'), { ...report.variants[0]!.expectations.find((e) => e.id === 'expect[3]'), pass: false, margin: '5.155 Gb/s short' });
  assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /FAIL/);
  for (const f of ['report.html', 'go-back-n/pod.yaml', 'go-back-n/result.json', 'go-back-n/trace/rates.csv']) assert.ok(readFileSync(join(out, f)).length > 0, f);
});

test('drill list names every built-in drill with its title', () => {
  const r = cli(['drill', 'list']);
  assert.equal(r.status, 0, r.stderr);
  const drills = readdirSync(join(ROOT, 'drills')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace('.yaml', ''));
  assert.ok(drills.length >= 5);
  for (const d of drills) assert.match(r.stdout, new RegExp(`^  ${d} +\\S`, 'm'));
});

/** A small drill of one flow from h1 to h2 that starts at 10 µs; no `source:` (a user's own drill). */
const PACKET_EVENT_DRILL = `title: a packet event armed before its flow's first packet
duration: 1ms
topology:
  name: pe
  defaults:
    link: {rate: 40G, latency: 1us, mtu: 1024}
  nodes:
    - {name: sw1, role: tor, subnet: 10.0.1.0/24}
    - {name: h1, role: host, ip: 10.0.1.1}
    - {name: h2, role: host, ip: 10.0.1.2}
  links:
    - {a: h1:p0, b: sw1:p1}
    - {a: h2:p0, b: sw1:p2}
  workloads:
    - {kind: flow, from: h1, to: h2, sizeBytes: 1MB, start: 10us}
faults:
  - {at: 0us, kind: packetEvent, flow: {from: h1, to: h2}, packets: [3], action: drop}
expect:
  - {kind: flowGoodput, flows: {from: h1}, during: 0us-1ms, min: 1G}
`;

test('a packet event armed before its flow starts: the drill runs on its own trace and reports (issue 24), and source: is optional', () => {
  const dir = tmp();
  const file = join(dir, 'pe.yaml');
  writeFileSync(file, PACKET_EVENT_DRILL);
  const out = join(dir, 'out');
  const r = cli(['drill', 'run', file, '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^PASS: 1 of 1 expectations hold$/m);
  // The fault is at -10 µs of the trace's clock (which starts at the first post): it stays there, and is read back.
  assert.match(readFileSync(join(out, 'default', 'trace', 'events.csv'), 'utf8'), /^-10\.000000,h1,p0,,fault,packetEvent h1>h2$/m);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { pass: boolean; source: string };
  assert.deepEqual([report.pass, report.source], [true, '']);
});

test('every expectation of a built-in drill says where its bound comes from (why:), and none is the retired conservation (issue 24)', () => {
  for (const name of readdirSync(join(ROOT, 'drills')).filter((f) => f.endsWith('.yaml'))) {
    const file = join(ROOT, 'drills', name);
    const drill = loadDrill(readFileSync(file, 'utf8'), file, { readText: (path) => readFileSync(path, 'utf8') });
    for (const e of drill.expectations) assert.ok(e.why !== null && e.why.length > 10, `${name} ${e.id} (${e.kind}) has no why:`);
  }
});

test('appResult: what an app reported, and that every app finished; a drill of a topology file with apps runs them (issue 24)', () => {
  const dir = tmp();
  const file = join(dir, 'app.yaml');
  writeFileSync(file, `title: rdma-hello's app results
duration: 20us
topology: ${join(ROOT, 'examples', 'rdma-hello', 'pod.yaml')}
expect:
  - {kind: appResult, finished: true}
  - {kind: appResult, node: h1, key: latencyUs, max: 100}
  - {kind: appResult, key: latencyUs, max: 0.001, why: a bound no WRITE can meet}
`);
  const out = join(dir, 'out');
  const r = cli(['drill', 'run', file, '--out', out]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /^pass  expect\[0\]  default: every app finished\n +measured 2 of 2 finished; expected 2 of 2 finished; all finished$/m);
  assert.match(r.stdout, /^pass  expect\[1\]  default: latencyUs as the app on h1 reported it ≤ 100\n +measured 4\.094 \(h1\); expected ≤ 100; 95\.906 from the bound$/m);
  assert.match(r.stdout, /^FAIL  expect\[2\]  default: .*\n +measured 4\.094 \(h1\); expected ≤ 0\.001; 1 of 1 do not: 4\.093 the wrong side$/m);
  assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /why: a bound no WRITE can meet/);
});

test('drill run --pcap PORTS: each variant captures the ports given into OUT/<variant>/pcap, named in report.json; the trace hash is unchanged', () => {
  const plain = tmp();
  const withPcap = tmp();
  const a = cli(['drill', 'run', LIVELOCK, '--variant', 'go-back-n', '--out', plain, '--json']);
  const b = cli(['drill', 'run', LIVELOCK, '--variant', 'go-back-n', '--out', withPcap, '--json', '--pcap', 'h1:p0,sw1:p2']);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(b.status, 0, b.stderr);
  type Report = { variants: Array<{ run: { traceHash: string }; pcaps?: string[] }> };
  const [ra, rb] = [JSON.parse(a.stdout) as Report, JSON.parse(b.stdout) as Report];
  assert.equal(rb.variants[0]!.run.traceHash, ra.variants[0]!.run.traceHash);
  assert.equal(ra.variants[0]!.pcaps, undefined, 'no captures, no pcaps field');
  assert.deepEqual(rb.variants[0]!.pcaps, ['go-back-n/pcap/h1-p0.pcap', 'go-back-n/pcap/sw1-p2.pcap']);
  assert.deepEqual((JSON.parse(readFileSync(join(withPcap, 'report.json'), 'utf8')) as Report).variants[0]!.pcaps, rb.variants[0]!.pcaps);
  for (const file of rb.variants[0]!.pcaps!) {
    const bytes = readFileSync(join(withPcap, file));
    assert.equal(bytes.readUInt32LE(0), 0xa1b23c4d, `${file}: a nanosecond pcap`);
    assert.ok(bytes.length > 1_000_000, `${file}: ${bytes.length} bytes of frames`);
  }
});

test('drill run --pcap with a port the variant does not have is refused before anything runs; --pcap alone captures every host port', () => {
  const out = tmp();
  const r = cli(['drill', 'run', LIVELOCK, '--variant', 'go-back-n', '--out', out, '--pcap', 'h1:p0,h9:p0']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^rocelab drill: .*livelock-go-back-0\.yaml \(variant go-back-n\): --pcap: h9:p0: no such port in .*; expected node:port of the topology, e\.g\. /m);
  assert.deepEqual(readdirSync(out), [], 'nothing ran');
  const all = tmp();
  const ok = cli(['drill', 'run', LIVELOCK, '--variant', 'go-back-0', '--out', all, '--json', '--pcap']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual((JSON.parse(ok.stdout) as { variants: Array<{ pcaps?: string[] }> }).variants[0]!.pcaps, ['go-back-0/pcap/h1-p0.pcap', 'go-back-0/pcap/h2-p0.pcap']);
});
