import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventRow, FctRow, NodeReport, PfcRow, ProbeRow, QueueRow, RateRow, TraceTables } from '@rocelab/results';
import { parseTopology, type FaultSpec, type PodSpec } from '@rocelab/topology';
import type { Expectation } from './drill-file.js';
import { EXPECTATION_KIND_NAMES } from './drill-schema.js';
import { audit, evaluate, type VariantData } from './expectations.js';
import { incidentFigures } from './incident.js';

// sw1 with h1, h2, h3; tor-less hairpin tests use the cycle below.
const POD = parseTopology(`name: e
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: sw2, role: leaf}
  - {name: sw3, role: leaf}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
  - {name: h3, role: host, ip: 10.0.1.3}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
  - {a: h3:p0, b: sw1:p3}
  - {a: sw1:up1, b: sw2:down1}
  - {a: sw1:up2, b: sw3:down1}
`);

const rate = (timeUs: number, node: string, dst: string, ackedBytes: number): RateRow => ({ run: '', timeUs, node, qp: 2, flow: '0', dst, rateGbps: 40, targetGbps: 40, alpha: 1, ackedBytes, cnps: 0, throughputGbps: 0 });
const pfc = (timeUs: number, node: string, port: string, event: 'pause' | 'resume' = 'pause'): PfcRow => ({ run: '', timeUs, node, port, priority: 3, event, quanta: event === 'pause' ? 65535 : 0, pauseUs: event === 'pause' ? 838.848 : 0 });
const probe = (timeUs: number, rttUs: number | null): ProbeRow => ({ run: '', timeUs, from: 'h1', to: 'h2', rttUs });
const event = (timeUs: number, node: string, port: string, name: string): EventRow => ({ run: '', timeUs, node, port, priority: port === '' ? null : 3, event: name, detail: '' });
const queue = (timeUs: number, node: string, port: string, paused: boolean, txPackets: number): QueueRow => ({ run: '', timeUs, node, port, priority: 3, queueBytes: paused ? 5000 : 0, thresholdBytes: 0, ingressBytes: 0, headroomBytes: 0, paused, pausing: false, ecnMarks: 0, txPackets });

function variant(name: string, tables: TraceTables, over: Partial<VariantData['result']> = {}): VariantData {
  return {
    name,
    pod: POD,
    result: { conservation: true, causalityViolations: 0, packets: { sent: 10, delivered: 9, dropped: 1, queued: 0 }, summary: { portTotals: { losslessDrops: 0 } }, nodes: [], ...over },
    tables,
    traceOriginPs: 0,
    durationPs: 10e9,
  };
}

const expect = (raw: Record<string, unknown>, i = 0): Expectation => ({ id: `expect[${i}]`, kind: raw.kind as Expectation['kind'], variant: (raw.variant as string) ?? null, description: null, why: null, raw });

/** One expectation on one variant: pass, and what the report says. */
function check(raw: Record<string, unknown>, v: VariantData | VariantData[]) {
  const [o] = evaluate([expect(raw)], Array.isArray(v) ? v : [v]);
  return o!;
}

// h1 → h2 acknowledges 1 MB per ms from 0 to 10 ms: 8 Gb/s.
const RATES: TraceTables = { 'rates.csv': Array.from({ length: 11 }, (_, ms) => rate(ms * 1000, 'h1', 'h2', ms * 1e6)) };

test('audit: holds when sent = delivered + dropped + queued and nothing broke causality; broken otherwise, by how many', () => {
  assert.deepEqual(audit(variant('a', {})), { pass: true, conservation: true, causalityViolations: 0, offBy: 0, text: 'sent 10 = delivered 9 + dropped 1 + queued 0; 0 causality violations: holds' });
  const bad = audit(variant('a', {}, { conservation: false, packets: { sent: 10, delivered: 8, dropped: 1, queued: 0 } }));
  assert.deepEqual([bad.pass, bad.offBy], [false, 1]);
  assert.match(bad.text, /\(off by 1\); 0 causality violations: BROKEN$/);
  assert.equal(audit(variant('a', {}, { causalityViolations: 2 })).pass, false);
});

test('conservation is no longer an expectation kind: a drill naming it is refused with what to do', () => {
  assert.equal((EXPECTATION_KIND_NAMES as string[]).includes('conservation'), false);
});

