import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataFrame } from '@rocelab/sim/testing';
import type { Frame } from '@rocelab/wire';
import { NicPfc, type NicPfcConfig, type NicPfcTimer } from './nic-pfc.js';

// A 10,000 B buffer pausing at 8,000 B and resuming at 6,000 B, draining at 8 Gb/s (1 ns per
// byte); frames of 1,000 B take 1,000,000 ps to drain.
const CONFIG: NicPfcConfig = {
  bufferBytes: 10_000,
  xoffBytes: 8_000,
  xonBytes: 6_000,
  drainBps: 8e9,
  lossless: [3],
  refreshPs: 419_424_000,
  watchdog: { enabled: true, minorPs: 1_700_000_000, criticalPs: 2_000_000_000 },
};

function harness(config: NicPfcConfig = CONFIG) {
  const pauses: Array<{ quanta: number }> = [];
  const timers = new Map<NicPfcTimer, number>();
  const pfc = new NicPfc(config, {
    sendPause: (frame: Frame) => pauses.push({ quanta: frame.pfcQuanta[3]! }),
    setTimer: (name, atPs) => (atPs === null ? timers.delete(name) : timers.set(name, atPs)),
    timePs: (bytes, bps) => Math.ceil((bytes * 8e12) / bps),
  });
  /** Fire the earliest timer; returns its name. */
  const fire = (): NicPfcTimer => {
    const [name, at] = [...timers].sort((a, b) => a[1] - b[1])[0]!;
    timers.delete(name);
    pfc.onTimer(at, name);
    return name;
  };
  return { pfc, pauses, timers, fire };
}

test('the NIC pauses its ToR when the receive buffer reaches XOFF, renews the pause, and resumes at XON', () => {
  const { pfc, pauses, timers } = harness();
  for (let i = 0; i < 7; i++) assert.equal(pfc.receive(0, dataFrame(), 1_000), true);
  assert.deepEqual(pauses, [], '7,000 B: below XOFF');
  pfc.receive(0, dataFrame(), 1_000);
  assert.deepEqual(pauses, [{ quanta: 0xffff }], '8,000 B: XOFF');
  assert.equal(pfc.pausing, 'buffer');
  assert.equal(timers.get('refresh'), 419_424_000, 'renewed every half pause time');
  assert.equal(timers.get('drain'), 1_000_000, 'the first frame reaches host memory after 1,000 B at 8 Gb/s');
  // Drain: 7,000 B after the first frame (1 µs), 6,000 B after the second (2 µs) → XON.
  pfc.onTimer(1_000_000, 'drain');
  assert.equal(pauses.length, 1);
  pfc.onTimer(2_000_000, 'drain');
  assert.deepEqual(pauses.at(-1), { quanta: 0 }, 'XON: a zero-quanta resume');
  assert.equal(pfc.pausing, 'none');
  assert.equal(pfc.pausingPs(5_000_000), 2_000_000);
  assert.equal(timers.has('refresh'), false);
});

test('a frame that does not fit the buffer is refused (the NIC drops it as `buffer`)', () => {
  const { pfc } = harness();
  for (let i = 0; i < 10; i++) assert.equal(pfc.receive(0, dataFrame(), 1_000), true);
  assert.equal(pfc.receive(0, dataFrame(), 1), false);
  assert.equal(pfc.heldFrames, 10);
});

test('stall prevention: a warning at the minor timeout, and at the critical one the NIC stops pausing', () => {
  const { pfc, pauses, timers } = harness({ ...CONFIG, drainBps: 1 }); // host memory stuck: the buffer never drains
  for (let i = 0; i < 8; i++) pfc.receive(0, dataFrame(), 1_000);
  assert.equal(timers.get('minor'), 1_700_000_000);
  assert.equal(timers.get('critical'), 2_000_000_000);
  pfc.onTimer(419_424_000, 'refresh');
  pfc.onTimer(838_848_000, 'refresh');
  pfc.onTimer(1_700_000_000, 'minor');
  assert.deepEqual(pfc.stormEvents, { warning: 1, error: 0 });
  pfc.onTimer(2_000_000_000, 'critical');
  assert.deepEqual(pfc.stormEvents, { warning: 1, error: 1 });
  assert.equal(pfc.pausing, 'none');
  assert.equal(timers.has('refresh'), false, 'no more pause frames: the ToR’s pause runs out on its own');
  assert.equal(pauses.length, 3, 'the XOFF and two renewals, no resume');
  // Still above XOFF, but silenced: no new pause.
  pfc.receive(2_000_000_001, dataFrame(), 1_000);
  assert.equal(pauses.length, 3);
});

test('a malfunctioning NIC pauses whatever its buffer says, until stall prevention silences it for good', () => {
  const { pfc, pauses, fire } = harness();
  pfc.startStorm(0);
  assert.deepEqual(pauses, [{ quanta: 0xffff }]);
  assert.equal(pfc.pausing, 'storm');
  const fired: NicPfcTimer[] = [];
  // Renewals at 419, 839, 1,258 and 1,678 ms; the warning at 1.7 s; silenced at 2 s.
  for (let i = 0; i < 6; i++) fired.push(fire());
  assert.deepEqual(fired, ['refresh', 'refresh', 'refresh', 'refresh', 'minor', 'critical']);
  assert.deepEqual(pfc.stormEvents, { warning: 1, error: 1 });
  assert.equal(pauses.length, 5, 'the first pause and four renewals before 2 s');
  // The buffer is empty — a buffer-driven stall would re-arm — but a malfunction stays silenced.
  pfc.receive(3e12, dataFrame(), 1_000);
  pfc.onTimer(3e12 + 1_000_000, 'drain');
  pfc.startStorm(3e12 + 2_000_000);
  assert.equal(pauses.length, 5);
});

test('without stall prevention a storm pauses forever', () => {
  const { pfc, pauses, timers } = harness({ ...CONFIG, watchdog: { enabled: false, minorPs: 1, criticalPs: 1 } });
  pfc.startStorm(0);
  for (let k = 1; k <= 10; k++) pfc.onTimer(k * 419_424_000, 'refresh');
  assert.equal(pauses.length, 11);
  assert.equal(timers.has('critical'), false);
});
