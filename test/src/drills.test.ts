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
    ['  - {kind: conservation}', '  - {kind: conservation, flows: {from: h1}}', /drill\.yaml: expect\[6\]\.flows: expected one of the keys kind, description, variant/],
    ['  - {kind: conservation}', '  - {kind: metric, name: rocelab_bogus_total, op: ">", value: 1}', /expect\[6\]\.name: expected a metric a drill can read/],
    ['during: 1ms-8ms, min: 30G', 'during: 8ms-1ms, min: 30G', /expect\[3\]\.during: expected a window A-B with A < B ≤ the drill's duration/],
  ];
  for (const [from, to, message] of cases) {
    const out = tmp();
    const r = cli(['drill', 'run', edited(from, to), '--out', out]);
    assert.equal(r.status, 2, `${to}: exit ${r.status}\n${r.stderr}`);
    assert.match(r.stderr, message);
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
  assert.match(r.stdout, /^FAIL: 2 of 3 expectations hold; failing: expect\[3\] \(go-back-n\)$/m);
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