/** sw1 dropped lossless frames: 5 by the watchdog at p2, 2 for want of buffer at p1; h1's NIC 1 for want of buffer. */
const DROPS = [
  { node: 'sw1', role: 'tor', ports: [{ port: 'p1', losslessDropped: { buffer: 2 } }, { port: 'p2', losslessDropped: { watchdog: 5 } }] },
  { node: 'h1', role: 'host', ports: [{ port: 'p0', losslessDropped: { buffer: 1 } }] },
] as unknown as NodeReport[];

test('noLosslessDrops counts every reason (the watchdog\'s included); losslessDrops by reason and node', () => {
  assert.equal(check({ kind: 'noLosslessDrops' }, variant('a', {})).pass, true);
  const bad = check({ kind: 'noLosslessDrops' }, variant('a', {}, { nodes: DROPS }));
  assert.deepEqual([bad.pass, bad.value, bad.margin, bad.measured], [false, 8, '8 lossless drops over', '8 lossless drops (buffer 3, watchdog 5)']);
  const buffer = check({ kind: 'losslessDrops', reasons: ['buffer', 'headroom_full'], max: 0 }, variant('a', {}, { nodes: DROPS }));
  assert.deepEqual([buffer.pass, buffer.value], [false, 3]);
  assert.equal(check({ kind: 'losslessDrops', reasons: ['buffer'], nodes: ['h2'], max: 0 }, variant('a', {}, { nodes: DROPS })).pass, true);
  const wd = check({ kind: 'losslessDrops', reasons: ['watchdog'], min: 1 }, variant('a', {}, { nodes: DROPS }));
  assert.deepEqual([wd.pass, wd.value, wd.margin], [true, 5, '4 lossless drops to spare']);
});

test('flowGoodput: 8 Gb/s against min 5G passes with 3 to spare; against min 10G fails 2 Gb/s short; max 0 fails', () => {
  const v = variant('a', RATES);
  const ok = check({ kind: 'flowGoodput', flows: { from: 'h1', to: 'h2' }, during: '2ms-6ms', min: '5G' }, v);
  assert.deepEqual([ok.pass, ok.value, ok.margin], [true, 8e9, '3 Gb/s to spare']);
  const short = check({ kind: 'flowGoodput', flows: { from: 'h1' }, during: '2ms-6ms', min: '10G' }, v);
  assert.deepEqual([short.pass, short.margin], [false, '2 Gb/s short']);
  assert.equal(check({ kind: 'flowGoodput', flows: { to: 'h2' }, during: '2ms-6ms', max: '0G' }, v).pass, false);
  assert.equal(check({ kind: 'flowGoodput', flows: { to: 'h3' }, during: '2ms-6ms', min: '0G' }, v).pass, false, 'no such flow: nothing measured');
});

test('goodputRatio: 8 Gb/s over 4 Gb/s is 2×: min 1.5 passes, min 3 fails 1× short', () => {
  const half: TraceTables = { 'rates.csv': Array.from({ length: 11 }, (_, ms) => rate(ms * 1000, 'h1', 'h2', ms * 5e5)) };
  const vs = [variant('a', RATES), variant('b', half)];
  assert.equal(check({ kind: 'goodputRatio', variantA: 'a', variantB: 'b', flows: { to: 'h2' }, during: '1ms-9ms', min: 1.5 }, vs).pass, true);
  const bad = check({ kind: 'goodputRatio', variantA: 'a', variantB: 'b', flows: { to: 'h2' }, during: '1ms-9ms', min: 3 }, vs);
  assert.deepEqual([bad.pass, bad.value, bad.margin, bad.variant], [false, 2, '1× short', null]);
});

test('watchdogDetected: detection 2.5 ms after the pauses began; within 3 ms passes, within 2 ms fails 0.5 ms too late, none fails', () => {
  const tables: TraceTables = { 'pfc.csv': [pfc(1000, 'sw1', 'p2'), pfc(1400, 'sw1', 'p2')], 'events.csv': [event(3500, 'sw1', 'p2', 'pfcwd_storm_detected')] };
  const v = variant('a', tables);
  assert.equal(check({ kind: 'watchdogDetected', node: 'sw1', port: 'p2', within: '3ms' }, v).pass, true);
  const late = check({ kind: 'watchdogDetected', node: 'sw1', port: 'p2', within: '2ms' }, v);
  assert.deepEqual([late.pass, late.value, late.margin], [false, 2.5e9, '500 µs over']);
  assert.equal(check({ kind: 'watchdogDetected', node: 'sw1', port: 'p1', within: '3ms' }, v).measured, 'never detected');
  // A host: its NIC's stall prevention, measured from the pauses it sent (they hold its ToR's port).
  const nic = variant('a', { 'pfc.csv': [pfc(1000, 'sw1', 'p2')], 'events.csv': [event(3000, 'h2', 'p0', 'nic_stall_error')] });
  assert.equal(check({ kind: 'watchdogDetected', node: 'h2', within: '2ms' }, nic).value, 2e9);
});

