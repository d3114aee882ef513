/**
 * The drill of a live session, as a pure function of its fault log, its pod and what the run
 * showed: the faults as they applied (a clear becomes `for`, to the ps), numbered as the session
 * numbered them or with a warning, drafts commented as drafts, and a file the drill loader takes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDrill } from '@rocelab/drill';
import type { PfcRow, RateRow } from '@rocelab/results';
import { clearToWire, faultToWire, type FaultLogEntry } from '@rocelab/runtime';
import { parseTopology } from '@rocelab/topology';
import { twoHostPod } from '@rocelab/topology/testing';
import { appliedFaults, draftDrill, exactDuration, type Observed } from './drill-draft.js';

const TEXT = twoHostPod(
  'pair',
  `seed: 3
workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 4MB, start: 0us}
faults:
  - {kind: macFlush, node: sw1, at: 5us}
`,
);
const POD = parseTopology(TEXT);
const US = 1_000_000;

/** Live faults as the fault book stamps them (numbers after the topology's), and clears. */
function liveLog(): FaultLogEntry[] {
  const live = parseTopology(`${TEXT}  - {kind: nicPauseStorm, node: h2, at: 100123456ps}\n  - {kind: loss, link: h1:p0, rate: 0.5, at: 150us, for: 20us}\n`);
  const [storm, loss] = [live.faults[1]!, live.faults[2]!];
  return [
    { ...faultToWire(POD.faults[0]!), source: 'topology' },
    { ...faultToWire(storm), source: 'live' },
    { ...faultToWire(loss), source: 'live' },
    { ...clearToWire(300 * US + 7, storm), source: 'live' },
  ];
}

const observed = (): Observed => {
  const pfc = (timeUs: number, node: string, port: string): PfcRow => ({ run: '', timeUs, node, port, priority: 3, event: 'pause', quanta: 65535, pauseUs: 838 });
  const rate = (timeUs: number, ackedBytes: number): RateRow => ({ run: '', timeUs, node: 'h1', qp: 1, flow: 'w0', dst: 'h2', rateGbps: 40, targetGbps: 40, alpha: null, ackedBytes, cnps: 0, throughputGbps: 0 });
  return {
    originPs: 0,
    // h2 pauses sw1:p2 (its port toward h2), which then pauses h1.
    pfc: [pfc(100.2, 'sw1', 'p2'), pfc(101.5, 'h1', 'p0')],
    events: [],
    // 4 MB/100 µs before the storm, a tenth of it during.
    rates: [rate(0, 0), rate(100, 4_000_000), rate(300, 4_800_000), rate(400, 8_000_000)],
  };
};

test('a cleared fault becomes the fault with for up to its clear, to the ps; a fault with its own for keeps it', () => {
  const faults = appliedFaults(liveLog());
  assert.deepEqual(
    faults.map((f) => [f.id, f.item.kind, f.atPs, f.clearedAtPs]),
    [
      [1, 'nicPauseStorm', 100_123_456, 300 * US + 7],
      [2, 'loss', 150 * US, null],
    ],
  );
  const { text, warnings } = draftDrill({ log: { pod: 'pair', seed: 3, virtualNs: 500_000, traceHash: 'abc', faults: liveLog() }, logName: 'log.json', pod: POD, topology: 'pair.yaml', observed: null });
  assert.deepEqual(warnings, []);
  assert.match(text, /^ {2}- \{at: "100123456ps", kind: "nicPauseStorm", node: "h2", for: "199876551ps"\}$/m);
  assert.match(text, /^ {2}- \{at: "150us", kind: "loss", link: "h1:p0", rate: 0\.5, for: "20us"\}$/m);
  assert.match(text, /^duration: 500us$/m);
  assert.match(text, /^seed: 3$/m);
  assert.match(text, /trace hash abc/);
  assert.equal(exactDuration(1_500_000_000), '1500us');
});

test('the draft is a drill: it loads, its faults are numbered as the session numbered them, and the expectations say they are drafts', () => {
  const { text } = draftDrill({ log: { pod: 'pair', seed: 3, virtualNs: 500_000, traceHash: null, faults: liveLog() }, logName: 'log.json', pod: POD, topology: 'pair.yaml', observed: observed() });
  const drill = loadDrill(text, '/x/drill.yaml', { readText: () => TEXT });
  const faults = drill.variants[0]!.pod.faults;
  assert.deepEqual(
    faults.map((f) => [f.index, f.kind, f.atPs, f.forPs]),
    [
      [0, 'macFlush', 5 * US, null],
      [1, 'nicPauseStorm', 100_123_456, 199_876_551],
      [2, 'loss', 150 * US, 20 * US],
    ],
  );
  const kinds = drill.expectations.map((e) => e.kind);
  assert.deepEqual(kinds.slice(0, 2), ['pausePropagated', 'flowGoodput'], text);
  assert.deepEqual(drill.expectations[0]!.raw, { kind: 'pausePropagated', from: 'h2', to: ['h1', 'sw1'], reach: 'all', within: '2us' });
  // 0.8 MB over 199.88 µs: 32.02 Gb/s kept; max 1.25× that, rounded up to two digits.
  assert.equal(drill.expectations[1]!.raw.max, '41G');
  assert.equal(text.match(/^ {2}# draft: /gm)!.length, drill.expectations.length, 'every expectation is commented as a draft');
});

test('a session whose live numbers do not follow the topology’s (a withdrawn fault) is exported with a warning that the hash differs', () => {
  const log = liveLog().map((e) => (e.source === 'live' && e.kind !== 'clear' && e.id === 1 ? { ...e, id: 4 } : e));
  const { warnings } = draftDrill({ log: { pod: 'pair', seed: 3, virtualNs: 500_000, traceHash: null, faults: log.filter((e) => e.kind !== 'clear') }, logName: 'log.json', pod: POD, topology: 'pair.yaml', observed: null });
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /^fault 2 is numbered 1 in the drill .*its trace hash differs from the session's$/);
});
