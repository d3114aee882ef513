// HPCC's INT records at a switch egress (issue 26): HPCC ns-3 int-header.h `IntHop::Set` by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameKind, IntMode, Opcode, newFrame } from '@rocelab/wire';
import { intHop, stampInt, wantsInt } from './int-stamp.js';

test('a record holds what HPCC\'s bit fields hold: ns mod 2^24, 128-byte units mod 2^20, 80-byte units mod 2^17', () => {
  // 1,234,567,891 ps → 1,234,567 ns; 100,000 B → 781 units → 99,968 B; 8,000 B → 100 units.
  assert.deepEqual(intHop(1_234_567_891, 100_000, 8_000, 40e9), { tsPs: 1_234_567_000, txBytes: 99_968, qlenBytes: 8_000, lineRateBps: 40e9 });
  // 20 ms is past 2^24 ns (16,777,216 ns): 3,222,784 ns. 2^20 · 128 + 256 B wraps to 256 B. 2^17 · 80 + 79 B to 0.
  assert.deepEqual(intHop(20_000_000_000, 2 ** 20 * 128 + 256, 2 ** 17 * 80 + 79, 100e9), { tsPs: 3_222_784_000, txBytes: 256, qlenBytes: 0, lineRateBps: 100e9 });
});

test('only data packets that asked for INT take a record, at most five, each stamp a new array', () => {
  const data = newFrame(FrameKind.data, { opcode: Opcode.writeMiddle, intMode: IntMode.hops });
  assert.equal(wantsInt(data), true);
  assert.equal(wantsInt(newFrame(FrameKind.data, { opcode: Opcode.writeMiddle })), false, 'no INT header: DCQCN and the rest');
  assert.equal(wantsInt(newFrame(FrameKind.ack, { opcode: Opcode.acknowledge, intMode: IntMode.hops })), false, 'HPCC stamps UDP data only; the ACK carries the data\'s back');
  assert.equal(wantsInt(newFrame(FrameKind.data, { opcode: Opcode.writeMiddle, intMode: IntMode.ts })), false, 'TIMELY\'s time stamp is no hop list');
  const before = data.int;
  for (let i = 0; i < 7; i++) stampInt(data, intHop(i * 1000, 0, 0, 40e9));
  assert.equal(data.int.length, 5);
  assert.equal(before.length, 0, 'the shared empty list is never written');
  assert.deepEqual(data.int.map((h) => h.tsPs), [0, 1000, 2000, 3000, 4000]);
});