test('pausePropagated / pauseContained: h2 pauses sw1 at 1 ms; sw2 is paused 0.3 ms later', () => {
  const v = variant('a', { 'pfc.csv': [pfc(1000, 'sw1', 'p2'), pfc(1300, 'sw2', 'down1'), pfc(1350, 'h1', 'p0')] });
  const ok = check({ kind: 'pausePropagated', from: 'h2', to: ['sw2'], within: '500us' }, v);
  assert.deepEqual([ok.pass, ok.value], [true, 300e6]);
  const slow = check({ kind: 'pausePropagated', from: 'h2', to: { role: 'leaf' }, within: '100us' }, v);
  assert.deepEqual([slow.pass, slow.margin], [false, '200 µs over']);
  assert.equal(check({ kind: 'pausePropagated', from: 'h2', to: ['h1', 'h3'], within: '1ms', reach: 'all' }, v).pass, false, 'h3 never paused');
  assert.equal(check({ kind: 'pauseContained', from: 'h2', to: ['h3'] }, v).pass, true);
  const leaked = check({ kind: 'pauseContained', from: 'h2', to: { role: 'leaf' } }, v);
  assert.deepEqual([leaked.pass, leaked.margin], [false, '1 too many']);
});

test('deadlock: a ring of paused queues stuck 200 µs is found when expected and fails when not', () => {
  // The flooding ring: sw1's uplinks and the leaves' downlinks pause each other with packets
  // waiting from 300 µs on, nothing sent; the leaves may send a packet back down.
  const rows: QueueRow[] = [];
  const ring = [['sw1', 'up1'], ['sw2', 'down1'], ['sw1', 'up2'], ['sw3', 'down1']] as const;
  for (let t = 0; t <= 1000; t += 100) for (const [n, p] of ring) rows.push(queue(t, n, p, t >= 300, Math.min(t, 300)));
  const v = variant('a', { 'queue.csv': rows });
  const found = check({ kind: 'deadlock', expected: true, stall: '200us' }, v);
  assert.equal(found.pass, true);
  assert.equal(found.measured, 'cycle sw1:up1:3 → sw2:down1:3 → sw1:up2:3 → sw3:down1:3 from 500 µs to the end');
  const unexpected = check({ kind: 'deadlock', expected: false, stall: '200us' }, v);
  assert.deepEqual([unexpected.pass, unexpected.margin], [false, 'a deadlock formed']);
  assert.deepEqual([check({ kind: 'deadlock', expected: true, stall: '900us' }, v).margin], ['no deadlock formed']);
});

test('probeLatency and probeLatencyRatio: nearest-rank percentiles, lost probes infinitely late', () => {
  const idle = Array.from({ length: 100 }, (_, i) => probe(i, 5 + (i % 10) / 10));
  const busy = Array.from({ length: 100 }, (_, i) => probe(1000 + i, i === 99 ? null : 50 + i));
  const v = variant('a', { 'probes.csv': [...idle, ...busy] });
  assert.deepEqual([check({ kind: 'probeLatency', percentile: 50, during: '0us-100us', max: '6us' }, v).value], [5.4e6]);
  const slow = check({ kind: 'probeLatency', percentile: 99, during: '1000us-1100us', max: '100us' }, v);
  assert.deepEqual([slow.pass, slow.measured], [false, '148 µs (100 probes)']);
  assert.equal(check({ kind: 'probeLatency', percentile: 100, during: '1000us-1100us', max: '1ms' }, v).measured, '∞ (100 probes)');
  const ratio = check({ kind: 'probeLatencyRatio', percentile: 50, during: '1000us-1100us', baseline: '0us-100us', min: 20 }, v);
  assert.deepEqual([ratio.pass, ratio.value, ratio.margin], [false, 99 / 5.4, '1.667× short']);
});

