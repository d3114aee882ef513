import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coordinator, type Step } from './coordinator.js';
import type { Grant, Report, TimedFault } from './types.js';

const W = 1_000;

function grantOf(step: Step<TimedFault>): Grant<TimedFault> {
  assert.equal(step.type, 'grant', `expected a grant, got ${JSON.stringify(step)}`);
  return (step as { grant: Grant<TimedFault> }).grant;
}

const report = (member: string, lease: number, nextEventPs: number | null, extra: Partial<Report> = {}): Report => ({
  member,
  lease,
  nextEventPs,
  linksFailed: [],
  linkCounts: [],
  ...extra,
});

/** Report for every member with the same next event; returns the coordinator's step. */
function all(c: Coordinator, lease: number, next: number | null, members = ['m1', 'm2']): Step<TimedFault> {
  let step: Step<TimedFault> = { type: 'wait' };
  for (const m of members) step = c.onReport(report(m, lease, next));
  return step;
}

test('leases start with one window and double up to the cap while events keep coming', () => {
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null, maxWindowsPerLease: 8 });
  let g = grantOf(c.start());
  const sizes = [g.windows];
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(c.onReport(report('m1', g.lease, g.endPs)), { type: 'wait' });
    g = grantOf(c.onReport(report('m2', g.lease, g.endPs + 1)));
    sizes.push(g.windows);
  }
  assert.deepEqual(sizes, [1, 2, 4, 8, 8, 8]);
  assert.equal(g.startPs, (1 + 2 + 4 + 8 + 8) * W);
});

test('a run without end starts with one window of width W, even when idle spans are wider', () => {
  // Before any report nothing is known about pending events: a wide first window would run
  // every member's first frames past their neighbours' horizons.
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null, idleSpanPs: 100 * W });
  const g1 = grantOf(c.start());
  assert.deepEqual([g1.startPs, g1.windowPs, g1.windows], [0, W, 1]);
  const g2 = grantOf(all(c, g1.lease, null));
  assert.deepEqual([g2.startPs, g2.windowPs, g2.windows], [W, 100 * W, 1]);
});

test('a global next event at least 3 windows away is jumped to, restarting at one window', () => {
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null });
  const g1 = grantOf(c.start());
  const g2 = grantOf(all(c, g1.lease, g1.endPs + 2 * W)); // 2 windows away: no jump
  assert.equal(g2.startPs, g1.endPs);
  assert.equal(g2.windows, 2);
  const g3 = grantOf(all(c, g2.lease, 50_000_123));
  assert.deepEqual([g3.startPs, g3.windows, g3.endPs], [50_000_123, 1, 50_000_123 + W]);
});

test('the run ends exactly at its duration: the last lease is cut and final', () => {
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: 2_500 });
  let g = grantOf(c.start());
  g = grantOf(all(c, g.lease, 1_000, ['m1'])); // [1000, 2500): 2 windows, second cut at 2500
  assert.deepEqual([g.startPs, g.windows, g.endPs, g.final], [1_000, 2, 2_500, true]);
  assert.deepEqual(all(c, g.lease, 2_600, ['m1']), { type: 'finished', endPs: 2_500 });
});

test('an idle pod jumps to its end and closes with a zero-window final lease', () => {
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: 1e9 });
  const g1 = grantOf(c.start());
  const g2 = grantOf(all(c, g1.lease, null, ['m1']));
  assert.deepEqual([g2.startPs, g2.windows, g2.final], [1e9, 0, true]);
  assert.equal(all(c, g2.lease, null, ['m1']).type, 'finished');
  assert.equal(c.windowsGranted, 1);
});

test('faults ride with the lease containing them, and no jump passes a fault', () => {
  const faults = [
    { id: 1, atPs: 1_500 },
    { id: 2, atPs: 7_000_000 },
  ];
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: null, faults });
  const g1 = grantOf(c.start()); // [0, 1000)
  assert.deepEqual(g1.faults, []);
  const g2 = grantOf(all(c, 1, 1_200, ['m1'])); // [1000, 3000)
  assert.deepEqual(g2.faults.map((f) => f.id), [1]);
  const g3 = grantOf(all(c, 2, 90_000_000, ['m1'])); // next event far away, fault 2 first
  assert.equal(g3.startPs, 7_000_000);
  assert.deepEqual(g3.faults.map((f) => f.id), [2]);
});

