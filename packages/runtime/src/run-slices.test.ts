import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_SLICE_PS, RunSlices } from './run-slices.js';

test('slices start at 1 µs, double while short, and shrink to about 10 ms of wall time when long', () => {
  const s = new RunSlices();
  assert.equal(s.next(0, 1_016_800), FIRST_SLICE_PS, 'a 1.0168 µs window: 1 µs first');
  s.ran(FIRST_SLICE_PS, 0.2);
  assert.equal(s.next(FIRST_SLICE_PS, 1_016_800), 1_016_800, 'then whole windows, never past their end');
  for (let i = 0; i < 4; i++) s.ran(s.spanPs, 3);
  assert.equal(s.spanPs, 32 * FIRST_SLICE_PS);
  s.ran(32_000_000, 640);
  assert.equal(s.spanPs, 500_000, 'a 640 ms slice: the next one is sized for 10 ms at that cost');
  s.ran(500_000, 12);
  assert.equal(s.spanPs, 500_000, 'between 5 and 20 ms: kept');
  s.ran(500_000, 1);
  assert.equal(s.spanPs, 1_000_000, 'a quiet stretch: doubled');
});

test('a slice never shrinks below 1 ps, so every slice advances', () => {
  const s = new RunSlices();
  for (let i = 0; i < 10; i++) s.ran(Math.max(1, s.spanPs), 100_000);
  assert.equal(s.spanPs, 1);
  assert.equal(s.next(5, 100), 6);
});
