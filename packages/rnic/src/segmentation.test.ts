import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextPsn, PSN_MASK } from './psn.js';
import { packetCount, payloadOf, writeOpcode } from './segmentation.js';

const MTU = 1024;
const WRITE_FIRST = 0x06;
const WRITE_MIDDLE = 0x07;
const WRITE_LAST = 0x08;
const WRITE_ONLY = 0x0a;

/** Every packet of a WRITE of `size` bytes as [opcode, payload]. */
function segments(size: number, mtu = MTU): Array<[number, number]> {
  const count = packetCount(size, mtu);
  return Array.from({ length: count }, (_, i) => [writeOpcode(i, count), payloadOf(i, size, mtu)]);
}

test('a zero-byte WRITE is one empty WRITE ONLY packet', () => {
  assert.equal(packetCount(0, MTU), 1);
  assert.deepEqual(segments(0), [[WRITE_ONLY, 0]]);
});

test('a 1-byte WRITE is one WRITE ONLY packet carrying 1 byte', () => {
  assert.equal(packetCount(1, MTU), 1);
  assert.deepEqual(segments(1), [[WRITE_ONLY, 1]]);
});

test('a WRITE of exactly one MTU (1024 B) is one full WRITE ONLY packet', () => {
  assert.equal(packetCount(MTU, MTU), 1);
  assert.deepEqual(segments(MTU), [[WRITE_ONLY, 1024]]);
});

test('MTU + 1 bytes (1025) is FIRST with 1024 B then LAST with 1 B', () => {
  assert.equal(packetCount(MTU + 1, MTU), 2); // ceil(1025 / 1024) = 2
  assert.deepEqual(segments(MTU + 1), [
    [WRITE_FIRST, 1024],
    [WRITE_LAST, 1],
  ]);
});

test('3 × MTU (3072 B) is FIRST, MIDDLE, LAST with a full 1024 B each', () => {
  assert.equal(packetCount(3 * MTU, MTU), 3);
  assert.deepEqual(segments(3 * MTU), [
    [WRITE_FIRST, 1024],
    [WRITE_MIDDLE, 1024],
    [WRITE_LAST, 1024],
  ]);
});

test('longer messages: every packet between the first and the last is MIDDLE, payloads add up to the size', () => {
  // 10,000 B at 1024: ceil(10000 / 1024) = 10 packets, 9 × 1024 = 9216 full, last 10000 - 9216 = 784.
  const all = segments(10_000);
  assert.equal(all.length, 10);
  assert.deepEqual(all[0], [WRITE_FIRST, 1024]);
  for (let i = 1; i < 9; i++) assert.deepEqual(all[i], [WRITE_MIDDLE, 1024]);
  assert.deepEqual(all[9], [WRITE_LAST, 784]);
  assert.equal(
    all.reduce((sum, [, payload]) => sum + payload, 0),
    10_000,
  );
  // Another MTU: 4096 B at 1500 → ceil(4096 / 1500) = 3: 1500, 1500, 1096.
  assert.deepEqual(segments(4096, 1500), [
    [WRITE_FIRST, 1500],
    [WRITE_MIDDLE, 1500],
    [WRITE_LAST, 1096],
  ]);
});

test('PSNs are 24-bit: nextPsn(0xFFFFFF) wraps to 0, and counting on continues from there', () => {
  assert.equal(PSN_MASK, 0xffffff);
  assert.equal(nextPsn(0), 1);
  assert.equal(nextPsn(0xfffffe), 0xffffff);
  assert.equal(nextPsn(0xffffff), 0);
  assert.equal(nextPsn(nextPsn(0xffffff)), 1);
});
