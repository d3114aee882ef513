import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pfcFrame, type Frame } from '@rocelab/wire';
import { dataFrame, scriptedPod } from './testing.js';

// 40 Gb/s: 200 ps per byte. A 1024 B middle WRITE packet is 1086 B + 20 B preamble/gap
// = 221,200 ps; a PFC frame 84 B = 16,800 ps; one pause quantum (64 B) = 12,800 ps.
const DATA_PS = 221_200;
const PFC_PS = 16_800;
const QUANTUM_PS = 12_800;
const LATENCY_PS = 1_000_000;

const pause = (priority: number, quanta: number): Frame => {
  const q = [0, 0, 0, 0, 0, 0, 0, 0];
  q[priority] = quanta;
  return pfcFrame(1 << priority, q);
};

test('frames serialize back to back and arrive one latency after their last bit', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  for (let i = 0; i < 3; i++) model('a').send(0, dataFrame({ psn: i }));
  engine.runUntil(10_000_000);
  assert.deepEqual(
    model('b').received.map((r) => r.timePs),
    [1, 2, 3].map((k) => k * DATA_PS + LATENCY_PS),
  );
  assert.equal(engine.context(0).stats.ports[0]!.txBytes, 3 * 1086);
  assert.equal(engine.context(1).stats.ports[0]!.rxBytes, 3 * 1086);
});

test('a pause holds its priority for quanta × 512 bit times, then the frame starts exactly at expiry', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  model('b').send(0, pause(3, 10)); // arrives at a at 16,800 + 1 µs
  const pauseArrival = PFC_PS + LATENCY_PS;
  model('a').at(pauseArrival, () => model('a').send(0, dataFrame())); // same instant: the timer runs after the PFC arrival
  engine.runUntil(10_000_000);
  const start = pauseArrival + 10 * QUANTUM_PS;
  assert.deepEqual(model('b').received.map((r) => r.timePs), [start + DATA_PS + LATENCY_PS]);
  assert.equal(engine.context(0).transmitters[0]!.pausedPs(3, 10_000_000), 10 * QUANTUM_PS);
  assert.equal(engine.context(0).stats.ports[0]!.pfcRx[3], 1);
  assert.equal(engine.context(1).stats.ports[0]!.pfcTx[3], 1);
});

test('a pause arriving at the instant the wire frees wins: the next frame waits', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const pauseArrival = PFC_PS + LATENCY_PS;
  model('b').send(0, pause(3, 5));
  // Start a frame so that it finishes exactly when the pause arrives, with a second behind it.
  model('a').at(pauseArrival - DATA_PS, () => {
    model('a').send(0, dataFrame({ psn: 1 }));
    model('a').send(0, dataFrame({ psn: 2 }));
  });
  engine.runUntil(10_000_000);
  const times = model('b').received.map((r) => r.timePs);
  assert.equal(times[0], pauseArrival + LATENCY_PS);
  assert.equal(times[1], pauseArrival + 5 * QUANTUM_PS + DATA_PS + LATENCY_PS);
});

test('other priorities keep flowing while one is paused', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const pauseArrival = PFC_PS + LATENCY_PS;
  model('b').send(0, pause(3, 1000));
  model('a').at(pauseArrival, () => {
    model('a').send(0, dataFrame({ dscp: 26, psn: 3 }));
    model('a').send(0, dataFrame({ dscp: 0, psn: 0 }));
  });
  engine.runUntil(100_000_000);
  assert.deepEqual(model('b').received.map((r) => r.frame.psn), [0, 3]);
  assert.equal(model('b').received[0]!.timePs, pauseArrival + DATA_PS + LATENCY_PS);
});

test('a refresh before expiry reloads the timer; a zero-quanta resume releases at once', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const first = PFC_PS + LATENCY_PS;
  model('b').send(0, pause(3, 100)); // held until first + 100 q
  model('b').at(50 * QUANTUM_PS, () => model('b').send(0, pause(3, 100))); // arrives at 50q + first: reload
  model('a').at(first, () => model('a').send(0, dataFrame({ psn: 1 })));
  engine.runUntil(100_000_000);
  const refreshArrival = 50 * QUANTUM_PS + first;
  assert.equal(model('b').received[0]!.timePs, refreshArrival + 100 * QUANTUM_PS + DATA_PS + LATENCY_PS);

  const resumed = scriptedPod([{ a: 'a', b: 'b' }]);
  resumed.model('b').send(0, pause(3, 0xffff));
  resumed.model('b').at(10 * QUANTUM_PS, () => resumed.model('b').send(0, pause(3, 0)));
  resumed.model('a').at(first, () => resumed.model('a').send(0, dataFrame()));
  resumed.engine.runUntil(100_000_000);
  const resumeArrival = 10 * QUANTUM_PS + first;
  assert.deepEqual(resumed.model('b').received.map((r) => r.timePs), [resumeArrival + DATA_PS + LATENCY_PS]);
  assert.equal(resumed.engine.context(0).transmitters[0]!.pausedPs(3, 100_000_000), resumeArrival - first);
});

