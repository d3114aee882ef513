import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine, dropReasonIndex, serializationPs } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes, type TestLink } from '@rocelab/sim/testing';
import { frameBytes, serializedBytes, type Frame } from '@rocelab/wire';
import { Switch } from './switch.js';
import { testSwitchConfig } from './testing.js';
import type { SwitchSettings } from './profiles.js';

/** `10.0.1.11` → 0x0a00010b. */
const ip = (text: string): number => text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);

const IP = { h1: ip('10.0.1.11'), h2: ip('10.0.1.12'), h3: ip('10.0.1.13') };
const MAC = { h1: 0x02_00_00_00_00_11, h2: 0x02_00_00_00_00_12, h3: 0x02_00_00_00_00_13, sw: 0x02_00_00_00_ff_01 };
type HostName = 'h1' | 'h2' | 'h3';

// Every number below follows from these (DESIGN §5, rocelab accounting, 40 Gb/s = 200 ps per byte):
//   a WRITE MIDDLE frame with 1024 B payload = 1024 + 62 = 1086 B; + 20 B preamble/gap = 1106 B
//   on the wire; 1106 B × 8 bit / 40e9 bit/s = 221.2 ns = 221,200 ps.
const FRAME_BYTES = 1086;
const SER_40G = 221_200;
const SER_10G = 884_800; // 1106 B × 8 / 10e9 = 884.8 ns
const LATENCY = 1_000_000; // 1 µs

interface Pod {
  engine: Engine;
  sw: Switch;
  swIndex: number;
  host: (name: HostName) => ScriptedNode;
  index: (name: string) => number;
}

/**
 * Hosts h1..h`n` each on one link to `sw`. testNodes numbers nodes by sorted name
 * (h1=0, h2=1, h3=2, sw=n) and a node's ports by its links in order, so sw port i-1 faces hi.
 */