test('metric: summed over the matching series of the node reports', () => {
  const nodes = [
    { node: 'h2', role: 'host', ports: [], host: { cnpsSent: 4, cnpsReceived: 0, retransmittedPackets: 0, naksSent: { seq: 1, rnr: 0 }, naksReceived: { seq: 0, rnr: 0 }, rtoExpirations: 0, rnrWaits: 0, stormEvents: { warning: 0, error: 0 }, goodputBytes: 1000, receivedPayloadBytes: 5000 } },
    { node: 'h3', role: 'host', ports: [], host: { cnpsSent: 6, cnpsReceived: 0, retransmittedPackets: 0, naksSent: { seq: 0, rnr: 2 }, naksReceived: { seq: 0, rnr: 0 }, rtoExpirations: 0, rnrWaits: 0, stormEvents: { warning: 0, error: 0 }, goodputBytes: 0, receivedPayloadBytes: 0 } },
  ];
  const v = variant('a', {}, { nodes });
  assert.deepEqual([check({ kind: 'metric', name: 'rocelab_cnp_sent_total', op: '==', value: 10 }, v).pass], [true]);
  const bad = check({ kind: 'metric', name: 'rocelab_naks_sent_total', labels: { type: 'rnr' }, op: '<', value: 1 }, v);
  assert.deepEqual([bad.pass, bad.value, bad.measured, bad.expected, bad.margin], [false, 2, '2 NAKs', '< 1 NAKs', '1 NAKs the wrong side']);
  const bytes = check({ kind: 'metric', name: 'rocelab_goodput_bytes_total', labels: { node: 'h2' }, op: '>=', value: 1000 }, v);
  assert.deepEqual([bytes.pass, bytes.measured, bytes.expected], [true, '1 kB', '>= 1 kB']);
});

test('metric: a seconds-valued metric prints with its unit (7.5 µs, not 0)', () => {
  const pausedPs = [0, 0, 0, 7_500_000, 0, 0, 0, 0];
  const nodes = [{ node: 'sw1', role: 'tor', ports: [{ port: 'p1', pausedPs }], host: null }];
  const v = variant('a', {}, { nodes: nodes as never });
  const paused = check({ kind: 'metric', name: 'rocelab_pfc_paused_seconds_total', labels: { node: 'sw1' }, op: '<', value: 0.00002 }, v);
  assert.deepEqual([paused.pass, paused.value, paused.measured, paused.expected, paused.margin], [true, 7.5e-6, '7.5 µs', '< 20 µs', '12.5 µs from the bound']);
  const ns = check({ kind: 'metric', name: 'rocelab_pfc_paused_seconds_total', op: '>', value: 0.001 }, v);
  assert.deepEqual([ns.pass, ns.measured, ns.margin], [false, '7.5 µs', '992.5 µs the wrong side']);
});

const fct = (from: string, to: string, slowdown: number | null): FctRow => ({ run: '', flow: '0', from, to, sizeBytes: 1000, startUs: 0, completionUs: slowdown === null ? null : slowdown, fctUs: slowdown, idealFctUs: 1, slowdown, status: slowdown === null ? 'pending' : 'completed' });

test('fctSlowdown and fctSlowdownRatio: nearest-rank percentiles of the selected messages, one not completed infinitely slow', () => {
  // h1 → h2: 1, 2, …, 10; h3 → h2: one that never completed.
  const a = variant('a', { 'fct.csv': [...Array.from({ length: 10 }, (_, i) => fct('h1', 'h2', i + 1)), fct('h3', 'h2', null)] });
  const b = variant('b', { 'fct.csv': Array.from({ length: 10 }, (_, i) => fct('h1', 'h2', 2 * (i + 1))) });
  const p50 = check({ kind: 'fctSlowdown', flows: { from: 'h1' }, percentile: 50, max: 5 }, a);
  assert.deepEqual([p50.pass, p50.value, p50.measured], [true, 5, '5× (10 messages)']);
  const all = check({ kind: 'fctSlowdown', flows: {}, percentile: 100, max: 50 }, a);
  assert.deepEqual([all.pass, all.value, all.measured], [false, Infinity, '∞ (11 messages, 1 not completed)']);
  const ratio = check({ kind: 'fctSlowdownRatio', variantA: 'a', variantB: 'b', flows: { from: 'h1' }, percentile: 50, max: 0.4 }, [a, b]);
  assert.deepEqual([ratio.pass, ratio.value, ratio.margin, ratio.variant], [false, 0.5, '0.1× over', null]);
  assert.equal(check({ kind: 'fctSlowdown', flows: { from: 'h2' }, percentile: 50, max: 5 }, a).measured, 'no such message in fct.csv');
});

