import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serializationPs } from './time.js';

test('serialization is exact in ps at common rates (DESIGN §3 examples)', () => {
  assert.equal(serializationPs(1106, 40e9), 221_200); // 1,106-byte frame at 40 Gb/s takes 221.2 ns
  assert.equal(serializationPs(84, 40e9), 16_800); // smallest frame with preamble and gap
  assert.equal(serializationPs(64, 100e9), 5_120); // one pause quantum (512 bit times) at 100 Gb/s
  assert.equal(serializationPs(64, 40e9), 12_800); // … and at 40 Gb/s
  assert.equal(serializationPs(1, 400e9), 20);
});

test('serialization rounds up when the rate does not divide 8e12 ps·bit/s', () => {
  // 1 byte at 3 Gb/s is 2666.67 ps: the last bit is not out before 2667 ps.
  assert.equal(serializationPs(1, 3e9), 2_667);
  assert.equal(serializationPs(3, 3e9), 8_000);
});
