import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemberSync } from './member.js';
import type { Grant, TimedFault } from './types.js';

const grant = (lease: number, startPs: number, windows: number, final = false): Grant<TimedFault> => ({
  lease,
  startPs,
  windowPs: 100,
  windows,
  endPs: startPs + windows * 100,
  final,
  faults: [],
  linksDown: [],
  linksUp: [],
  membersLost: [],
  membersJoined: [],
  losses: [],
});

test('inside a lease: run, ship, wait for every neighbour, run the next window, report at the end', () => {
  const m = new MemberSync(['L1', 'L2']);
  assert.deepEqual(m.onGrant(grant(1, 0, 2)), [{ type: 'run', lease: 1, window: 1, fromPs: 0, untilPs: 100 }]);
  assert.deepEqual(m.windowShipped(), []);
  assert.deepEqual(m.onBatch('L1', 1, 1), []);
  assert.deepEqual(m.onBatch('L2', 1, 1), [{ type: 'run', lease: 1, window: 2, fromPs: 100, untilPs: 200 }]);
  m.windowShipped();
  m.onBatch('L2', 1, 2);
  assert.deepEqual(m.onBatch('L1', 1, 2), [{ type: 'report', lease: 1, final: false }]);
  assert.equal(m.phase, 'awaitingGrant');
});

test('a neighbour one window ahead is fine, including across the lease boundary', () => {
  const m = new MemberSync(['L1']);
  m.onGrant(grant(1, 0, 1));
  m.windowShipped();
  assert.deepEqual(m.onBatch('L1', 1, 1), [{ type: 'report', lease: 1, final: false }]);
  assert.deepEqual(m.onBatch('L1', 2, 1), [], 'the neighbour already got grant 2');
  assert.deepEqual(m.onGrant(grant(2, 100, 3)), [{ type: 'run', lease: 2, window: 1, fromPs: 100, untilPs: 200 }]);
  assert.deepEqual(m.windowShipped(), [{ type: 'run', lease: 2, window: 2, fromPs: 200, untilPs: 300 }]);
});

test('a batch for any other window closes the link and the member stops waiting for it', () => {
  const m = new MemberSync(['L1', 'L2']);
  m.onGrant(grant(1, 0, 4));
  m.windowShipped();
  m.onBatch('L1', 1, 1);
  const actions = m.onBatch('L2', 1, 3);
  assert.equal(actions[0]!.type, 'close');
  assert.match((actions[0] as { reason: string }).reason, /out-of-order batch for lease 1 window 3; expected 1\/1 or 1\/2/);
  assert.deepEqual(actions.slice(1), [{ type: 'run', lease: 1, window: 2, fromPs: 100, untilPs: 200 }]);
  assert.deepEqual(m.liveChannels, ['L1']);
  assert.deepEqual(m.onBatch('L2', 1, 2), [], 'nothing more is read from a closed link');
});

test('a second batch for the same window is a misbehaving link', () => {
  const m = new MemberSync(['L1', 'L2']);
  m.onGrant(grant(1, 0, 2));
  m.onBatch('L1', 1, 1);
  const actions = m.onBatch('L1', 1, 1);
  assert.deepEqual(actions, [{ type: 'close', channel: 'L1', reason: 'second batch for lease 1 window 1' }]);
});

test('while a window runs, a batch for the next one cannot be legitimate', () => {
  const m = new MemberSync(['L1']);
  m.onGrant(grant(1, 0, 2));
  assert.equal(m.onBatch('L1', 1, 2)[0]!.type, 'close');
});

test('a link that fails while awaited releases the window', () => {
  const m = new MemberSync(['L1', 'L2']);
  m.onGrant(grant(1, 0, 1));
  assert.deepEqual(m.missing(), [], 'nothing is awaited while the window runs');
  m.windowShipped();
  m.onBatch('L1', 1, 1);
  assert.deepEqual(m.missing(), ['L2']);
  assert.deepEqual(m.onChannelFailed('L2'), [{ type: 'report', lease: 1, final: false }]);
});

test('a zero-window closing lease reports at once, final', () => {
  const m = new MemberSync(['L1']);
  m.onGrant(grant(1, 0, 1));
  m.windowShipped();
  m.onBatch('L1', 1, 1);
  assert.deepEqual(m.onGrant(grant(2, 100, 0, true)), [{ type: 'report', lease: 2, final: true }]);
  assert.equal(m.phase, 'finished');
  assert.throws(() => m.onGrant(grant(3, 100, 1)), /state finished/);
});

test('a rejoining member takes its first grant whatever its number', () => {
  const m = new MemberSync(['L1'], { rejoin: true });
  assert.deepEqual(m.onGrant(grant(7, 700, 1)), [{ type: 'run', lease: 7, window: 1, fromPs: 700, untilPs: 800 }]);
  assert.deepEqual(m.windowShipped(), []);
  assert.deepEqual(m.onBatch('L1', 7, 1), [{ type: 'report', lease: 7, final: false }]);
  assert.throws(() => m.onGrant(grant(9, 900, 1)), /grant 9 after lease 7/);
});

test('a link reconnected by a rejoining neighbour is taken early and waited for from the grant that brings it up', () => {
  const m = new MemberSync(['L1', 'L2']);
  m.onGrant(grant(1, 0, 1));
  m.onChannelFailed('L2');
  m.windowShipped();
  assert.deepEqual(m.onBatch('L1', 1, 1), [{ type: 'report', lease: 1, final: false }]);
  m.onChannelReconnected('L2');
  // The neighbour ran the joining lease's first window before our grant arrived.
  assert.deepEqual(m.onBatch('L2', 2, 1), []);
  const up = { ...grant(2, 100, 1), linksUp: ['L2'] };
  m.onGrant(up);
  m.windowShipped();
  assert.deepEqual(m.onBatch('L1', 2, 1), [{ type: 'report', lease: 2, final: false }], 'L2 already arrived');
  assert.throws(() => m.onChannelReconnected('L9'), /not one of this member's channels/);
  assert.throws(() => m.onChannelReconnected('L2'), /reconnected while live/);
});

test('without a grant that brings it up, a reconnected link is not waited for', () => {
  const m = new MemberSync(['L1', 'L2']);
  m.onGrant(grant(1, 0, 1));
  m.onChannelFailed('L2');
  m.onChannelReconnected('L2');
  m.windowShipped();
  assert.deepEqual(m.onBatch('L1', 1, 1), [{ type: 'report', lease: 1, final: false }]);
});

test('channels may be neighbouring members: the grant’s links brought up are named by the member they lead to', () => {
  const m = new MemberSync(['m2', 'm3']);
  m.onGrant(grant(1, 0, 1));
  m.onChannelFailed('m3');
  m.windowShipped();
  assert.deepEqual(m.onBatch('m2', 1, 1), [{ type: 'report', lease: 1, final: false }]);
  m.onChannelReconnected('m3');
  // The grant lists links (h5:p0--sw2:p3, …); the runtime maps them to the pair they belong to.
  m.onGrant({ ...grant(2, 100, 1), linksUp: ['h5:p0--sw2:p3'] }, ['m3']);
  m.windowShipped();
  assert.deepEqual(m.onBatch('m2', 2, 1), [], 'm3 is waited for again');
  assert.deepEqual(m.onBatch('m3', 2, 1), [{ type: 'report', lease: 2, final: false }]);
});
