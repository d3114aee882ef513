/**
 * The fault API's rules without HTTP: stamping, refusals with their status, withdraw and clear,
 * and the states a fault goes through in virtual time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FaultApiError, FaultBook } from './fault-book.js';
import { CLEAR_KIND } from './fault-wire.js';
import { podContext } from './pod-context.js';
import { onePod } from './testing.js';

const POD = onePod(`workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 1MB, start: 0us}
faults:
  - {kind: linkDown, link: h2:p0, at: 9ms}
`);
const US = 1_000_000;

function refused(fn: () => unknown, status: number, message: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof FaultApiError && err.status === status && message.test(err.message));
}

const book = () => new FaultBook(podContext(POD, 1), []);

test('a live fault is stamped at the first time not yet granted, or after it', () => {
  const b = book();
  assert.equal(b.prepare({ kind: 'nicPauseStorm', node: 'h2' }, 40 * US).atPs, 40 * US);
  assert.equal(b.prepare({ kind: 'nicPauseStorm', node: 'h2', at: 'now' }, 40 * US).atPs, 40 * US);
  assert.equal(b.prepare({ kind: 'nicPauseStorm', node: 'h2', at: '+5us' }, 40 * US).atPs, 45 * US);
  assert.equal(b.prepare({ kind: 'nicPauseStorm', node: 'h2', at: '1ms' }, 40 * US).atPs, 1000 * US);
  // Numbers follow the topology's faults.
  assert.equal(b.prepare({ kind: 'nicPauseStorm', node: 'h2' }, 0).id, 1);
});

test('a fault in the past, of an unknown kind or on the wrong target is refused with what is wrong', () => {
  const b = book();
  refused(() => b.prepare({ kind: 'nicPauseStorm', node: 'h2', at: '10us' }, 40 * US), 409, /granted time up to 40 µs/);
  refused(() => b.prepare({ kind: 'meteor', node: 'h2' }, 0), 400, /fault\.kind: expected one of "linkDown".*got "meteor"/);
  refused(() => b.prepare({ kind: 'nicPauseStorm', node: 'sw1' }, 0), 400, /fault\.node: expected the name of a host .*got "sw1" \(a tor\)/);
  refused(() => b.prepare({ kind: 'loss', link: 'h9:p0', rate: 0.1 }, 0), 400, /fault\.link/);
  refused(() => b.prepare({ kind: 'nicPauseStorm', node: 'h2', at: 'soon' }, 0), 400, /at: expected now, \+D or a time like 5ms, got "soon"/);
  refused(() => b.prepare({ kind: 'packetEvent', flow: { from: 'h2', to: 'h1' }, packets: [3], action: 'drop' }, 0), 400, /no flow from h2 to h1/);
  assert.equal(b.entries().length, 0, 'nothing refused is recorded');
});

test('a recorded fault is scheduled, then active, then cleared by a clear record at the stamp', () => {
  const b = book();
  const loss = b.prepare({ kind: 'loss', link: 'h1:p0', rate: 0.5, at: '+10us' }, 20 * US);
  b.record(loss);
  assert.equal(b.view(25 * US).find((v) => v.id === loss.id)!.state, 'scheduled');
  assert.equal(b.view(30 * US).find((v) => v.id === loss.id)!.state, 'active');
  const clear = b.clearOf(loss.id, 50 * US);
  assert.equal(clear.kind, CLEAR_KIND);
  assert.equal(clear.atPs, 50 * US);
  assert.equal(clear.id, loss.id, 'a clear is numbered as the fault it ends');
  b.record(clear);
  assert.equal(b.next, loss.id + 1, 'and takes no number of its own');
  const view = b.view(60 * US).find((v) => v.id === loss.id)!;
  assert.equal(view.state, 'cleared');
  assert.equal(view.untilNs, 50_000);
  refused(() => b.clearOf(loss.id, 70 * US), 409, /already cleared at 50 µs/);
  assert.deepEqual(b.entries().map((e) => [e.kind, e.source]), [['loss', 'live'], ['clear', 'live']]);
});

test('clearing refuses an unknown fault, one already over, and one with nothing to undo', () => {
  const b = book();
  refused(() => b.clearOf(7, 0), 404, /no fault 7/);
  const short = b.prepare({ kind: 'loss', link: 'h1:p0', rate: 0.5, for: '10us' }, 0);
  b.record(short);
  refused(() => b.clearOf(short.id, 20 * US), 409, /already ended at 10 µs/);
  // Its own end is scheduled on the nodes already: a clear would end it twice.
  const bounded = b.prepare({ kind: 'loss', link: 'h1:p0', rate: 0.5, for: '1ms' }, 30 * US);
  b.record(bounded);
  refused(() => b.clearOf(bounded.id, 40 * US), 409, /ends by itself at 1030 µs \(its for\): only a fault without for can be cleared/);
  refused(() => b.open(99), 404, /no fault 99/);
  const flush = b.prepare({ kind: 'macFlush', node: 'sw1' }, 0);
  b.record(flush);
  refused(() => b.clearOf(flush.id, 5 * US), 409, /\(macFlush\) has nothing to undo/);
  // A topology fault is in the log too, and a link taken down can be brought back up.
  const topo = new FaultBook(podContext(POD, 1), [{ id: 0, atPs: 9000 * US, kind: 'linkDown', target: 'h2:p0', spec: JSON.stringify(POD.faults[0]!.raw), source: 'topology' }]);
  assert.equal(topo.clearOf(0, 9500 * US).atPs, 9500 * US);
});

test('a withdrawn fault leaves the log that replays the run', () => {
  const b = book();
  const storm = b.prepare({ kind: 'nicPauseStorm', node: 'h2', at: '+1ms' }, 0);
  b.record(storm);
  b.withdraw(storm.id);
  assert.deepEqual(b.entries(), []);
  assert.equal(b.view(0)[0]!.state, 'withdrawn');
  refused(() => b.clearOf(storm.id, 0), 404, /no fault/);
  assert.equal(b.next, storm.id + 1, 'its number is not reused');
});

test('kills and restarts through the API follow the nodes’ lives: no kill of a dead node, no restart of a living one or too soon', () => {
  const b = book();
  const kill = b.prepare({ kind: 'kill', node: 'sw1' }, 100 * US);
  b.record(kill);
  refused(() => b.prepare({ kind: 'kill', node: 'sw1', at: '+10us' }, 100 * US), 409, /fault\.at: expected a time when sw1 is alive .*sw1 is dead since 100us/);
  refused(() => b.prepare({ kind: 'restart', node: 'h1' }, 100 * US), 409, /fault\.at: expected a time when h1 is dead .*h1 is alive/);
  refused(() => b.prepare({ kind: 'restart', node: 'sw1', at: '+100ns' }, 100 * US), 409, /expected a restart at least 1\.2244us after the kill/);
  refused(() => b.clearOf(kill.id, 100 * US + 100_000), 409, /fault 1 cannot be cleared yet: .*a clear at least 1\.2244us after the kill/);
  const restart = b.prepare({ kind: 'restart', node: 'sw1', at: '+50us' }, 100 * US);
  assert.equal(restart.atPs, 150 * US);
  b.record(restart);
  refused(() => b.clearOf(kill.id, 200 * US), 409, /expected a kill still in force .*sw1 is alive/);
  assert.deepEqual(b.entries().map((e) => e.kind), ['kill', 'restart'], 'nothing refused is recorded');
});
