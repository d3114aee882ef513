import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatProgress, formatStatus } from './progress.js';

test('the progress bar fills with virtual time, not wall time, and stops at 100%', () => {
  const at = (virtualPs: number) => formatProgress(virtualPs, 2e9, '310 windows/s', 10);
  assert.equal(at(0), '[----------] 0.000 ms / 2.000 ms virtual  0%  310 windows/s');
  assert.equal(at(1.234e9), '[######----] 1.234 ms / 2.000 ms virtual  61%  310 windows/s');
  assert.equal(at(3e9), '[##########] 3.000 ms / 2.000 ms virtual  100%  310 windows/s');
});

test('rocelab status reads as aligned lines', () => {
  const text = formatStatus({
    pod: 'default',
    state: 'running',
    virtualPs: 4_590_852_000,
    durationPs: null,
    dilation: 10_000,
    lagSeconds: 0.0107,
    windows: 3867,
    windowsPerSecond: 113.66,
    nodesUp: 26,
    nodesTotal: 26,
  });
  assert.equal(
    text,
    [
      'pod           default: running',
      'virtual time  4.591 ms',
      'dilation      10000 wall s per virtual s',
      'lag           0.011 s behind the paced schedule',
      'windows       3867 (113.7 per wall second)',
      'nodes up      26 of 26',
      '',
    ].join('\n'),
  );
});

test('rocelab status lists the faults in force (since when, until when if known) and those to come', () => {
  const base = { pod: 'default', state: 'running', virtualPs: 4e9, durationPs: null, dilation: 10_000, lagSeconds: 0, windows: 1, windowsPerSecond: 1, nodesUp: 26, nodesTotal: 26 };
  const text = formatStatus({
    ...base,
    activeFaults: [
      { id: 1, kind: 'nicPauseStorm', target: 'h4', source: 'live', atNs: 1_234_000, untilNs: null },
      { id: 2, kind: 'loss', target: 'h1:p0', source: 'live', atNs: 2_000_000, untilNs: 6_000_000 },
    ],
    scheduledFaults: [{ id: 0, kind: 'nicPauseStorm', target: 'h16', source: 'topology', atNs: 10_000_000, untilNs: null }],
  });
  assert.match(text, /^faults active {2}fault 1 nicPauseStorm on h4 since 1\.234 ms virtual \(live\)$/m);
  assert.match(text, /^ {15}fault 2 loss on h1:p0 since 2\.000 ms until 6\.000 ms virtual \(live\)$/m);
  assert.match(text, /^scheduled {6}fault 0 nicPauseStorm on h16 at 10\.000 ms virtual \(topology\)$/m);
  assert.match(formatStatus({ ...base, activeFaults: [], scheduledFaults: [] }), /^faults active {2}none$/m);
});