test('the largest pause at 40G lasts 838,848 ns (PHYSICS §7a #5)', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const first = PFC_PS + LATENCY_PS;
  model('b').send(0, pause(3, 0xffff));
  model('a').at(first, () => model('a').send(0, dataFrame()));
  engine.runUntil(2_000_000_000);
  assert.equal(model('b').received[0]!.timePs - DATA_PS - LATENCY_PS - first, 838_848_000);
});

test('PFC frames leave right after the frame in progress, ahead of queued data, and are never paused', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const a = model('a');
  for (let i = 0; i < 4; i++) a.send(0, dataFrame({ psn: i }));
  a.at(1000, () => a.send(0, pause(3, 1)));
  engine.runUntil(100_000_000);
  assert.equal(model('b').pfcReceived[0]!.timePs, DATA_PS + PFC_PS + LATENCY_PS);
  assert.equal(model('b').received[1]!.timePs, 2 * DATA_PS + PFC_PS + LATENCY_PS);

  // a is paused on every priority; its own PFC frame still goes out.
  const held = scriptedPod([{ a: 'a', b: 'b' }]);
  held.model('b').send(0, pfcFrame(0xff, [0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff]));
  held.model('a').at(2 * LATENCY_PS, () => {
    held.model('a').send(0, dataFrame());
    held.model('a').send(0, pause(3, 7));
  });
  held.engine.runUntil(10_000_000);
  assert.equal(held.model('b').pfcReceived[0]!.timePs, 2 * LATENCY_PS + PFC_PS + LATENCY_PS);
  assert.equal(held.model('b').received.length, 0);
});

test('the IP-ID rule drops exactly one frame in 256, each counted as loss', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b', aToB: { dropIpIdLowByte: 0xff } }]);
  const n = 256 * 40;
  for (let i = 0; i < n; i++) model('a').send(0, dataFrame({ ipId: i & 0xffff }));
  engine.runUntil(1e12);
  assert.equal(model('b').received.length, n - 40);
  assert.ok(model('b').received.every((r) => (r.frame.ipId & 0xff) !== 0xff));
  assert.equal(engine.context(0).stats.droppedByReason().loss, 40);
});

test('Bernoulli loss drops its fraction within 3σ, and each loss is counted at the sender', () => {
  const p = 1 / 256;
  const n = 50_000;
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b', aToB: { loss: p } }], { seed: 11 });
  for (let i = 0; i < n; i++) model('a').send(0, dataFrame());
  engine.runUntil(1e13);
  const lost = engine.context(0).stats.droppedByReason().loss;
  assert.ok(Math.abs(lost - n * p) < 3 * Math.sqrt(n * p * (1 - p)), `lost ${lost}`);
  assert.equal(model('b').received.length + lost, n);
});

test('corruption is found at the receiver (bad FCS): dropped there as corrupt, never delivered', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b', aToB: { corrupt: 0.5 } }], { seed: 5 });
  for (let i = 0; i < 1000; i++) model('a').send(0, dataFrame());
  engine.runUntil(1e12);
  const corrupt = engine.context(1).stats.droppedByReason().corrupt;
  assert.ok(corrupt > 400 && corrupt < 600);
  assert.equal(engine.context(0).stats.droppedByReason().corrupt, 0);
  assert.equal(model('b').received.length + corrupt, 1000);
});

test('a down direction drops what it would send as link_down, at the sender', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b', aToB: { down: true } }]);
  for (let i = 0; i < 5; i++) model('a').send(0, dataFrame());
  model('b').send(0, dataFrame());
  engine.runUntil(1e9);
  assert.equal(engine.context(0).stats.droppedByReason().link_down, 5);
  assert.equal(model('b').received.length, 0);
  assert.equal(model('a').received.length, 1);
});

test('a frame larger than the link MTU is a model bug, not a drop', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  assert.throws(() => model('a').send(0, dataFrame({ payloadBytes: 1025 })), /exceeds the link MTU/);
  engine.runUntil(1);
});

test('hpcc-ns3 wire model: payload + 48 B, no gap, serialization truncated to whole ns', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }], {
    wire: { accounting: 'hpcc-ns3', truncateToNs: true, pauseUntilResume: true },
  });
  model('a').send(0, dataFrame({ payloadBytes: 1000 }));
  engine.runUntil(1e9);
  // 1048 B at 40 Gb/s = 209.6 ns, truncated to 209 ns (PHYSICS §7).
  assert.equal(model('b').received[0]!.timePs, 209_000 + LATENCY_PS);
});
