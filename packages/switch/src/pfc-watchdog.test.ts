import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_MS } from '@rocelab/sim';
import { WATCHDOG_DRILL as DRILL_WATCHDOG, WATCHDOG_VENDOR as SONIC_WATCHDOG } from './defaults.js';
import { checkWatchdogConfig, PfcWatchdog, type QueueSample, type WatchdogConfig } from './pfc-watchdog.js';

/** The counters a switch would read for one (port, queue); tests mutate it between polls as the queue evolves. */
function queue(initial: Partial<QueueSample> = {}): QueueSample {
  return { occupancyBytes: 0, txPackets: 0, pfcRxPackets: 0, pfcOn2OffPackets: 0, paused: false, ...initial };
}

/** Polls once per `steps` entry: applies what happened since the previous poll, then checks the event. */
function run(wd: PfcWatchdog, q: QueueSample, steps: Array<[label: string, change: (q: QueueSample) => void, expected: string]>): void {
  for (const [label, change, expected] of steps) {
    change(q);
    assert.equal(wd.poll({ ...q }), expected, `poll at ${label}`);
  }
}

const same = (): void => {};
/** A frozen backlog: 10 more pause frames arrive, nothing leaves, no new pause-on edge. */
const frozen = (q: QueueSample): void => {
  q.pfcRxPackets += 10;
};

test('PHYSICS §7a #8: detection = poll = 200 ms, storm from 50 ms ⇒ declared at the 400 ms poll, not 200', () => {
  const wd = new PfcWatchdog(SONIC_WATCHDOG);
  const q = queue({ occupancyBytes: 4_000, txPackets: 1_000 });
  run(wd, q, [
    // 0 ms: traffic flows, no pause yet. The first poll only records.
    ['0 ms', same, 'none'],
    // 0–50 ms: 500 packets leave. 50 ms: the peer starts pausing (one ON2OFF edge) and refreshes; the backlog grows.
    // Clause 1 fails: Δtx = 500 > 0. Clause 2 fails: occupancy > 0, and pause status was false at poll 0.
    ['200 ms', (s) => Object.assign(s, { txPackets: 1_500, pfcRxPackets: 300, pfcOn2OffPackets: 1, paused: true, occupancyBytes: 60_000 }), 'none'],
    // 200–400 ms: more pauses, nothing leaves, backlog > 0 ⇒ clause 1; timeLeft (reset to 200) ≤ poll (200) ⇒ storm.
    ['400 ms', (s) => Object.assign(s, { pfcRxPackets: 700, occupancyBytes: 90_000 }), 'stormDetected'],
  ]);
  assert.equal(wd.state, 'stormed');
  assert.equal(wd.detections, 1);
  // SONiC's default action is drop (PHYSICS §4.1).
  assert.equal(wd.dropping, true);
  assert.equal(wd.ignoringPauses, true);
});

test('timing: drill (2/4/1 ms): storm from 0.5 ms declared at 3 ms; restored 4 quiet polls after the last pause frame', () => {
  assert.deepEqual({ ...DRILL_WATCHDOG }, { detectionPs: 2 * PS_PER_MS, restorationPs: 4 * PS_PER_MS, pollPs: PS_PER_MS, action: 'drop' });
  const wd = new PfcWatchdog(DRILL_WATCHDOG);
  const q = queue({ occupancyBytes: 20_000 });
  const mitigated = (s: QueueSample): void => {
    // Drop mode flushed the queue and ignores pauses; the NIC keeps storming.
    Object.assign(s, { occupancyBytes: 0, paused: false, pfcRxPackets: s.pfcRxPackets + 10 });
  };
  run(wd, q, [
    ['0 ms', same, 'none'],
    // 0–0.5 ms 20 packets leave, then the storm: Δtx > 0 ⇒ not a storm poll.
    ['1 ms', (s) => Object.assign(s, { txPackets: 20, pfcRxPackets: 5, pfcOn2OffPackets: 1, paused: true }), 'none'],
    ['2 ms', frozen, 'none'], // storm poll: timeLeft 2 ms > 1 ms ⇒ 1 ms
    ['3 ms', frozen, 'stormDetected'], // timeLeft 1 ms ≤ 1 ms: 0.5 ms + 2 ms rounded up to a poll
    ['4 ms', mitigated, 'none'], // restoration: each pause frame resets it to 4 ms
    ['5 ms', mitigated, 'none'],
    ['6 ms', mitigated, 'none'],
    ['7 ms', mitigated, 'none'], // the last pause frames arrive at 6.5 ms
    ['8 ms', same, 'none'], // quiet: 4 → 3 ms
    ['9 ms', same, 'none'], // 3 → 2
    ['10 ms', same, 'none'], // 2 → 1
    ['11 ms', same, 'stormRestored'], // 1 ≤ 1: four quiet polls = 4 ms
  ]);
  assert.equal(wd.state, 'operational');
  assert.deepEqual([wd.detections, wd.restorations, wd.dropping, wd.ignoringPauses], [1, 1, false, false]);
});

