import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostResults, NodeReport } from '@rocelab/results';
import { emptyNodeFinal, lostMemberFinals, mergeLives, type LinkTotal, type MemberSnapshot } from './member-loss.js';
import type { NodeFinal } from './result.js';
import { onePod } from './testing.js';

const final = (node: string, c: { sent: number; delivered: number; queued: number; dropped?: Record<string, number> }): NodeFinal => ({
  node,
  digest: new Uint8Array(32),
  events: 0,
  sent: c.sent,
  delivered: c.delivered,
  queued: c.queued,
  dropped: c.dropped ?? {},
  causalityViolations: 0,
  rssBytes: 0,
  pssBytes: 0,
  results: { sent: [], probes: { sent: 0, failed: 0, pending: 0, rttPs: {}, rttOmitted: 0 } } satisfies HostResults,
  report: { node, role: 'tor', ports: [], host: null } satisfies NodeReport,
});
const t = (link: string, sender: boolean, frames: number): LinkTotal => ({ link, sender, frames });

test('a lost switch: what it held and what reached it after its last report is lost; what came out is not', () => {
  // sw sits between h1 and h2 (each in its own process). At its last report it held 3 frames.
  const last: MemberSnapshot = { lease: 4, nodes: [final('sw', { sent: 10, delivered: 10, queued: 3 })], links: [] };
  const then = [t('h1:p0>sw:p1', true, 100), t('sw:p1>h1:p0', false, 40), t('h2:p0>sw:p2', true, 7), t('sw:p2>h2:p0', false, 90)];
  const now = [t('h1:p0>sw:p1', true, 108), t('sw:p1>h1:p0', false, 41), t('h2:p0>sw:p2', true, 7), t('sw:p2>h2:p0', false, 95)];
  const [sw] = lostMemberFinals(last, then, now);
  // In: 3 held + 8 from h1; out: 1 to h1 + 5 to h2 → 5 lost, nothing originated beyond.
  assert.deepEqual([sw!.sent, sw!.delivered, sw!.queued, sw!.dropped.node_lost, sw!.results], [10, 10, 0, 5, null]);
});

test('a lost host that sent more than it received is credited with the originations, and the balance holds', () => {
  const last: MemberSnapshot = { lease: 2, nodes: [final('h1', { sent: 50, delivered: 20, queued: 1, dropped: { loss: 2 } })], links: [] };
  const then = [t('h1:p0>tor:p1', false, 49), t('tor:p1>h1:p0', true, 22)];
  const now = [t('h1:p0>tor:p1', false, 60), t('tor:p1>h1:p0', true, 24)];
  const [h1] = lostMemberFinals(last, then, now);
  // In: 1 + 2 = 3; out: 11 → 8 originated, 0 lost.
  assert.deepEqual([h1!.sent, h1!.dropped.node_lost, h1!.dropped.loss], [58, 0, 2]);
  // Token balance of the box after the cut: entered + originated = out + lost.
  assert.equal(1 + 2 + 8, 11 + 0);
});

test('links between two nodes of the lost member do not count; counts never go back', () => {
  const last: MemberSnapshot = { lease: 1, nodes: [final('a', { sent: 0, delivered: 0, queued: 0 }), final('b', { sent: 0, delivered: 0, queued: 2 })], links: [] };
  const now = [t('a:p0>b:p0', true, 9), t('c:p0>b:p1', true, 4)];
  const [a, b] = lostMemberFinals(last, [], now);
  assert.deepEqual([a!.dropped.node_lost, b!.dropped.node_lost], [0, 6]);
  assert.throws(() => lostMemberFinals(last, [t('c:p0>b:p1', true, 5)], now), /went back from 5 to 4/);
});

test('a node over two lives: counters add, the lives digest together, the last results stand', () => {
  const life1 = { ...final('h1', { sent: 5, delivered: 4, queued: 0, dropped: { node_lost: 1 } }), results: null, digest: new Uint8Array(32).fill(1) };
  const results = { sent: [], probes: { sent: 1, failed: 0, pending: 0, rttPs: {}, rttOmitted: 0 } };
  const life2 = { ...final('h1', { sent: 3, delivered: 2, queued: 1, dropped: { loss: 2 } }), results, digest: new Uint8Array(32).fill(2) };
  const merged = mergeLives([life1, life2]);
  assert.deepEqual([merged.sent, merged.delivered, merged.queued, merged.dropped], [8, 6, 1, { node_lost: 1, loss: 2 }]);
  assert.equal(merged.results, life2.results);
  assert.notDeepEqual(merged.digest, life2.digest);
  assert.equal(mergeLives([life2]), life2, 'one life is itself: runs without loss keep their hashes');
});

test('before its first report a lost node has nothing: zero counters and a report of its ports', () => {
  const pod = onePod();
  const sw = emptyNodeFinal(pod, 'sw1');
  assert.deepEqual(sw.report.ports.map((p) => p.port), ['p1', 'p2']);
  assert.equal(sw.report.host, null);
  assert.equal(emptyNodeFinal(pod, 'h1').report.host!.goodputBytes, 0);
  assert.equal(sw.sent + sw.delivered + sw.queued, 0);
});