test('a live fault is stamped with the start of the first lease not yet granted', () => {
  const c = new Coordinator<TimedFault & { kind: string }>({ members: ['m1'], windowPs: W, endPs: null });
  const g1 = grantOf(c.start());
  const fault = c.injectNow({ id: 9, kind: 'linkDown' });
  assert.equal(fault.atPs, g1.endPs);
  const g2 = grantOf(all(c, 1, 1e12, ['m1']));
  assert.equal(g2.startPs, g1.endPs, 'the pending fault stops the jump');
  assert.deepEqual(g2.faults, [fault]);
  assert.throws(() => c.schedule({ id: 10, kind: 'x', atPs: 0 }), /in the past/);
});

test('a failed link is declared down at the next lease; in-transit frames become the sender’s loss', () => {
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null });
  const g1 = grantOf(c.start());
  c.onReport(report('m1', 1, 5_000, { linksFailed: ['a:p0>b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'sender', frames: 10 }] }));
  const g2 = grantOf(c.onReport(report('m2', 1, 5_000)));
  assert.deepEqual(g2.linksDown, ['a:p0>b:p0']);
  assert.deepEqual(g2.losses, [], 'the receiver has not reported its count yet');
  c.onReport(report('m1', 2, 5_000));
  const g3 = grantOf(c.onReport(report('m2', 2, 5_000, { linksFailed: ['a:p0>b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'receiver', frames: 7 }] })));
  assert.deepEqual(g3.linksDown, [], 'declared once');
  assert.deepEqual(g3.losses, [{ link: 'a:p0>b:p0', frames: 3 }]);
  assert.equal(g1.lease, 1);
});

test('a lost member stops being waited for and its links go down', () => {
  const links = new Map([['m2', ['x:p0>y:p0']]]);
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null, linksOfMember: links });
  c.start();
  c.onReport(report('m1', 1, 3_000));
  const g2 = grantOf(c.onMemberLost('m2'));
  assert.deepEqual(g2.linksDown, ['x:p0>y:p0']);
  assert.deepEqual(c.members, ['m1']);
  assert.throws(() => c.onReport(report('m2', 2, 3_000)), /unknown or lost/);
});

test('a lost member is named in the next grant; rejoined, it runs from the following one with its links up', () => {
  const links = new Map([
    ['m1', ['a:p0--b:p0', 'a:p1--c:p0']],
    ['m2', ['a:p0--b:p0']],
    ['m3', ['a:p1--c:p0']],
  ]);
  const c = new Coordinator({ members: ['m1', 'm2', 'm3'], windowPs: W, endPs: null, linksOfMember: links });
  c.start();
  c.onReport(report('m1', 1, 3_000));
  c.onReport(report('m3', 1, 3_000));
  const g2 = grantOf(c.onMemberLost('m2'));
  assert.deepEqual([g2.membersLost, g2.linksDown, g2.linksUp], [['m2'], ['a:p0--b:p0'], []]);
  assert.deepEqual(c.lostMembers, ['m2']);
  assert.throws(() => c.rejoin('m1'), /was not lost/);
  assert.throws(() => c.rejoin('m9'), /never a member/);
  c.rejoin('m2');
  assert.deepEqual(c.lostMembers, []);
  c.onReport(report('m1', 2, 3_000));
  const g3 = grantOf(c.onReport(report('m3', 2, 3_000)));
  assert.deepEqual([g3.membersJoined, g3.linksUp, g3.linksDown, g3.membersLost], [['m2'], ['a:p0--b:p0'], [], []]);
  // From this lease on it is waited for like everyone else.
  c.onReport(report('m1', 3, 3_000));
  assert.deepEqual(c.onReport(report('m3', 3, 3_000)), { type: 'wait' });
  const g4 = grantOf(c.onReport(report('m2', 3, 3_000)));
  assert.deepEqual([g4.membersJoined, g4.linksUp], [[], []]);
});

test('a rejoining member does not bring up a link whose other end is still lost; that one comes up when both are back', () => {
  const links = new Map([
    ['m1', ['a:p0--b:p0']],
    ['m2', ['a:p0--b:p0', 'b:p1--c:p0']],
    ['m3', ['b:p1--c:p0']],
  ]);
  const c = new Coordinator({ members: ['m1', 'm2', 'm3'], windowPs: W, endPs: null, linksOfMember: links });
  c.start();
  c.onMemberLost('m2');
  c.onMemberLost('m3');
  const g2 = grantOf(c.onReport(report('m1', 1, 3_000)));
  assert.deepEqual(g2.linksDown, ['a:p0--b:p0', 'b:p1--c:p0']);
  c.rejoin('m2');
  const g3 = grantOf(c.onReport(report('m1', 2, 3_000)));
  assert.deepEqual(g3.linksUp, ['a:p0--b:p0'], 'm3 is still gone');
  c.rejoin('m3');
  c.onReport(report('m1', 3, 3_000));
  const g4 = grantOf(c.onReport(report('m2', 3, 3_000)));
  assert.deepEqual([g4.membersJoined, g4.linksUp], [['m3'], ['b:p1--c:p0']]);
});

test('a link that failed before its member was lost can fail again after the rejoin, and is settled again', () => {
  const links = new Map([
    ['m1', ['a:p0--b:p0']],
    ['m2', ['a:p0--b:p0']],
  ]);
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null, linksOfMember: links });
  c.start();
  c.onReport(report('m1', 1, 5_000, { linksFailed: ['a:p0--b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'sender', frames: 10 }] }));
  c.onReport(report('m2', 1, 5_000, { linksFailed: ['a:p0--b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'receiver', frames: 10 }] }));
  c.onMemberLost('m2');
  c.rejoin('m2');
  c.onReport(report('m1', 2, 5_000));
  c.onReport(report('m1', 3, 5_000, { linksFailed: ['a:p0--b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'sender', frames: 4 }] }));
  const g = grantOf(c.onReport(report('m2', 3, 5_000, { linksFailed: ['a:p0--b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'receiver', frames: 1 }] })));
  assert.deepEqual([g.linksDown, g.losses], [['a:p0--b:p0'], [{ link: 'a:p0>b:p0', frames: 3 }]]);
});

test('reports are checked: wrong lease and duplicates are protocol errors', () => {
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: null });
  c.start();
  assert.throws(() => c.onReport(report('m1', 2, 0)), /current is 1/);
  c.onReport(report('m1', 1, 0));
  assert.throws(() => c.onReport(report('m1', 1, 0)), /twice/);
});

test('a pacing cap limits the lease span but never the grant sequence’s outcome', () => {
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: null, maxLeasePs: 3 * W });
  let g = grantOf(c.start());
  const sizes = [g.windows];
  for (let i = 0; i < 4; i++) {
    g = grantOf(all(c, g.lease, g.endPs, ['m1']));
    sizes.push(g.windows);
  }
  assert.deepEqual(sizes, [1, 2, 3, 3, 3]);
});

test('a pace chosen mid-run caps the leases from the next grant on, and sets the idle span', () => {
  // Unpaced while the pace is measured (auto-pace.ts), then 3 windows per lease and idle spans of 5.
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: null });
  let g = grantOf(c.start());
  const sizes = [g.windows];
  for (let i = 0; i < 3; i++) {
    g = grantOf(all(c, g.lease, g.endPs, ['m1']));
    sizes.push(g.windows);
  }
  c.setLeaseSpan(3 * W, 5 * W);
  g = grantOf(all(c, g.lease, g.endPs, ['m1']));
  sizes.push(g.windows);
  assert.deepEqual(sizes, [1, 2, 4, 8, 3]);
  const idle = grantOf(all(c, g.lease, null, ['m1']));
  assert.deepEqual([idle.windowPs, idle.windows], [5 * W, 1], 'nothing pending: one idle span');
  assert.throws(() => c.setLeaseSpan(0, W), /must be positive/);
});

test('stop ends the run with a zero-window final lease at the current lease end', () => {
  const c = new Coordinator({ members: ['m1'], windowPs: W, endPs: null });
  const g1 = grantOf(c.start());
  c.requestStop();
  const g2 = grantOf(all(c, 1, 10, ['m1']));
  assert.deepEqual([g2.startPs, g2.windows, g2.final], [g1.endPs, 0, true]);
  assert.equal(all(c, 2, null, ['m1']).type, 'finished');
});

test('losses settled by the final reports are handed to the service, once', () => {
  const c = new Coordinator({ members: ['m1', 'm2'], windowPs: W, endPs: 2 * W });
  c.start();
  c.onReport(report('m1', 1, W));
  const g2 = grantOf(c.onReport(report('m2', 1, W)));
  assert.equal(g2.final, true);
  const counts = { linksFailed: ['a:p0--b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'sender' as const, frames: 9 }, { link: 'a:p0>b:p0', side: 'sender' as const, frames: 9 }] };
  c.onReport(report('m1', 2, null, counts));
  assert.deepEqual(c.lossesAtEnd, [], 'not finished yet');
  const end = c.onReport(report('m2', 2, null, { linksFailed: ['a:p0--b:p0'], linkCounts: [{ link: 'a:p0>b:p0', side: 'receiver', frames: 4 }] }));
  assert.equal(end.type, 'finished');
  assert.deepEqual(c.lossesAtEnd, [{ link: 'a:p0>b:p0', frames: 5 }]);
});
