// Frame sizes of DESIGN §5, worked out by hand from the header sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameBytes, minSerializedBytes, serializedBytes } from './bytes.js';
import { FrameKind, Opcode, newFrame, pfcFrame } from './frame.js';

const data = (opcode: number, payloadBytes: number) => newFrame(FrameKind.data, { opcode, payloadBytes });

test('first packet of a WRITE: 1024 payload + 62 headers + 16 RETH', () => {
  const frame = data(Opcode.writeFirst, 1024);
  assert.equal(frameBytes(frame), 1024 + 62 + 16);
  assert.equal(frameBytes(frame), 1102);
  assert.equal(serializedBytes(frame), 1122);
  assert.equal(frameBytes(data(Opcode.writeOnly, 1024)), 1102);
});

test('middle and last packets carry no RETH: 1024 + 62', () => {
  for (const opcode of [Opcode.writeMiddle, Opcode.writeLast, Opcode.sendMiddle, Opcode.sendFirst]) {
    assert.equal(frameBytes(data(opcode, 1024)), 1086);
    assert.equal(serializedBytes(data(opcode, 1024)), 1106);
  }
});

test('READ, atomics and immediates: each opcode adds its transport headers (IBA §9.2)', () => {
  const sizes: Array<[string, number, number, number]> = [
    ['READ request: RETH', Opcode.readRequest, 0, 62 + 16],
    ['READ response FIRST: AETH', Opcode.readResponseFirst, 1024, 1024 + 62 + 4],
    ['READ response MIDDLE: nothing', Opcode.readResponseMiddle, 1024, 1024 + 62],
    ['READ response LAST: AETH, padded payload', Opcode.readResponseLast, 101, 104 + 62 + 4],
    ['READ response ONLY: AETH', Opcode.readResponseOnly, 0, 62 + 4],
    ['WRITE ONLY with immediate: RETH and ImmDt', Opcode.writeOnlyImmediate, 10, 12 + 62 + 16 + 4],
    ['WRITE LAST with immediate: ImmDt', Opcode.writeLastImmediate, 10, 12 + 62 + 4],
    ['SEND ONLY with immediate: ImmDt', Opcode.sendOnlyImmediate, 0, 62 + 4],
    ['FETCH_AND_ADD: AtomicETH', Opcode.fetchAdd, 0, 62 + 28],
    ['COMPARE_AND_SWAP: AtomicETH', Opcode.compareSwap, 0, 62 + 28],
  ];
  for (const [what, opcode, payload, bytes] of sizes) assert.equal(frameBytes(data(opcode, payload)), Math.max(64, bytes), what);
  assert.equal(frameBytes(newFrame(FrameKind.ack, { opcode: Opcode.atomicAcknowledge })), 62 + 4 + 8, 'Atomic ACK: AETH and AtomicAckETH');
});

test('ACK is 62 + 4 AETH, CNP 62 + 16, PFC 64', () => {
  const ack = newFrame(FrameKind.ack, { opcode: Opcode.acknowledge });
  assert.deepEqual([frameBytes(ack), serializedBytes(ack)], [66, 86]);
  const cnp = newFrame(FrameKind.cnp, { opcode: Opcode.cnp, becn: true });
  assert.deepEqual([frameBytes(cnp), serializedBytes(cnp)], [78, 98]);
  const pfc = pfcFrame(0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0]);
  assert.deepEqual([frameBytes(pfc), serializedBytes(pfc)], [64, 84]);
});

test('a data packet without payload is padded to the 64-byte Ethernet minimum', () => {
  assert.equal(frameBytes(data(Opcode.sendOnly, 0)), 64);
  assert.equal(serializedBytes(data(Opcode.sendOnly, 0)), 84);
  assert.equal(frameBytes(data(Opcode.writeOnly, 0)), 78); // 62 + 16 RETH is already above 64
  assert.equal(frameBytes(data(Opcode.sendOnly, 1)), 66); // the 1 B payload is padded to 4
  assert.equal(frameBytes(data(Opcode.sendOnly, 3)), 66);
});

test('the payload travels padded to a multiple of 4 bytes (BTH PadCnt, IBTA §9.2)', () => {
  assert.deepEqual([1021, 1022, 1023, 1024, 1025].map((n) => frameBytes(data(Opcode.writeLast, n))), [1086, 1086, 1086, 1086, 1090]);
  assert.equal(frameBytes(data(Opcode.writeLast, 1021), 'hpcc-ns3'), 1021 + 48, 'hpcc-ns3 counts the payload as it is');
});

test('hpcc-ns3 counts payload + 48 and no preamble or gap', () => {
  assert.equal(frameBytes(data(Opcode.writeFirst, 1024), 'hpcc-ns3'), 1072);
  assert.equal(serializedBytes(data(Opcode.writeFirst, 1024), 'hpcc-ns3'), 1072);
  assert.equal(serializedBytes(data(Opcode.writeMiddle, 1000), 'hpcc-ns3'), 1048);
  assert.equal(serializedBytes(newFrame(FrameKind.ack), 'hpcc-ns3'), 48);
  assert.equal(serializedBytes(pfcFrame(1, [1, 0, 0, 0, 0, 0, 0, 0]), 'hpcc-ns3'), 64);
});

test('the smallest frame on the wire: 64 + 20 = 84 bytes (hpcc-ns3: 48)', () => {
  assert.equal(minSerializedBytes(), 84);
  assert.equal(minSerializedBytes('rocelab'), 84);
  assert.equal(minSerializedBytes('hpcc-ns3'), 48);
});
