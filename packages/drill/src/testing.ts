/**
 * Test support for the report renderers: a small hand-made report (two variants, a fault, a
 * passing and a failing expectation, one across variants) and trace tables with every kind of
 * plot in them, for tests that need a report without running a pod.
 */
import type { PfcRow, QueueRow, RateRow, TraceRows, TraceTables } from '@rocelab/results';
import type { DrillReport, ExpectationOutcome, VariantOutcome, VariantRun } from './report-model.js';

export function sampleRun(over: Partial<VariantRun> = {}): VariantRun {
  return {
    mode: 'inproc', seed: 5, profile: 'vendor', timing: 'drill', traceHash: 'ab'.repeat(32), virtualNs: 1_000_000, wallMs: 120, conservation: true,
    packets: { sent: 1000, delivered: 990, dropped: 7, queued: 3 }, droppedByReason: { watchdog: 7 },
    flows: { total: 3, completed: 1, pending: 2, stalled: 1, failed: 0 }, pauseFramesSent: 12, pausedPorts: 2,
    probes: { sent: 40, lost: 2, p50Ns: 5_200, p99Ns: 9_800 }, failedApps: [], ...over,
  };
}

export function sampleExpectation(id: string, variant: string | null, pass: boolean, over: Partial<ExpectationOutcome> = {}): ExpectationOutcome {
  return {
    id, kind: 'watchdogDetects', variant, pass, description: `${id}: the watchdog detects the storm within 3 ms`,
    measured: pass ? '2.999 ms after the storm began' : '4.200 ms after the storm began', expected: '≤ 3 ms',
    margin: pass ? '0.001 ms to spare' : '1.200 ms too late', value: pass ? 2_999_000_000 : 4_200_000_000, ...over,
  };
}

export function sampleVariant(name: string, pass: boolean, over: Partial<VariantOutcome> = {}): VariantOutcome {
  return {
    name, description: `what ${name} changes`, pass, run: sampleRun(),
    audit: { pass: true, conservation: true, causalityViolations: 0, offBy: 0, text: 'sent 1000 = delivered 990 + dropped 7 + queued 3; 0 causality violations: holds' },
    incidents: [{
      fault: 0, kind: 'nicPauseStorm', target: 'h4', atNs: 200_000, detectedNs: 400_000, detectedBy: 'tor2:p2 priority 3', timeToDetectNs: 200_000,
      recoveryFrom: 'containment', recoveryFromNs: 400_000, flows: [{ flow: 'h2 qp2 → h3', baselineGbps: 10, backNs: 420_000 }], timeToRecoverNs: 20_000,
    }],
    faults: [{ id: 0, kind: 'nicPauseStorm', target: 'h4', atNs: 200_000, untilNs: 700_000, params: { priority: 3 }, source: 'drill' }],
    expectations: [sampleExpectation(`expect[0] ${name}`, name, true), sampleExpectation(`expect[1] ${name}`, name, pass)],
    traceDir: `trace/${name}`, ...over,
  };
}

/** Variants `watchdog` (fails one expectation) and `no-watchdog` (passes); one expectation across them. */
export function sampleReport(over: Partial<DrillReport> = {}): DrillReport {
  return {
    drill: 'stuck-receiver', title: 'A stuck receiver', description: 'A NIC pauses its ToR for ever; the watchdog breaks the chain.',
    source: 'Guo et al., SIGCOMM 2016', file: 'drills/stuck-receiver.yaml', mode: 'inproc', pass: false,
    variants: [sampleVariant('watchdog', false), sampleVariant('no-watchdog', true)],
    acrossVariants: [sampleExpectation('expect[2]', null, true, { kind: 'compare', description: 'the victim does better with the watchdog' })],
    plots: [], ...over,
  };
}

const queue = (timeUs: number, node: string, port: string, queueBytes: number): QueueRow => ({
  run: '', timeUs, node, port, priority: 3, queueBytes, thresholdBytes: 200_000, ingressBytes: 0, headroomBytes: 0, paused: false, pausing: false, ecnMarks: 0, txPackets: 0,
});
const pfc = (timeUs: number, node: string, port: string, event: 'pause' | 'resume', pauseUs: number): PfcRow => ({
  run: '', timeUs, node, port, priority: 3, event, quanta: pauseUs === 0 ? 0 : 65535, pauseUs,
});
const rate = (timeUs: number, node: string, qp: number, dst: string, throughputGbps: number): RateRow => ({
  run: '', timeUs, node, qp, flow: String(qp), dst, rateGbps: 40, targetGbps: 40, alpha: null, ackedBytes: 0, cnps: 0, throughputGbps,
});

/**
 * 1 ms of trace: queues on a `queueStepUs` grid (tor2:p2 fills from 200 µs), `sw1:p1` paused
 * 201–700 µs, `sw1:p2` only resumed (never paused), two flows, probes every 25 µs (one lost).
 * `node` names the ToR, so a test can give it a name that needs escaping.
 */
export function sampleTables(o: { queueStepUs?: number; node?: string } = {}): TraceTables {
  const step = o.queueStepUs ?? 1;
  const tor = o.node ?? 'tor2';
  const queueRows: QueueRow[] = [];
  for (let i = 0; i * step <= 1000; i++) {
    const t = i * step;
    queueRows.push(queue(t, tor, 'p2', t < 200 ? 0 : Math.min(400_000, (t - 200) * 1000)), queue(t, 'leaf2', 'down1', t < 300 ? 0 : 50_000), queue(t, 'tor1', 'up1', 10));
    queueRows.push(queue(t, 'spine1', 'down1', 0));
  }
  const rates = Array.from({ length: 100 }, (_, i) => [rate((i + 1) * 10, 'h1', 2, 'h4', i < 20 ? 5 : 0), rate((i + 1) * 10, 'h2', 3, 'h3', 10)]).flat();
  const probes: Array<TraceRows['probes.csv']> = Array.from({ length: 40 }, (_, i) => ({ run: '', timeUs: i * 25, from: 'h1', to: 'h3', rttUs: i === 20 ? null : 5 + (i % 4) }));
  return {
    'queue.csv': queueRows,
    'pfc.csv': [pfc(200, tor, 'p2', 'pause', 838.848), pfc(201, 'sw1', 'p1', 'pause', 400), pfc(500, 'sw1', 'p1', 'pause', 200), pfc(300, 'sw1', 'p2', 'resume', 0)],
    'rates.csv': rates,
    'probes.csv': probes,
    'events.csv': [],
    'fct.csv': [],
  };
}
