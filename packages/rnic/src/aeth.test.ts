import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ackSyndrome,
  localAckTimeoutPs,
  NAK_INVALID_RD_REQUEST,
  NAK_INVALID_REQUEST,
  NAK_PSN_SEQUENCE_ERROR,
  NAK_REMOTE_ACCESS_ERROR,
  NAK_REMOTE_OPERATIONAL_ERROR,
  rnrNakSyndrome,
  rnrTimerPs,
  syndromeKind,
  syndromeValue,
} from './aeth.js';

test('ACK syndromes carry the credit count in the low 5 bits; 0x1F (unlimited) by default', () => {
  assert.equal(ackSyndrome(), 0x1f);
  assert.equal(ackSyndrome(0), 0x00);
  assert.equal(ackSyndrome(5), 0x05);
});

test('RNR NAK syndromes are 0x20 | timer code', () => {
  assert.equal(rnrNakSyndrome(0), 0x20);
  assert.equal(rnrNakSyndrome(1), 0x21);
  assert.equal(rnrNakSyndrome(31), 0x3f);
  assert.equal(syndromeValue(rnrNakSyndrome(14)), 14);
});

test('NAK codes are 0x60..0x64 (PHYSICS §5.1)', () => {
  assert.deepEqual(
    [NAK_PSN_SEQUENCE_ERROR, NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR, NAK_REMOTE_OPERATIONAL_ERROR, NAK_INVALID_RD_REQUEST],
    [0x60, 0x61, 0x62, 0x63, 0x64],
  );
});

test('the top three bits decide the kind: 000 ack, 001 rnr nak, 011 nak, others reserved', () => {
  assert.equal(syndromeKind(0x00), 'ack');
  assert.equal(syndromeKind(0x1f), 'ack');
  assert.equal(syndromeKind(0x20), 'rnrNak');
  assert.equal(syndromeKind(0x3f), 'rnrNak');
  assert.equal(syndromeKind(0x60), 'nak');
  assert.equal(syndromeKind(0x64), 'nak');
  assert.equal(syndromeKind(0x40), 'reserved'); // 010
  assert.equal(syndromeKind(0x80), 'reserved'); // 100
  assert.equal(syndromeKind(0xe0), 'reserved'); // 111
});

test('RNR timer table (IBTA Table 45): endpoints and a few inner codes, in ps', () => {
  assert.equal(rnrTimerPs(0), 655_360_000_000); // 655.36 ms
  assert.equal(rnrTimerPs(1), 10_000_000); // 0.01 ms
  assert.equal(rnrTimerPs(2), 20_000_000);
  assert.equal(rnrTimerPs(5), 60_000_000); // 0.06 ms
  assert.equal(rnrTimerPs(16), 2_560_000_000); // 2.56 ms (PHYSICS §5.3)
  assert.equal(rnrTimerPs(30), 327_680_000_000);
  assert.equal(rnrTimerPs(31), 491_520_000_000); // 491.52 ms
  assert.throws(() => rnrTimerPs(32), RangeError);
  assert.throws(() => rnrTimerPs(1.5), RangeError);
});

test('RNR timers grow with the code from 1 to 31', () => {
  for (let c = 2; c <= 31; c++) assert.ok(rnrTimerPs(c) > rnrTimerPs(c - 1), `code ${c}`);
});

test('local ACK timeout = 4.096 µs × 2^exp; 0 means none', () => {
  assert.equal(localAckTimeoutPs(0), null);
  assert.equal(localAckTimeoutPs(1), 8_192_000);
  assert.equal(localAckTimeoutPs(8), 1_048_576_000); // ≈ 1.05 ms, timing: drill (DESIGN §9)
  assert.equal(localAckTimeoutPs(14), 67_108_864_000); // ≈ 67.1 ms, the RC default (DESIGN §9)
  assert.equal(localAckTimeoutPs(31), 4_096_000 * 2 ** 31); // still an exact integer (< 2^53)
  assert.ok(Number.isSafeInteger(localAckTimeoutPs(31)));
  assert.throws(() => localAckTimeoutPs(32), RangeError);
  assert.throws(() => localAckTimeoutPs(-1), RangeError);
});
