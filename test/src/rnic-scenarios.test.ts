/**
 * The RDMA NIC through the real engine (issue 4 acceptance): DCQCN convergence after a
 * staggered start, the go-back-0 livelock, and a slow receiver whose pauses climb the Clos.
 * Each scenario ends with the conservation audit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { cli, fixture } from './harness.js';
import { Scenario } from './scenario.js';

const PS_PER_BYTE_40G = 200;


/** Wire time a port has spent transmitting since `from` (bytes + 20 B preamble/gap per frame). */
const busyPs = (s: Scenario, node: string, port: string) => {
  const p = s.port(node, port);
  return (p.txBytes + 20 * p.txFrames) * PS_PER_BYTE_40G;
};

const pfcFramesEverywhere = (s: Scenario) =>
  s.pod.nodes.reduce((n, node) => n + s.ctx(node.name).stats.ports.reduce((m, p) => m + p.pfcTx.reduce((a, b) => a + b, 0), 0), 0);

interface StaggerFigures {
  jain: number;
  utilisation: number;
  queueP99: number;
  pfcFrames: number;
}

/** The last half (5–10 ms) of dcqcn-stagger.yaml: the two flows' goodput, the bottleneck, its queue. */
function stagger(edit: (y: string) => string = (y) => y): StaggerFigures {
  const s = new Scenario(fixture('rnic/dcqcn-stagger.yaml'), edit);
  const half = 5 * PS_PER_MS;
  s.runTo(half);
  const goodput = () => [s.received(0, 'h1', 'h3'), s.received(1, 'h2', 'h3')];
  const start = goodput();
  const busy0 = busyPs(s, 'sw1', 'p3');
  const samples: number[] = [];
  const bottleneck = s.portIndex('sw1', 'p3');
  for (let t = half + PS_PER_US; t <= 2 * half; t += PS_PER_US) {
    s.runTo(t);
    samples.push(s.switch('sw1').queueBytes(bottleneck, 3));
  }
  const g = goodput().map((x, i) => x - start[i]!);
  samples.sort((a, b) => a - b);
  s.assertConserved();
  return {
    jain: (g[0]! + g[1]!) ** 2 / (2 * (g[0]! ** 2 + g[1]! ** 2)),
    utilisation: (busyPs(s, 'sw1', 'p3') - busy0) / half,
    queueP99: samples[Math.floor(samples.length * 0.99)]!,
    pfcFrames: pfcFramesEverywhere(s),
  };
}

test('DCQCN (vendor): the late flow converges to a fair share, the link stays busy, the queue under Kmax, PFC quiet', () => {
  const dcqcn = stagger();
  const pfcOnly = stagger((y) => y.replace('  link: {rate: 40G, latency: 1us, mtu: 1024}', '  link: {rate: 40G, latency: 1us, mtu: 1024}\n  nic: {dcqcn: {enabled: false}}'));
  assert.ok(dcqcn.jain >= 0.99, `Jain index ${dcqcn.jain}`);
  assert.ok(dcqcn.utilisation >= 0.9, `bottleneck ${dcqcn.utilisation}`);
  assert.ok(dcqcn.queueP99 <= 312_000, `queue p99 ${dcqcn.queueP99} B > Kmax`);
  assert.ok(pfcOnly.pfcFrames > 100, `without DCQCN PFC holds the line: ${pfcOnly.pfcFrames} pause frames`);
  assert.ok(dcqcn.pfcFrames <= 0.1 * pfcOnly.pfcFrames, `${dcqcn.pfcFrames} pause frames with DCQCN, ${pfcOnly.pfcFrames} without`);
});

const LOSS = 'impairments: {a_to_b: {loss: 1/256}}';
const recovery = (mode: 'goBackN' | 'goBack0') => (y: string) => y.replace('nic: {recovery: goBackN}', `nic: {recovery: ${mode}}`);
const lossless = (y: string) => y.replace(LOSS, 'impairments: {a_to_b: {loss: 0}}');
const ipIdRule = (y: string) => y.replace(LOSS, 'impairments: {a_to_b: {dropIpIdLowByte: 255}}');

/** Messages h1 completed by `durationPs`, and how busy its link to sw1 was. */
function livelock(edit: (y: string) => string, durationPs: number) {
  const s = new Scenario(fixture('rnic/livelock.yaml'), edit);
  s.runTo(durationPs);
  const done = s.host('h1').results().sent.filter((m) => m.status === 'success');
  s.assertConserved();
  return { completed: done.length, goodputBytes: done.reduce((n, m) => n + m.sizeBytes, 0), busy: busyPs(s, 'h1', 'p0') / durationPs, posted: s.host('h1').results().sent.length };
}

