import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_US } from '@rocelab/sim';
import { DcqcnNotificationPoint } from './dcqcn-np.js';

const US = PS_PER_US;

/**
 * Feeds CEs at `ceTimesPs` and fires the window timer whenever it falls due, a CE first when
 * both happen at one instant (frame arrival before timers, DESIGN §3). Returns the CNP instants.
 */
function run(np: DcqcnNotificationPoint, ceTimesPs: number[], endPs: number): number[] {
  const sent: number[] = [];
  const timerUpTo = (t: number): void => {
    for (let due = np.deadlinePs(); due !== null && due < t; due = np.deadlinePs()) if (np.onTimer(due)) sent.push(due);
  };
  for (const t of ceTimesPs) {
    timerUpTo(t);
    if (np.onCe(t)) sent.push(t);
  }
  timerUpTo(endPs);
  return sent;
}

const everyMicrosecond = (count: number): number[] => Array.from({ length: count }, (_, i) => i * US);

test('vendor: a CE every 1 µs for 40 µs gives 10 CNPs, at 0, 4, 8 … 36 µs', () => {
  const np = new DcqcnNotificationPoint('vendor', 4 * US);
  assert.deepEqual(run(np, everyMicrosecond(40), 100 * US), [0, 4, 8, 12, 16, 20, 24, 28, 32, 36].map((u) => u * US));
  assert.deepEqual(np.stats, { ceMarked: 40, cnpsSent: 10 });
});

test('vendor: CEs inside the interval are coalesced into the CNP already sent; nothing stays pending', () => {
  const np = new DcqcnNotificationPoint('vendor', 4 * US);
  assert.equal(np.onCe(10 * US), true);
  assert.equal(np.onCe(11 * US), false);
  assert.equal(np.onCe(14 * US - 1), false);
  assert.equal(np.deadlinePs(), null);
  assert.equal(np.onTimer(14 * US), false);
  assert.equal(np.onCe(20 * US), true); // quiet since 10 µs: a new CNP at once
});

test('paper (HTSIM DCQCNSink): a CE every 1 µs for 40 µs gives a CNP at 0 and one at the end of the 50 µs window', () => {
  const np = new DcqcnNotificationPoint('paper', 50 * US);
  assert.deepEqual(run(np, everyMicrosecond(40), 200 * US), [0, 50 * US]);
  assert.deepEqual(np.stats, { ceMarked: 40, cnpsSent: 2 });
});

test('paper: with CEs for 120 µs each window end sends one CNP, and a window with no CE sends none', () => {
  const np = new DcqcnNotificationPoint('paper', 50 * US);
  // 0 by the CE; 50 and 100 by the CE arriving exactly at the window end (before the timer);
  // 150 by the timer, for the CEs of 101–119 µs; then no CE, no CNP.
  assert.deepEqual(run(np, everyMicrosecond(120), 400 * US), [0, 50 * US, 100 * US, 150 * US]);
  assert.equal(np.deadlinePs(), null);
  const quiet = new DcqcnNotificationPoint('paper', 50 * US);
  assert.equal(quiet.onCe(0), true);
  assert.equal(quiet.deadlinePs(), null); // nothing pending: no timer needed
  assert.equal(quiet.onCe(30 * US), false);
  assert.equal(quiet.deadlinePs(), 50 * US);
  assert.equal(quiet.onTimer(49 * US), false); // early call: still pending
  assert.equal(quiet.onTimer(50 * US), true);
  assert.equal(quiet.deadlinePs(), null);
  assert.equal(quiet.onCe(60 * US), false); // the window restarted at 50 µs
  assert.equal(quiet.deadlinePs(), 100 * US);
});

test('CNP pacing is per QP: two notification points do not share a window', () => {
  const a = new DcqcnNotificationPoint('vendor', 4 * US);
  const b = new DcqcnNotificationPoint('vendor', 4 * US);
  assert.equal(a.onCe(0), true);
  assert.equal(b.onCe(1 * US), true);
  assert.equal(a.onCe(2 * US), false);
});

test('hpcc-ns3: never a CNP packet (the ACK carries the CNP flag), but CEs are counted', () => {
  const np = new DcqcnNotificationPoint('hpcc-ns3', 0);
  assert.deepEqual(run(np, everyMicrosecond(40), 100 * US), []);
  assert.deepEqual(np.stats, { ceMarked: 40, cnpsSent: 0 });
});

test('a negative or fractional interval is refused', () => {
  assert.throws(() => new DcqcnNotificationPoint('vendor', -1), RangeError);
  assert.throws(() => new DcqcnNotificationPoint('paper', 1.5), RangeError);
});
