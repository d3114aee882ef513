/**
 * The switch-side faults of issue 24 in the switch model, on an engine with scripted hosts and no
 * sockets: a stuck egress keeps its frames queued (and counted) and pauses upstream, a slow egress
 * spaces its frames at the slow rate, and a switch-originated storm pauses the neighbour whatever
 * the buffer says until it ends. h1 —— sw —— h2: sw port 0 faces h1, port 1 faces h2.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PS_PER_US, serializationPs, type Engine } from '@rocelab/sim';
import { dataFrame } from '@rocelab/sim/testing';
import { PFC_MAX_QUANTA, serializedBytes } from '@rocelab/wire';
import { EgressFaults } from './egress-faults.js';
import type { SwitchFault } from './switch.js';
import { H2_IP, switchPair } from './testing.js';

const US = PS_PER_US;
const SW = 2;
/** A WRITE MIDDLE frame of 1024 B: 1106 B on the wire, 221,200 ps at 40 Gb/s, 884,800 ps at 10 Gb/s. */
const SER_40G = 221_200;
const SER_10G = 884_800;
const LATENCY = 1_000_000;
/** A 1 MiB buffer, so a few hundred frames cross XOFF. */
const SMALL_BUFFER = { bufferBytes: 1 << 20 };

const fault = (engine: Engine, atPs: number, seq: number, f: SwitchFault) => engine.scheduleFault(atPs, seq, SW, 1, f);

/** sent = delivered + dropped + held, over the three nodes. */
function audit(engine: Engine) {
  let [sent, delivered, dropped, held] = [0, 0, 0, 0];
  for (const i of engine.hostedIndices) {
    const s = engine.context(i).stats;
    sent += s.sent;
    delivered += s.delivered;
    dropped += s.droppedTotal();
    held += engine.heldFrames(i);
  }
  assert.equal(sent, delivered + dropped + held, `sent ${sent} = delivered ${delivered} + dropped ${dropped} + held ${held}`);
  return { sent, delivered, dropped, held };
}

test('egressStuck: the port sends nothing while stuck, its frames stay queued and counted, the ingress pauses h1, and everything leaves in order after', () => {
  const { engine, sw, h1, h2 } = switchPair({ settings: SMALL_BUFFER });
  fault(engine, 0, 0, { kind: 'egressStuck', port: 1, priority: null, on: true });
  fault(engine, 500 * US, 1, { kind: 'egressStuck', port: 1, priority: null, on: false });
  const n = 2000;
  for (let k = 0; k < n; k++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: k }));
  engine.runUntil(500 * US);
  assert.equal(h2.received.length, 0, 'nothing left the stuck port');
  assert.equal(engine.context(SW).stats.ports[1]!.txFrames, 0);
  assert.ok(sw.queueBytes(1, 3) > 0 && sw.egress.stuckNow(1, 3));
  assert.equal(sw.egress.stuckPs(1, 3, 500 * US), 500 * US);
  assert.ok(h1.pfcReceived.length > 0 && h1.pfcReceived[0]!.frame.pfcQuanta[3] === PFC_MAX_QUANTA, 'the ingress crossed XOFF and paused h1');
  assert.ok(engine.context(0).transmitters[0]!.pausedMask(500 * US) & (1 << 3), 'h1 is paused');
  assert.equal(engine.context(SW).stats.droppedTotal(), 0, 'lossless: nothing dropped');
  const mid = audit(engine);
  assert.ok(mid.held > 0);
  assert.equal(mid.delivered, h1.pfcReceived.length, 'only the pauses were delivered');
  engine.runUntil(5_000 * US);
  assert.deepEqual(
    h2.received.map((r) => r.frame.psn),
    Array.from({ length: n }, (_, k) => k),
    'every frame, in order',
  );
  assert.equal(h2.received[0]!.timePs, 500 * US + SER_40G + LATENCY, 'the first leaves the instant the fault ends');
  assert.equal(sw.egress.stuckPs(1, 3, 5_000 * US), 500 * US, 'stuck 500 µs in all');
  assert.ok(h1.pfcReceived.some((r) => r.frame.pfcQuanta[3] === 0), 'the ingress resumed h1');
  assert.deepEqual(audit(engine), { sent: n + h1.pfcReceived.length, delivered: n + h1.pfcReceived.length, dropped: 0, held: 0 });
});

test('egressStuck on one priority: that queue holds, another priority on the same port goes on', () => {
  const { engine, sw, h1, h2 } = switchPair();
  fault(engine, 0, 0, { kind: 'egressStuck', port: 1, priority: 3, on: true });
  for (let k = 0; k < 5; k++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: k })); // DSCP 26: priority 3
  for (let k = 0; k < 5; k++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: 100 + k, dscp: 0 })); // priority 0
  engine.runUntil(100 * US);
  assert.deepEqual(
    h2.received.map((r) => r.frame.psn),
    [100, 101, 102, 103, 104],
  );
  assert.equal(sw.queueBytes(1, 3), 5 * 1086);
  assert.equal(sw.egress.stuckNow(1, 0), false);
  audit(engine);
});