test('1/256 Bernoulli loss: go-back-N keeps ≥ 80 % of the loss-free goodput; go-back-0 collapses below 10 % of it on a busy link', () => {
  const D = 5 * PS_PER_MS; // every run is still sending at 5 ms
  const clean = livelock((y) => lossless(y), D);
  const gbn = livelock((y) => y, D);
  const gb0 = livelock(recovery('goBack0'), D);
  assert.ok(gbn.goodputBytes >= 0.8 * clean.goodputBytes, `go-back-N ${gbn.goodputBytes} B vs ${clean.goodputBytes} B loss-free`);
  assert.ok(gb0.goodputBytes <= 0.1 * gbn.goodputBytes, `go-back-0 ${gb0.goodputBytes} B vs go-back-N ${gbn.goodputBytes} B`);
  assert.ok(gb0.busy >= 0.9, `h1's link ${gb0.busy} busy under go-back-0`);
});

test('the IP-ID rule (drop when the low byte is 0xFF): go-back-0 completes zero messages, go-back-N all of them', () => {
  const D = 12 * PS_PER_MS;
  const gb0 = livelock((y) => recovery('goBack0')(ipIdRule(y)), D);
  const gbn = livelock(ipIdRule, D);
  assert.equal(gb0.completed, 0);
  assert.ok(gb0.busy >= 0.9, `the link stays busy (${gb0.busy}) while nothing completes`);
  assert.equal(gbn.posted, 40);
  assert.equal(gbn.completed, 40);
});

test('slow receiver: the NIC pauses its ToR, pauses climb to the ToR uplink and a leaf, nothing lossless is dropped', () => {
  const s = new Scenario(fixture('rnic/slow-receiver.yaml'));
  const counts = () => ({
    nic: s.pfcSent('h4', 'p0'),
    torUplink: s.pfcSent('tor2', 'up1'),
    leaf: s.pfcSent('leaf2', 'up1') + s.pfcSent('leaf2', 'up2'),
  });
  const first: Record<string, number> = {};
  for (let t = 10 * PS_PER_US; t <= 3 * PS_PER_MS; t += 10 * PS_PER_US) {
    s.runTo(t);
    for (const [where, n] of Object.entries(counts())) if (n > 0 && first[where] === undefined) first[where] = t;
  }
  assert.ok(first.nic! < first.torUplink! && first.torUplink! < first.leaf!, `pauses climb: ${JSON.stringify(first)}`);
  assert.deepEqual(
    Object.entries(s.drops()).filter(([, n]) => n > 0),
    [],
    'no drop of any kind',
  );
  // Host memory sets the pace: h4 takes in at most its 20 Gb/s.
  const bytes = s.received(0, 'h1', 'h4') + s.received(1, 'h2', 'h4');
  assert.ok((bytes * 8) / 3e-3 <= 20e9 && (bytes * 8) / 3e-3 > 15e9, `${(bytes * 8) / 3e-3} bit/s into h4`);
  s.assertConserved();
});

test('dcqcn-stagger.yaml gives the same trace hash in inproc, procs and --workers 2', () => {
  const hashes = [[], ['--mode', 'procs'], ['--workers', '2']].map((mode) => {
    const r = cli(['run', fixture('rnic/dcqcn-stagger.yaml'), '--seed', '5', '--duration', '1500us', '--json', ...mode]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json!.conservation, true);
    return r.json!.traceHash;
  });
  assert.equal(new Set(hashes).size, 1, hashes.join(' '));
});

test('READ incast: the responses converge on the requester’s ToR port, its CNPs slow the responders, and every READ completes in procs as inproc', () => {
  const run = (mode: string) => {
    const r = cli(['run', fixture('rnic/read-incast.yaml'), '--duration', '3ms', '--mode', mode, '--json'], {}, 300_000);
    assert.equal(r.status, 0, r.stderr);
    return r.json!;
  };
  const r = run('inproc');
  assert.ok(r.conservation);
  assert.equal(r.flowTotals.completed, 4);
  const host = (name: string) => r.summary.hosts.find((h) => h.host === name)!;
  assert.equal(host('h1').goodputBytes, 8_000_000, 'the READs’ bytes are the requester’s goodput');
  assert.ok(host('h1').cnpsSent > 0, 'the requester marks the READ responses’ congestion back');
  for (const responder of ['h2', 'h3', 'h4', 'h5']) assert.ok(host(responder).cnpsReceived > 0, `${responder}’s responses were slowed`);
  const marked = r.summary.ports.find((p) => p.port === 'tor1:p1');
  assert.ok(marked !== undefined && marked.ecnMarked > 0, 'the bottleneck is the port toward the requester');
  for (const f of r.flows) {
    assert.equal(f.opcode, 'read');
    assert.ok(f.fctNs !== null && f.fctNs > 400_000, `flow ${f.flow}: ${f.fctNs} ns, at least 2 MB at 40 Gb/s`);
  }
  assert.equal(run('procs').traceHash, r.traceHash);
});
