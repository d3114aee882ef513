import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine, Rng, dropReasonIndex } from '@rocelab/sim';
import { ScriptedNode, dataFrame, testNodes } from '@rocelab/sim/testing';
import { carriesReth, frameBytes } from '@rocelab/wire';
import type { FlowStart, FlowWorkload } from '@rocelab/workload';
import { Host, type HostConfig, type HostPeer } from './host.js';

// Numbers used throughout (DESIGN §5, rocelab accounting, links of testNodes: 40 Gb/s, 1 µs, MTU 1024):
//   40 Gb/s = 200 ps per byte on the wire; 10 Gb/s = 800 ps per byte.
//   WRITE FIRST/ONLY, 1024 B payload: 1024 + 62 + 16 (RETH) = 1102 B; + 20 preamble/gap = 1122 B → 224,400 ps at 40G
//   WRITE MIDDLE/LAST, 1024 B:        1024 + 62             = 1086 B; + 20              = 1106 B → 221,200 ps at 40G
const LATENCY = 1_000_000;
const PS_PER_BYTE_40G = 200;
const PS_PER_BYTE_10G = 800;

const H1: HostPeer = { name: 'h1', ip: 0x0a00010b, mac: 0x02_00_00_00_00_11 }; // 10.0.1.11
const H2: HostPeer = { name: 'h2', ip: 0x0a00010c, mac: 0x02_00_00_00_00_12 }; // 10.0.1.12
const HOSTS = new Map([
  ['h1', H1],
  ['h2', H2],
]);

function flow(index: number, sizeBytes: number, fields: { start?: FlowStart; rateBps?: number | null } = {}): FlowWorkload {
  return { index, from: 'h1', to: 'h2', sizeBytes, start: fields.start ?? { kind: 'at', atPs: 0 }, rateBps: fields.rateBps ?? null, dscp: 26 };
}

/** The first-cut host's config; hosts on one direct link are each other's first hop. */
const hostConfig = (self: HostPeer, peer: HostPeer, flows: readonly FlowWorkload[]): HostConfig => ({
  ip: self.ip,
  mac: self.mac,
  gatewayMac: peer.mac,
  flows,
  hosts: HOSTS,
  accounting: 'rocelab',
});