test('timing: drill: one pause frame during restoration restarts the 4 ms count', () => {
  const wd = new PfcWatchdog(DRILL_WATCHDOG);
  const q = queue({ occupancyBytes: 20_000, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true }); // stormed before 0 ms
  const onePause = (s: QueueSample): void => {
    s.pfcRxPackets += 1;
  };
  run(wd, q, [
    ['0 ms', same, 'none'],
    ['1 ms', frozen, 'none'],
    ['2 ms', frozen, 'stormDetected'], // two storm polls = 2 ms
    ['3 ms', same, 'none'], // 4 → 3
    ['4 ms', same, 'none'], // 3 → 2
    ['5 ms', onePause, 'none'], // reset to 4
    ['6 ms', same, 'none'], // 4 → 3
    ['7 ms', same, 'none'], // 3 → 2
    ['8 ms', same, 'none'], // 2 → 1
    ['9 ms', same, 'stormRestored'], // without the pause it would have been 6 ms
  ]);
});

test('clause 2: an empty queue held paused by new pause frames with no new ON2OFF edge is a storm; with new edges it is not', () => {
  const held = new PfcWatchdog(DRILL_WATCHDOG);
  run(held, queue({ txPackets: 50, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true }), [
    ['0 ms', same, 'none'],
    ['1 ms', frozen, 'none'], // occupancy 0, ΔpfcRx > 0, Δon2off = 0, paused at both ⇒ storm poll, 2 → 1
    ['2 ms', frozen, 'stormDetected'],
  ]);
  // Each new pause-on edge means the priority was released in between: the queue had chances to send.
  const toggling = new PfcWatchdog(DRILL_WATCHDOG);
  const q = queue({ txPackets: 50, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true });
  const steps: Array<[string, (q: QueueSample) => void, string]> = [['0 ms', same, 'none']];
  for (let ms = 1; ms <= 10; ms++) steps.push([`${ms} ms`, (s) => Object.assign(s, { pfcRxPackets: s.pfcRxPackets + 10, pfcOn2OffPackets: s.pfcOn2OffPackets + 1 }), 'none']);
  run(toggling, q, steps);
  assert.equal(toggling.detections, 0);
});

test('clause 2 needs the pause status true at both samples', () => {
  // detection = poll: every storm poll declares at once, so each poll's verdict is visible.
  const wd = new PfcWatchdog({ ...DRILL_WATCHDOG, detectionPs: PS_PER_MS });
  run(wd, queue({ pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true }), [
    ['0 ms', same, 'none'],
    ['1 ms', (s) => Object.assign(s, { pfcRxPackets: s.pfcRxPackets + 10, paused: false }), 'none'], // status false now
    ['2 ms', (s) => Object.assign(s, { pfcRxPackets: s.pfcRxPackets + 10, paused: true }), 'none'], // status false at the previous poll
    ['3 ms', frozen, 'stormDetected'], // held at 2 and 3 ms
  ]);
});

test('a backlog that still drains (Δtx > 0), however slowly, is never a storm', () => {
  const wd = new PfcWatchdog(DRILL_WATCHDOG);
  const q = queue({ occupancyBytes: 50_000, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true });
  const steps: Array<[string, (q: QueueSample) => void, string]> = [['0 ms', same, 'none']];
  // Paused at every sample with more pause frames (clause 1's other inputs all say storm), but one packet leaves per poll.
  for (let ms = 1; ms <= 20; ms++) steps.push([`${ms} ms`, (s) => Object.assign(s, { pfcRxPackets: s.pfcRxPackets + 10, txPackets: s.txPackets + 1 }), 'none']);
  run(wd, q, steps);
  assert.deepEqual([wd.state, wd.detections], ['operational', 0]);
});

test('alert mode counts the storm once, never drops or ignores pauses, and restores on the first non-storm poll', () => {
  const wd = new PfcWatchdog({ ...DRILL_WATCHDOG, action: 'alert' });
  const q = queue({ occupancyBytes: 20_000, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true });
  const steps: Array<[string, (q: QueueSample) => void, string]> = [
    ['0 ms', same, 'none'],
    ['1 ms', frozen, 'none'],
    ['2 ms', frozen, 'stormDetected'],
  ];
  // Detection keeps running; it re-declares every 2 ms, which orchagent ignores for a stormed queue.
  for (let ms = 3; ms <= 8; ms++) steps.push([`${ms} ms`, frozen, 'none']);
  run(wd, q, steps);
  assert.deepEqual([wd.state, wd.detections, wd.dropping, wd.ignoringPauses], ['stormed', 1, false, false]);
  // 9 ms: pause frames still arrive, but one packet left ⇒ non-storm poll ⇒ restore at once (no restoration period).
  run(wd, q, [['9 ms', (s) => Object.assign(s, { pfcRxPackets: s.pfcRxPackets + 10, txPackets: s.txPackets + 1 }), 'stormRestored']]);
  assert.deepEqual([wd.state, wd.restorations], ['operational', 1]);
  // The countdown restarted at 9 ms: a new storm needs two storm polls again.
  run(wd, q, [
    ['10 ms', frozen, 'none'],
    ['11 ms', frozen, 'stormDetected'],
  ]);
  assert.equal(wd.detections, 2);
});

