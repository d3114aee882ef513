// The timer table: ids in registration order, each fired timer handed to its own handler.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TimerTable } from './timer-table.js';

test('timers get ids in registration order, gaps included, and each fires its own handler', () => {
  const table = new TimerTable();
  const fired: string[] = [];
  assert.equal(table.register((t) => fired.push(`post@${t}`)), 0);
  table.skip(2);
  const first = table.registerEach(3, (t, i) => fired.push(`qp${i}@${t}`));
  assert.equal(first, 3);
  assert.equal(table.register(() => fired.push('app')), 6);
  table.fire(10, 4);
  table.fire(11, 0);
  table.fire(12, 6);
  assert.deepEqual(fired, ['qp1@10', 'post@11', 'app']);
  assert.equal(table.size, 7);
});

test('an id that names no timer, or a gap, is a bug: it throws', () => {
  const table = new TimerTable();
  table.skip(1);
  assert.throws(() => table.fire(0, 0), /timer 0 fired, but no timer has that id/);
  assert.throws(() => table.fire(0, 5), /timer 5 fired/);
});