test('egressSlow at 10 Gb/s on a 40 Gb/s port: one frame starts every 884.8 ns (1106 B at 10 Gb/s) until the fault ends', () => {
  const { engine, h1, h2 } = switchPair();
  fault(engine, 0, 0, { kind: 'egressSlow', port: 1, priority: null, bps: 10e9 });
  // Frame k reaches sw at 1,221,200 + k × 221,200; the first starts at once, each next one 884,800 later.
  const endPs = 1_221_200 + 5 * SER_10G + 1;
  fault(engine, endPs, 1, { kind: 'egressSlow', port: 1, priority: null, bps: null });
  for (let k = 0; k < 12; k++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: k }));
  engine.runUntil(50 * US);
  const starts = h2.received.map((r) => r.timePs - SER_40G - LATENCY);
  assert.deepEqual(
    starts.slice(0, 6),
    Array.from({ length: 6 }, (_, k) => 1_221_200 + k * SER_10G),
  );
  // After the end the backlog leaves back to back at 40 Gb/s.
  assert.deepEqual(
    starts.slice(6).map((t, i) => t - starts[5 + i]!),
    new Array(6).fill(SER_40G),
  );
  assert.equal(h2.received.length, 12);
  audit(engine);
});

test('egressSlow on one priority leaves the others at line rate; the gap uses the frame on the wire', () => {
  const faults = new EgressFaults(2, 'rocelab');
  faults.setSlow(0, 1, 3, 10e9);
  const frame = dataFrame();
  faults.sent(1, 3, 1000, frame);
  assert.equal(faults.heldMask(1, 1000), 1 << 3);
  assert.equal(faults.heldMask(0, 1000), 0, 'another port is untouched');
  assert.equal(faults.nextStartPs(1, 1000, 1 << 3), 1000 + serializationPs(serializedBytes(frame), 10e9));
  assert.equal(faults.nextStartPs(1, 1000, 1 << 0), null, 'nothing slow is waiting: no wake-up');
  faults.sent(1, 0, 2000, frame);
  assert.equal(faults.heldMask(1, 1000 + SER_10G), 0, 'the gap ended; priority 0 did not extend it');
  assert.deepEqual([faults.slowRateBps(1, 3), faults.slowRateBps(1, 0)], [10e9, 0]);
  faults.setStuck(0, 1, 3, true);
  assert.equal(faults.nextStartPs(1, 1000, 1 << 3), null, 'a stuck queue waits for its fault, not for a gap');
  assert.throws(() => faults.setSlow(0, 1, null, 0), /above 0/);
});

test('pauseStorm: sw pauses h1 from 100 µs whatever its buffer says, refreshed before each pause runs out, and resumes it when the storm ends', () => {
  const { engine, sw, h1, h2 } = switchPair();
  fault(engine, 100 * US, 0, { kind: 'pauseStorm', port: 0, priority: null, on: true });
  fault(engine, 3_000 * US, 1, { kind: 'pauseStorm', port: 0, priority: null, on: false });
  h1.at(200 * US, () => {
    for (let k = 0; k < 10; k++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: k }));
  });
  engine.runUntil(3_000 * US);
  assert.equal(h2.received.length, 0, "h1's frames wait: it is paused on priority 3 (the vendor profile's lossless one)");
  assert.equal(sw.queueBytes(1, 3), 0, 'the switch buffer is empty: the pauses are the storm, not congestion');
  const pauses = h1.pfcReceived.map((r) => r.timePs);
  assert.ok(pauses.length >= 6, `${pauses.length} pauses in 2.9 ms`);
  assert.ok(
    h1.pfcReceived.every((r) => r.frame.pfcEnable === 1 << 3 && r.frame.pfcQuanta[3] === PFC_MAX_QUANTA),
    'every pause is for priority 3, with the largest quanta',
  );
  const gaps = pauses.slice(1).map((t, i) => t - pauses[i]!);
  assert.equal(new Set(gaps).size, 1, `refreshed at a fixed period (${gaps.join(', ')} ps)`);
  assert.ok(gaps[0]! < serializationPs((PFC_MAX_QUANTA * 512) / 8, 40e9), 'before the pause runs out');
  assert.equal(sw.pfc.stormPs(0, 3, 3_000 * US), 2_900 * US);
  assert.ok(sw.pfc.pausingPs(0, 3, 3_000 * US) >= 2_900 * US, 'counted as pausing time too');
  engine.runUntil(3_100 * US);
  assert.equal(h1.pfcReceived.at(-1)!.frame.pfcQuanta[3], 0, 'a resume when the storm ended');
  assert.equal(h2.received.length, 10, 'and the frames went through');
  assert.equal(sw.pfc.stormingNow(0, 3), false);
  audit(engine);
});

test('pauseStorm on another priority pauses only that one; a storm ending above XOFF keeps the buffer-driven pause', () => {
  const { engine, sw, h1 } = switchPair();
  fault(engine, 0, 0, { kind: 'pauseStorm', port: 0, priority: 5, on: true });
  engine.runUntil(10 * US);
  assert.equal(h1.pfcReceived[0]!.frame.pfcEnable, 1 << 5);
  // Congest the ingress of port 0 (h1's frames to a stuck port 1), then storm and end the storm.
  const { engine: e2, sw: sw2, h1: a } = switchPair({ settings: SMALL_BUFFER });
  fault(e2, 0, 0, { kind: 'egressStuck', port: 1, priority: null, on: true });
  fault(e2, 300 * US, 1, { kind: 'pauseStorm', port: 0, priority: 3, on: true });
  fault(e2, 400 * US, 2, { kind: 'pauseStorm', port: 0, priority: 3, on: false });
  for (let k = 0; k < 2000; k++) a.send(0, dataFrame({ dstIp: H2_IP, psn: k }));
  e2.runUntil(500 * US);
  assert.ok(sw2.pfc.pausing(0, 3), 'still pausing h1: its buffer is above XOFF');
  assert.ok(a.pfcReceived.every((r) => r.frame.pfcQuanta[3] !== 0), 'no resume was sent');
  assert.ok(sw.pfc.stormingNow(0, 5));
  audit(e2);
});