test('forward mode ignores pauses without dropping while stormed', () => {
  const wd = new PfcWatchdog({ ...DRILL_WATCHDOG, action: 'forward' });
  const q = queue({ occupancyBytes: 20_000, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true });
  assert.deepEqual([wd.dropping, wd.ignoringPauses], [false, false]);
  run(wd, q, [
    ['0 ms', same, 'none'],
    ['1 ms', frozen, 'none'],
    ['2 ms', frozen, 'stormDetected'],
  ]);
  assert.deepEqual([wd.state, wd.dropping, wd.ignoringPauses], ['stormed', false, true]);
});

test('after a drop/forward storm, detection compares with the poll that declared it (the lua saves its baseline only when it runs)', () => {
  const wd = new PfcWatchdog({ ...DRILL_WATCHDOG, action: 'forward' });
  const q = queue({ occupancyBytes: 20_000, txPackets: 100, pfcRxPackets: 1, pfcOn2OffPackets: 1, paused: true });
  run(wd, q, [
    ['0 ms', same, 'none'],
    ['1 ms', frozen, 'none'],
    ['2 ms', frozen, 'stormDetected'], // detection baseline: txPackets 100
    // Forward: pauses ignored, 500 packets leave by 3 ms; the NIC's last pause frames arrive before 3 ms.
    ['3 ms', (s) => Object.assign(s, { txPackets: 600, pfcRxPackets: s.pfcRxPackets + 10, paused: false }), 'none'],
    ['4 ms', same, 'none'],
    ['5 ms', same, 'none'],
    ['6 ms', same, 'none'],
    ['7 ms', same, 'stormRestored'],
    // The storm resumes after 7 ms and nothing leaves: tx stays 600. At 8 ms Δtx = 600 − 100 > 0 against the
    // 2 ms baseline ⇒ not a storm poll; a baseline refreshed every poll would have counted it.
    ['8 ms', (s) => Object.assign(s, { pfcRxPackets: s.pfcRxPackets + 10, pfcOn2OffPackets: 2, paused: true }), 'none'],
    ['9 ms', frozen, 'none'], // first storm poll: 2 → 1
    ['10 ms', frozen, 'stormDetected'],
  ]);
  assert.equal(wd.detections, 2);
});

test('checkWatchdogConfig: positive integer ps, a known action, poll ≤ detection and ≤ restoration; the constructor refuses bad configs', () => {
  assert.deepEqual(checkWatchdogConfig(SONIC_WATCHDOG), []);
  assert.deepEqual(checkWatchdogConfig(DRILL_WATCHDOG), []);
  const ms = PS_PER_MS;
  assert.deepEqual(checkWatchdogConfig({ ...DRILL_WATCHDOG, pollPs: 3 * ms }), [{ field: 'pollPs', expected: `≤ detectionPs (${2 * ms})`, actual: 3 * ms }]);
  assert.deepEqual(checkWatchdogConfig({ ...DRILL_WATCHDOG, restorationPs: ms / 2, pollPs: ms }), [{ field: 'pollPs', expected: `≤ restorationPs (${ms / 2})`, actual: ms }]);
  assert.deepEqual(
    checkWatchdogConfig({ detectionPs: 0, restorationPs: -1, pollPs: 0.5, action: 'drop' }).map((i) => i.field),
    ['detectionPs', 'restorationPs', 'pollPs'],
  );
  assert.deepEqual(checkWatchdogConfig({ ...DRILL_WATCHDOG, action: 'shutdown' } as unknown as WatchdogConfig), [
    { field: 'action', expected: 'one of drop, forward, alert', actual: 'shutdown' },
  ]);
  // poll = detection = restoration is allowed (SONiC start_default).
  assert.deepEqual(checkWatchdogConfig({ detectionPs: ms, restorationPs: ms, pollPs: ms, action: 'alert' }), []);
  assert.throws(() => new PfcWatchdog({ ...DRILL_WATCHDOG, pollPs: 3 * ms }), /pollPs expected ≤ detectionPs/);
});
