import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL } from '@rocelab/sim';
import { idealFctPs, type IdealFctInput } from './ideal-fct.js';

const G40 = { rateBps: 40e9, latencyPs: 1_000_000 };

const base: IdealFctInput = {
  sizeBytes: 10_000,
  opcode: 'write',
  mtu: 1024,
  wire: DEFAULT_WIRE_MODEL,
  forward: [G40],
  reverse: [G40],
  receiverDrainBps: 80e9,
  senderDrainBps: 80e9,
  ackEvery: 4,
  rateCapBps: null,
};

test('two NICs back to back: the hand-computed 4,275,600 ps of the NIC test', () => {
  // 10 packets (1102, 8 × 1086, 846 B + 20 B each at 200 ps/B): the last leaves at 2,167,200 ps,
  // arrives 1 µs later, drains at 80 Gb/s (846 B × 100 ps) at 3,251,800 ps; its ACK (86 B on the
  // wire: 17,200 ps, 1 µs) drains 66 B × 100 ps at the sender: 4,275,600 ps (nic.test.ts).
  assert.equal(idealFctPs(base), 4_275_600);
});

test('a store-and-forward switch adds the first packet time and one latency each way', () => {
  // Through one switch at the same rate the second hop runs one first packet (1122 B × 200 ps)
  // behind the first: the middle packets queue behind the longer first one, and the short last
  // packet behind the one before it. The ACK pays its own 86 B × 200 ps again.
  const viaSwitch = idealFctPs({ ...base, forward: [G40, G40], reverse: [G40, G40] });
  assert.equal(viaSwitch, 4_275_600 + 1122 * 200 + 1_000_000 + 86 * 200 + 1_000_000);
});

test('a rate cap spaces the packets by their wire time at the cap', () => {
  // At 10 Gb/s each packet's start is 4× its 40G wire time after the previous one's.
  const capped = idealFctPs({ ...base, rateCapBps: 10e9 });
  const starts = (1122 + 8 * 1106) * 800; // the last packet starts after 9 gaps at 800 ps/B
  assert.equal(capped, starts + 866 * 200 + 1_000_000 + 846 * 100 + 86 * 200 + 1_000_000 + 66 * 100);
});

test('a READ: its request crosses and drains, then its responses come back and the last one drained completes it', () => {
  // The request is 78 B (62 + the 16 B RETH): 98 B on the wire at 200 ps/B, 1 µs, 78 B drained at
  // 100 ps/B: executed at 1,027,400 ps. The responses, FIRST 1090 B (with its 4 B AETH), 8 MIDDLE
  // 1086 B and LAST 850 B (784 B + 62 + AETH), leave back to back: (1110 + 8 × 1106 + 870) × 200 ps
  // later the last has left, 1 µs later it arrives and 85,000 ps later it is drained.
  assert.equal(idealFctPs({ ...base, opcode: 'read' }), 1_027_400 + (1110 + 8 * 1106 + 870) * 200 + 1_000_000 + 850 * 100);
});

test('a TCP message: the write latency, 70 B of headers per segment, a processed and ACKed segment, the ACK processed at the sender', () => {
  // 1000 B: one segment of 1070 B (+ 20 B on the wire, 218,000 ps) starts at the write, 6.25 µs;
  // it arrives 1 µs later and drains 1070 B × 100 ps: 7,575,000 ps. Processed 3.75 µs later, its
  // ACK (70 B + 20: 18,000 ps, 1 µs) drains 70 B × 100 ps at 12,350,000 ps and is processed
  // 3.75 µs later: 16,100,000 ps.
  const tcp = { writeLatencyPs: 6_250_000, receiveLatencyPs: 3_750_000 };
  assert.equal(idealFctPs({ ...base, sizeBytes: 1000, tcp }), 16_100_000);
  assert.equal(idealFctPs({ ...base, sizeBytes: 0, tcp }), 6_250_000, 'an empty write completes when it reaches the stream');
});