/** h1 (a Host sending `flows`) ─ 40G, 1 µs ─ h2 (a ScriptedNode that records arrivals). testNodes: h1 = 0, h2 = 1. */
function sendingPod(flows: readonly FlowWorkload[], seed = 1): { engine: Engine; host: Host; sink: ScriptedNode } {
  const nodes = testNodes([{ a: 'h1', b: 'h2' }]);
  const engine = new Engine({ seed, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const host = new Host(engine.context(0), hostConfig(H1, H2, flows));
  const sink = new ScriptedNode(engine.context(1));
  engine.attach(0, host);
  engine.attach(1, sink);
  return { engine, host, sink };
}

interface SentFlow {
  startPs: number;
  packetsSent: number;
  bytesSent: number;
  lastSendPs: number;
}
const sentFlows = (host: Host): SentFlow[] => host.results().sent as SentFlow[];

test('a 3,172-byte flow goes out as ceil(3172 / 1024) = 4 WRITE packets, back to back at 40 Gb/s', () => {
  // Packet  opcode  payload  frame B              on the wire  starts at  arrives at (+ ser + 1 µs)
  //   0     FIRST   1024     1024+62+16 = 1102    1122 B       0          224,400 + 1,000,000 = 1,224,400
  //   1     MIDDLE  1024     1024+62    = 1086    1106 B       224,400    445,600 + 1,000,000 = 1,445,600
  //   2     MIDDLE  1024     1086                 1106 B       445,600    666,800 + 1,000,000 = 1,666,800
  //   3     LAST     100     100+62     =  162     182 B       666,800    703,200 + 1,000,000 = 1,703,200
  // (3172 = 3 × 1024 + 100.)
  const { engine, host, sink } = sendingPod([flow(0, 3172)]);
  engine.runUntil(10_000_000);

  const got = sink.received;
  assert.deepEqual(
    got.map((r) => r.timePs),
    [1_224_400, 1_445_600, 1_666_800, 1_703_200],
  );
  assert.deepEqual(
    got.map((r) => r.frame.opcode),
    [0x06, 0x07, 0x07, 0x08],
  );
  assert.deepEqual(
    got.map((r) => r.frame.payloadBytes),
    [1024, 1024, 1024, 100],
  );
  assert.deepEqual(
    got.map((r) => frameBytes(r.frame)),
    [1024 + 62 + 16, 1086, 1086, 162],
  );
  assert.deepEqual(
    got.map((r) => carriesReth(r.frame.opcode)),
    [true, false, false, false],
    'RETH on the first packet only',
  );
  assert.deepEqual(
    got.map((r) => r.frame.dmaLength),
    [3172, 0, 0, 0],
    'the RETH carries the whole length',
  );
  assert.deepEqual(
    got.map((r) => r.frame.psn),
    [0, 1, 2, 3],
  );
  assert.deepEqual(
    got.map((r) => r.frame.ackReq),
    [false, false, false, true],
  );
  for (const { frame } of got) {
    assert.equal(frame.srcIp, H1.ip);
    assert.equal(frame.dstIp, H2.ip);
    assert.equal(frame.srcMac, H1.mac);
    assert.equal(frame.dstMac, H2.mac, 'addressed to the first hop (here the peer itself)');
    assert.equal(frame.dscp, 26);
    assert.equal(frame.destQp, 1); // flow index 0 + 1
  }
  const port = engine.context(0).stats.ports[0]!;
  assert.equal(port.txFrames, 4);
  assert.equal(port.txBytes, 1102 + 1086 + 1086 + 162); // 3436
  assert.equal(engine.context(0).stats.sent, 4);
  assert.deepEqual(sentFlows(host), [{ flow: 0, to: 'h2', sizeBytes: 3172, startPs: 0, packetsSent: 4, bytesSent: 3172, lastSendPs: 666_800 }]);
});

test('a flow that fits one MTU is a single WRITE ONLY packet with the RETH (500 + 62 + 16 = 578 B)', () => {
  const { engine, sink } = sendingPod([flow(0, 500)]);
  engine.runUntil(10_000_000);
  assert.equal(sink.received.length, 1);
  const { frame, timePs } = sink.received[0]!;
  assert.equal(frame.opcode, 0x0a);
  assert.equal(frameBytes(frame), 578);
  assert.equal(frame.dmaLength, 500);
  assert.equal(timePs, (578 + 20) * PS_PER_BYTE_40G + LATENCY); // 119,600 + 1,000,000
});

test('a flow paced at 10 Gb/s waits after each packet for that packet\'s wire bytes at 10 Gb/s', () => {
  // 2148 = 2 × 1024 + 100 → FIRST (1122 B on the wire), MIDDLE (1106 B), LAST (100 + 62 + 20 = 182 B).
  // Pacing gap after a packet = its wire bytes × 800 ps:
  //   packet 0 starts at 0,        next allowed at 1122 × 800 = 897,600
  //   packet 1 starts at 897,600,  next allowed at 897,600 + 1106 × 800 = 897,600 + 884,800 = 1,782,400
  //   packet 2 starts at 1,782,400
  // Each still serializes at the link's 40 Gb/s: arrivals = start + bytes × 200 + 1,000,000:
  //   0 + 224,400 + 1e6 = 1,224,400;  897,600 + 221,200 + 1e6 = 2,118,800;  1,782,400 + 36,400 + 1e6 = 2,818,800
  const { engine, host, sink } = sendingPod([flow(0, 2148, { rateBps: 10e9 })]);
  engine.runUntil(10_000_000);

  const starts = [0, 1122 * PS_PER_BYTE_10G, 1122 * PS_PER_BYTE_10G + 1106 * PS_PER_BYTE_10G];
  assert.deepEqual(starts, [0, 897_600, 1_782_400]);
  assert.deepEqual(
    sink.received.map((r) => r.timePs),
    [1_224_400, 2_118_800, 2_818_800],
  );
  assert.equal(sentFlows(host)[0]!.lastSendPs, 1_782_400);
});

test('a uniform start is drawn from the node\'s seeded stream: same seed same start, other seed other start, inside [min, max]', () => {
  // Flow index 3, start uniform in [100 µs, 200 µs]; the host draws from its stream
  // `workload:3` (DESIGN §3: one stream per (pod seed, node name, purpose)).
  const minPs = 100_000_000;
  const maxPs = 200_000_000;
  const startOf = (seed: number) => {
    const { engine, host, sink } = sendingPod([flow(3, 1024, { start: { kind: 'uniform', minPs, maxPs } })], seed);
    engine.runUntil(300_000_000);
    const { startPs } = sentFlows(host)[0]!;
    // One WRITE ONLY of 1024 B: 1122 B × 200 ps = 224,400 ps, then 1 µs.
    assert.deepEqual(
      sink.received.map((r) => r.timePs),
      [startPs + 224_400 + LATENCY],
      'the packet leaves at the drawn start',
    );
    return startPs;
  };
  const a = startOf(1);
  assert.equal(startOf(1), a, 'same seed, same start');
  assert.equal(a, new Rng(1, 'h1', 'workload:3').uniformInt(minPs, maxPs), 'the draw is the first of (seed, h1, workload:3)');
  const b = startOf(2);
  assert.notEqual(b, a, 'another seed, another start');
  assert.equal(b, new Rng(2, 'h1', 'workload:3').uniformInt(minPs, maxPs));
  const starts = [a, b, ...[3, 4, 5, 6, 7, 8].map(startOf)];
  for (const s of starts) assert.ok(Number.isSafeInteger(s) && s >= minPs && s <= maxPs, `start ${s} inside [${minPs}, ${maxPs}]`);
  assert.ok(new Set(starts).size > 1);
});

test('a frame for another IP or another MAC is dropped as `misdelivered`; one for this host is delivered', () => {
  // h1 is a ScriptedNode, h2 a Host with no flows of its own.
  const nodes = testNodes([{ a: 'h1', b: 'h2' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const sender = new ScriptedNode(engine.context(0));
  const host = new Host(engine.context(1), hostConfig(H2, H1, []));
  engine.attach(0, sender);
  engine.attach(1, host);
  const to = { srcIp: H1.ip, srcMac: H1.mac, dstIp: H2.ip, dstMac: H2.mac, destQp: 5 };
  sender.send(0, dataFrame({ ...to, dstIp: 0x0a00010d, psn: 0 })); // right MAC, IP of someone else
  sender.send(0, dataFrame({ ...to, dstMac: 0x02_00_00_00_00_99, psn: 1 })); // right IP, MAC of someone else
  sender.send(0, dataFrame({ ...to, psn: 2 })); // for h2
  engine.runUntil(10_000_000);

  const stats = engine.context(1).stats;
  assert.equal(stats.droppedByReason().misdelivered, 2);
  assert.equal(stats.droppedTotal(), 2);
  assert.equal(stats.ports[0]!.dropped[dropReasonIndex('misdelivered')], 2);
  assert.equal(stats.delivered, 1);
  assert.equal(host.bytesReceived, 1024);
  // Received on QP 5 = flow 4; the frame arrived third: 3 × 221,200 + 1,000,000 = 1,663,600.
  assert.deepEqual(host.results().received, [{ flow: 4, packets: 1, bytes: 1024, firstPs: 1_663_600, lastPs: 1_663_600 }]);
});

test('IP IDs count up by one per packet across all of a host\'s flows, in send order', () => {
  // Flows 0 and 1 (3 packets each) both start at 0 and take turns (round robin);
  // flow 2 (2 packets) starts at 20 µs, after both are done, and continues the count.
  const { engine, sink } = sendingPod([flow(0, 3 * 1024), flow(1, 3 * 1024), flow(2, 2 * 1024, { start: { kind: 'at', atPs: 20_000_000 } })]);
  engine.runUntil(30_000_000);
  assert.deepEqual(
    sink.received.map((r) => [r.frame.destQp, r.frame.ipId]),
    [
      [1, 0],
      [2, 1],
      [1, 2],
      [2, 3],
      [1, 4],
      [2, 5],
      [3, 6],
      [3, 7],
    ],
  );
});

test('the IP ID is 16-bit: after 0xFFFF it wraps to 0', () => {
  // 65,538 packets: IDs 0 … 65535, then 0, 1. Wire time 65,538 × 221,200 ps ≈ 14.5 ms.
  const packets = 65_538;
  const { engine, sink } = sendingPod([flow(0, packets * 1024)]);
  engine.runUntil(20_000_000_000);
  const ids = sink.received.map((r) => r.frame.ipId);
  assert.equal(ids.length, packets);
  assert.deepEqual(ids.slice(-3), [0xffff, 0, 1]);
  for (let i = 0; i < packets; i++) if (ids[i] !== (i & 0xffff)) assert.fail(`packet ${i}: IP ID ${ids[i]}, expected ${i & 0xffff}`);
  // The 24-bit PSN does not wrap this early: it is just the packet number.
  assert.equal(sink.received.at(-1)!.frame.psn, packets - 1);
});