test('fctSlowdown selects messages by size too: "short flows" are those up to maxBytes, bounds inclusive', () => {
  // Sizes 100 kB … 1 MB in steps of 100 kB, slowdown = size in units of 100 kB (1 … 10).
  const rows = Array.from({ length: 10 }, (_, i) => ({ ...fct('h1', 'h2', i + 1), sizeBytes: (i + 1) * 100_000 }));
  const v = variant('a', { 'fct.csv': rows });
  const short = check({ kind: 'fctSlowdown', flows: { maxBytes: '200KB' }, percentile: 100, max: 5 }, v);
  assert.deepEqual([short.pass, short.value, short.measured], [true, 2, '2× (2 messages)']);
  const long = check({ kind: 'fctSlowdown', flows: { minBytes: 500_000, maxBytes: '700KB' }, percentile: 50, max: 5 }, v);
  assert.deepEqual([long.value, long.measured], [6, '6× (3 messages)']);
  assert.match(long.description, /of 500000 to 700KB/);
});

test('probeLatency of the probes some hosts send: the others do not count', () => {
  const rows: ProbeRow[] = [...[1, 2, 3].map((rtt) => ({ ...probe(10, rtt), from: 'h1' })), ...[100, 200, 300].map((rtt) => ({ ...probe(10, rtt), from: 'h3' }))];
  const v = variant('a', { 'probes.csv': rows });
  const mine = check({ kind: 'probeLatency', percentile: 100, during: '0us-1ms', flows: { from: 'h1' }, max: '5us' }, v);
  assert.deepEqual([mine.pass, mine.value, mine.description], [true, 3e6, 'P100 of the round trips of the probes from h1 posted in 0us-1ms']);
  assert.equal(check({ kind: 'probeLatency', percentile: 100, during: '0us-1ms', max: '5us' }, v).value, 300e6);
});

/** A fault at `atMs` on h2 (lasting `forMs`, or for ever). */
const fault = (index: number, atMs: number, forMs: number | null): FaultSpec => ({ index, atPs: atMs * 1e9, forPs: forMs === null ? null : forMs * 1e9, kind: 'nicPauseStorm', target: 'h2', params: { kind: 'nicPauseStorm', node: 'h2' }, raw: { at: `${atMs}ms`, kind: 'nicPauseStorm', node: 'h2' } }) as unknown as FaultSpec;
const withFaults = (faults: FaultSpec[]): PodSpec => ({ ...POD, faults });

/** h1 → h3 at 8 Gb/s (1 MB per ms) until 2 ms, stopped until 4.5 ms, then back at 8 Gb/s; samples every 100 µs. */
const STORM_RATES: RateRow[] = Array.from({ length: 101 }, (_, i) => {
  const t = i * 100;
  const bytes = t <= 2000 ? t * 1000 : t <= 4500 ? 2e6 : 2e6 + (t - 4500) * 1000;
  return rate(t, 'h1', 'h3', bytes);
});

test('timeToDetect: from the fault to the first watchdog detection after it; a bound as a max; none fails', () => {
  const v = { ...variant('a', { 'events.csv': [event(1000, 'sw1', 'p2', 'pfcwd_storm_detected'), event(3500, 'sw1', 'p2', 'pfcwd_storm_detected')] }), pod: withFaults([fault(0, 2, null)]) };
  const ok = check({ kind: 'timeToDetect', max: '2ms' }, v);
  assert.deepEqual([ok.pass, ok.value, ok.margin], [true, 1.5e9, '500 µs to spare'], 'the detection before the fault does not count');
  assert.match(ok.measured, /^1\.5 ms \(sw1:p2 priority 3 at 3\.5 ms; the fault at 2 ms\)$/);
  assert.deepEqual([check({ kind: 'timeToDetect', max: '1ms' }, v).margin], ['500 µs over']);
  assert.equal(check({ kind: 'timeToDetect', node: 'h2', max: '2ms' }, v).measured, 'never detected');
});