function pod(n: 2 | 3, options: { settings?: Partial<SwitchSettings>; links?: Partial<TestLink>[] } = {}): Pod {
  const names = (['h1', 'h2', 'h3'] as const).slice(0, n);
  const links: TestLink[] = names.map((h, i) => ({ a: h, b: 'sw', ...options.links?.[i] }));
  const nodes = testNodes(links);
  const index = (name: string) => nodes.findIndex((node) => node.name === name);
  const engine = new Engine({ seed: 1, nodes, hosted: nodes.map((node) => node.index), wire: DEFAULT_WIRE_MODEL });
  const swIndex = index('sw');
  // L3 routes only (no attached-host L2 tables): these tests are about forwarding and timing.
  const config = testSwitchConfig(engine.context(swIndex), {
    mac: MAC.sw,
    peerMacs: names.map((h) => MAC[h]),
    routes: names.map((h, port) => ({ ip: IP[h], ports: [port] })),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
  const sw = new Switch(engine.context(swIndex), config);
  engine.attach(swIndex, sw);
  const hosts = new Map<string, ScriptedNode>();
  for (const h of names) {
    const model = new ScriptedNode(engine.context(index(h)));
    engine.attach(index(h), model);
    hosts.set(h, model);
  }
  return { engine, sw, swIndex, host: (name) => hosts.get(name)!, index };
}

/** A WRITE MIDDLE data frame (1024 B payload) from `from` to `to`, addressed to the switch. */
const frameFrom = (from: HostName, to: HostName, fields: Partial<Frame> = {}): Frame =>
  dataFrame({ srcIp: IP[from], dstIp: IP[to], srcMac: MAC[from], dstMac: MAC.sw, ttl: 64, ...fields });

/** sent = delivered + dropped + held, over every node of the engine. */
function audit(p: Pod): { sent: number; delivered: number; dropped: number; held: number } {
  let sent = 0;
  let delivered = 0;
  let dropped = 0;
  let held = 0;
  for (const i of p.engine.hostedIndices) {
    const stats = p.engine.context(i).stats;
    sent += stats.sent;
    delivered += stats.delivered;
    dropped += stats.droppedTotal();
    held += p.engine.heldFrames(i);
  }
  return { sent, delivered, dropped, held };
}

test('the frame sizes these timings assume: WRITE MIDDLE 1024 B = 1086 B, 1106 B serialized, 221,200 ps at 40 Gb/s', () => {
  const frame = frameFrom('h1', 'h2');
  assert.equal(frameBytes(frame), FRAME_BYTES);
  assert.equal(serializedBytes(frame), 1106);
  assert.equal(serializationPs(1106, 40e9), SER_40G); // 8e12 / 40e9 = 200 ps per byte
  assert.equal(serializationPs(1106, 10e9), SER_10G); // 800 ps per byte
});

test('a frame to a known IP leaves on its routed port with TTL - 1, srcMac = switch MAC and dstMac = next hop MAC', () => {
  const p = pod(3);
  p.host('h1').send(0, frameFrom('h1', 'h3', { psn: 7 }));
  p.engine.runUntil(10_000_000);

  assert.equal(p.host('h2').received.length, 0, 'nothing leaks to the unrouted port');
  const [got] = p.host('h3').received;
  assert.ok(got !== undefined, 'h3 received the frame');
  assert.equal(got.frame.psn, 7);
  assert.equal(got.frame.ttl, 63); // 64 - 1 hop
  assert.equal(got.frame.srcMac, MAC.sw);
  assert.equal(got.frame.dstMac, MAC.h3);
  assert.equal(got.frame.srcIp, IP.h1, 'L3 addresses are untouched');
  assert.equal(got.frame.dstIp, IP.h3);
  const ports = p.engine.context(p.swIndex).stats.ports;
  assert.deepEqual(
    ports.map((s) => s.txFrames),
    [0, 0, 1],
    'the switch transmitted once, on port 2 (the one facing h3)',
  );
  assert.equal(ports[0]!.rxFrames, 1);
  assert.equal(p.engine.context(p.swIndex).stats.droppedTotal(), 0);
});

test('TTL 1 is dropped as `ttl` (counted on the ingress port); TTL 2 is forwarded and arrives with TTL 1', () => {
  const p = pod(2);
  p.host('h1').send(0, frameFrom('h1', 'h2', { ttl: 1, psn: 1 }));
  p.host('h1').send(0, frameFrom('h1', 'h2', { ttl: 2, psn: 2 }));
  p.engine.runUntil(10_000_000);

  const stats = p.engine.context(p.swIndex).stats;
  assert.equal(stats.droppedByReason().ttl, 1);
  assert.equal(stats.droppedTotal(), 1);
  assert.equal(stats.ports[0]!.dropped[dropReasonIndex('ttl')], 1, 'ingress port 0 (from h1)');
  assert.deepEqual(
    p.host('h2').received.map((r) => [r.frame.psn, r.frame.ttl]),
    [[2, 1]],
  );
});

test('a destination the switch has no route for is dropped as `no_route` on the ingress port', () => {
  const p = pod(2);
  p.host('h1').send(0, frameFrom('h1', 'h2', { dstIp: ip('10.9.9.9') }));
  p.engine.runUntil(10_000_000);

  const stats = p.engine.context(p.swIndex).stats;
  assert.equal(stats.droppedByReason().no_route, 1);
  assert.equal(stats.droppedTotal(), 1);
  assert.equal(stats.ports[0]!.dropped[dropReasonIndex('no_route')], 1);
  assert.equal(p.host('h2').received.length, 0);
  assert.equal(stats.ports[1]!.txFrames, 0);
});

test('a full shared buffer drops lossy frames as `buffer`: 40G in, 10G out, room for two waiting frames', () => {
  // A pool of exactly 2 × 1086 = 2172 B: no lossless priority (no headroom), no reserve, and
  // thresholds (α) so large that only the pool's size limits admission. h1 → sw at 40G, sw → h2 at 10G (884,800 ps per frame).
  // Arrival k at sw: a_k = 221,200 + 1,000,000 + k × 221,200 = 1,221,200 + k × 221,200.
  // The queue counts frames waiting (a frame leaves the buffer when it starts on the wire):
  //   k=0 1,221,200  wire idle → starts at once, done 2,106,000           used 0
  //   k=1 1,442,400  queued                                                used 1086
  //   k=2 1,663,600  queued (1086 + 1086 = 2172 ≤ 2172)                    used 2172
  //   k=3 1,884,800  DROP (2172 + 1086 > 2172)
  //   k=4 2,106,000  same instant as the wire freeing up: arrivals (class 4) run before
  //                  "transmitter free" (class 5, DESIGN §3), so the buffer is still full: DROP;
  //                  then k=1 starts (done 2,990,800)                      used 1086
  //   k=5 2,327,200  queued                                                used 2172
  //   k=6 2,548,400  DROP;  k=7 2,769,600  DROP
  //   k=8 2,990,800  again coincides with the wire freeing: DROP; then k=2 starts (done 3,875,600)
  //   k=9 3,212,000  queued                                                used 2172
  // Then k=5 starts at 3,875,600, k=9 at 4,760,400. Arrival at h2 = start + 884,800 + 1,000,000.
  const p = pod(2, {
    settings: { bufferBytes: 2 * FRAME_BYTES, reserveBytes: 0, losslessPriorities: [], alpha: 1e9, egressLossyAlpha: 1e9 },
    links: [{}, { rateBps: 10e9 }],
  });
  for (let k = 0; k < 10; k++) p.host('h1').send(0, frameFrom('h1', 'h2', { psn: k }));

  p.engine.runUntil(2_000_000);
  // Before 2,000,000: arrivals k=0..3 at sw (k=3 dropped); k=0 on the wire to h2; k=1, k=2 queued.
  assert.equal(p.sw.queueBytes(1, 3), 2 * FRAME_BYTES); // DSCP 26 → queue 3
  assert.deepEqual(audit(p), { sent: 10, delivered: 0, dropped: 1, held: 9 });

  p.engine.runUntil(20_000_000);
  const stats = p.engine.context(p.swIndex).stats;
  assert.equal(stats.droppedByReason().buffer, 5);
  assert.equal(stats.ports[0]!.dropped[dropReasonIndex('buffer')], 5, 'counted on the ingress port, where admission happens');
  const startsAtSw = [1_221_200, 2_106_000, 2_990_800, 3_875_600, 4_760_400];
  assert.deepEqual(
    p.host('h2').received.map((r) => [r.frame.psn, r.timePs]),
    [0, 1, 2, 5, 9].map((psn, i) => [psn, startsAtSw[i]! + SER_10G + LATENCY]),
  );
  assert.equal(p.sw.queueBytes(1, 3), 0, 'the buffer drains completely');
  assert.equal(p.sw.mmu.heldBytes(), 0, 'and the MMU agrees');
  assert.deepEqual(audit(p), { sent: 10, delivered: 5, dropped: 5, held: 0 });
});

test('store-and-forward timing: first arrival at 2·(221,200 + 1,000,000) ps, then one every 221,200 ps', () => {
  // Host → switch: 221,200 serialization + 1,000,000 latency = 1,221,200; the switch starts the
  // frame once it has all of it, so switch → host adds the same again: 2,442,400.
  // h1 sends back to back (frame k starts at k × 221,200) and the switch's output is free exactly
  // when each next frame has arrived, so arrivals keep the input spacing: 2,442,400 + k × 221,200.
  const p = pod(2);
  const n = 8;
  for (let k = 0; k < n; k++) p.host('h1').send(0, frameFrom('h1', 'h2', { psn: k }));
  p.engine.runUntil(20_000_000);

  const first = 2 * (SER_40G + LATENCY);
  assert.equal(first, 2_442_400);
  assert.deepEqual(
    p.host('h2').received.map((r) => r.timePs),
    Array.from({ length: n }, (_, k) => first + k * SER_40G),
  );
  assert.deepEqual(
    p.host('h2').received.map((r) => r.frame.psn),
    Array.from({ length: n }, (_, k) => k),
    'one FIFO: order is kept',
  );
  const swPort = p.engine.context(p.swIndex).stats.ports[1]!;
  assert.equal(swPort.txFrames, n);
  assert.equal(swPort.txBytes, n * FRAME_BYTES, 'byte counters exclude preamble and gap');
});

test('conservation mid-run: sent = delivered + dropped + held, counting frames not yet started, on the wire and dropped', () => {
  // Ten frames h1 → h2 at 40G everywhere, plus an eleventh to an unknown IP (dropped as no_route).
  // h1 starts frame k at k × 221,200; sw receives it at 1,221,200 + k × 221,200 and starts it at
  // once (its port is free then); h2 receives it at 2,442,400 + k × 221,200.
  const p = pod(2);
  for (let k = 0; k < 10; k++) p.host('h1').send(0, frameFrom('h1', 'h2', { psn: k }));
  p.host('h1').send(0, frameFrom('h1', 'h2', { psn: 10, dstIp: ip('10.9.9.9') }));

  // At 1,500,000 (events strictly before it have run):
  //   h1 started k ≤ 6 (6 × 221,200 = 1,327,200; k=7 would start at 1,548,400): 7..10 wait in h1 → 4
  //   sw received k ≤ 1 (k=1 at 1,442,400): 2..6 are travelling to sw → 5
  //   sw started 0 and 1: both travelling to h2 (arrive 2,442,400 and 2,663,600) → 2
  //   sent 11 = delivered 0 + dropped 0 + held 11.
  p.engine.runUntil(1_500_000);
  assert.deepEqual(audit(p), { sent: 11, delivered: 0, dropped: 0, held: 11 });
  assert.deepEqual(
    ['h1', 'sw', 'h2'].map((name) => p.engine.heldFrames(p.index(name))),
    [4, 5, 2],
  );

  // At 2,500,000: all 11 started (the last at 10 × 221,200 = 2,212,000); sw received k ≤ 5
  // (k=5 at 2,327,200), so 6..10 travel to sw → 5; h2 received k=0 only, 1..5 travel to h2 → 5.
  p.engine.runUntil(2_500_000);
  assert.deepEqual(audit(p), { sent: 11, delivered: 1, dropped: 0, held: 10 });
  assert.deepEqual(
    ['h1', 'sw', 'h2'].map((name) => p.engine.heldFrames(p.index(name))),
    [0, 5, 5],
  );

  // k=10 reaches sw at 1,221,200 + 10 × 221,200 = 3,433,200 and is dropped there; by then h2
  // has k ≤ 4 (2,442,400 + 4 × 221,200 = 3,327,200): delivered 5, held 11 - 5 - 1 = 5.
  p.engine.runUntil(3_433_201);
  assert.deepEqual(audit(p), { sent: 11, delivered: 5, dropped: 1, held: 5 });
  assert.equal(p.engine.context(p.swIndex).stats.droppedByReason().no_route, 1);

  p.engine.runUntil(20_000_000);
  assert.deepEqual(audit(p), { sent: 11, delivered: 10, dropped: 1, held: 0 });
});