test('timeToRecover: from the containment (or the end) until the flows are back above a fraction of their pre-fault goodput', () => {
  const tables: TraceTables = { 'rates.csv': STORM_RATES, 'events.csv': [event(4000, 'sw1', 'p2', 'pfcwd_storm_detected')] };
  const v = { ...variant('a', tables), pod: withFaults([fault(0, 2, null)]) };
  // Contained at 4 ms; the first 100 µs interval back at 8 Gb/s starts at 4.5 ms.
  const ok = check({ kind: 'timeToRecover', flows: { to: 'h3' }, max: '1ms' }, v);
  assert.deepEqual([ok.pass, ok.value, ok.margin], [true, 0.5e9, '500 µs to spare']);
  assert.match(ok.measured, /from its containment at 4 ms; pre-fault 8 Gb\/s, 1 flow/);
  assert.equal(check({ kind: 'timeToRecover', flows: { to: 'h3' }, max: '400us' }, v).pass, false);
  // Measured from the fault's end instead: it ends at 3 ms (for 1 ms), so 1.5 ms.
  const ends = { ...variant('a', { 'rates.csv': STORM_RATES }), pod: withFaults([fault(0, 2, 1)]) };
  assert.equal(check({ kind: 'timeToRecover', flows: { to: 'h3' }, since: 'end', max: '2ms' }, ends).value, 1.5e9);
  // Neither an end nor a detection: nothing to recover from.
  const never = check({ kind: 'timeToRecover', flows: { to: 'h3' }, max: '2ms' }, { ...variant('a', { 'rates.csv': STORM_RATES }), pod: withFaults([fault(0, 2, null)]) });
  assert.deepEqual([never.pass, never.margin], [false, 'nothing to recover from']);
  // A flow that never comes back.
  const dead = STORM_RATES.map((r) => ({ ...r, ackedBytes: Math.min(r.ackedBytes, 2e6) }));
  assert.equal(check({ kind: 'timeToRecover', flows: { to: 'h3' }, max: '2ms' }, { ...variant('a', { 'rates.csv': dead }), pod: withFaults([fault(0, 2, 1)]) }).margin, 'never recovered');
});

test('incidentFigures: every fault with its time to detect and to recover, measured whether or not an expectation asks', () => {
  const tables: TraceTables = { 'rates.csv': STORM_RATES, 'events.csv': [event(4000, 'sw1', 'p2', 'pfcwd_storm_detected')] };
  const [f] = incidentFigures([fault(0, 2, null)], tables, 0);
  assert.deepEqual(f, {
    fault: 0, kind: 'nicPauseStorm', target: 'h2', atNs: 2e6, detectedNs: 4e6, detectedBy: 'sw1:p2 priority 3', timeToDetectNs: 2e6,
    recoveryFrom: 'containment', recoveryFromNs: 4e6, flows: [{ flow: 'h1 qp2 → h3', baselineGbps: 8, backNs: 4.5e6 }], timeToRecoverNs: 0.5e6,
  });
  const [none] = incidentFigures([fault(0, 2, null)], { 'rates.csv': STORM_RATES }, 0);
  assert.deepEqual([none!.timeToDetectNs, none!.recoveryFrom, none!.timeToRecoverNs], [null, null, null]);
});

/** Two apps: h1 reported counter 74 of an expected 150 and finished; h2 is still running. */
const APPS = [
  { node: 'h1', role: 'host', ports: [], host: null, app: { node: 'h1', module: 'counter.ts', digest: '', status: 'finished', error: null, finishedPs: 1, reports: { counter: 74, expected: 150 }, log: [], workRequests: { posted: 0, completed: 0, failed: 0 } } },
  { node: 'h2', role: 'host', ports: [], host: null, app: { node: 'h2', module: 'counter.ts', digest: '', status: 'running', error: null, finishedPs: null, reports: { adds: 75 }, log: [], workRequests: { posted: 0, completed: 0, failed: 0 } } },
] as unknown as NodeReport[];

test('appResult: the lost-update race (74 instead of 150) fails; bounds; every app finished', () => {
  const v = variant('a', {}, { nodes: APPS });
  const lost = check({ kind: 'appResult', key: 'counter', value: 150 }, v);
  assert.deepEqual([lost.pass, lost.measured, lost.expected, lost.margin, lost.value], [false, '74 (h1)', '= 150', '1 of 1 do not: 76 the wrong side', 74]);
  assert.equal(check({ kind: 'appResult', node: 'h1', key: 'counter', min: 50, max: 100 }, v).pass, true);
  assert.equal(check({ kind: 'appResult', key: 'missing', value: 1 }, v).margin, 'nothing measured');
  const finished = check({ kind: 'appResult', finished: true }, v);
  assert.deepEqual([finished.pass, finished.measured], [false, '1 of 2 finished; h2 running']);
  assert.equal(check({ kind: 'appResult', node: 'h1', finished: true }, v).pass, true);
});

test('why: an expectation carries where its bound comes from into the report', () => {
  const [o] = evaluate([{ ...expect({ kind: 'noLosslessDrops' }), why: 'PFC is lossless by design (IEEE 802.1Qbb)' }], [variant('a', {})]);
  assert.equal(o!.why, 'PFC is lossless by design (IEEE 802.1Qbb)');
});
