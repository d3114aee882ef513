import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LinkTotal, NodeFinal } from '@rocelab/runtime';
import { parseTopology } from '@rocelab/topology';
import { twoHostPod } from '@rocelab/topology/testing';
import { Lives } from './lives.js';

const POD = parseTopology(twoHostPod('pair'));
const final = (node: string, sent: number, queued = 0): NodeFinal => ({ node, digest: new Uint8Array(32), events: 0, sent, delivered: 0, queued, dropped: {}, causalityViolations: 0, rssBytes: 0, pssBytes: 0, results: null, report: { node, role: 'host', ports: [], host: null } });
const t = (link: string, sender: boolean, frames: number): LinkTotal => ({ link, sender, frames });
const lives = () => new Lives(POD, (m) => [m]);

test('a member declared lost: its last report plus what its neighbours saw since make a finished life, and the loss is listed', () => {
  const l = lives();
  l.report('sw1', { lease: 3, nodes: [final('sw1', 0, 2)], links: [] });
  l.report('h1', { lease: 3, nodes: [final('h1', 10)], links: [t('h1:p0>sw1:p1', true, 10)] });
  l.report('h1', { lease: 4, nodes: [final('h1', 15)], links: [t('h1:p0>sw1:p1', true, 15)] });
  l.gone('sw1');
  assert.equal(l.declared('sw1', 5_000_000), 3);
  const [sw1] = l.of('sw1', undefined);
  assert.equal(sw1!.dropped.node_lost, 2 + 5, 'held at its last report, and shipped to it since');
  assert.deepEqual(l.losses, [{ node: 'sw1', atNs: 5000, cause: 'lost', restartedAtNs: null }]);
  l.rejoined('sw1', 9_000_000);
  assert.equal(l.losses[0]!.restartedAtNs, 9000);
  assert.equal(l.of('sw1', final('sw1', 4)).length, 2, 'then the life after the rejoin');
});

test('a member back before its loss was declared is accounted from its old reports, not its new ones', () => {
  const l = lives();
  l.report('sw1', { lease: 2, nodes: [final('sw1', 0, 3)], links: [] });
  l.gone('sw1');
  l.back('sw1');
  l.report('sw1', { lease: 3, nodes: [final('sw1', 0, 0)], links: [] });
  assert.equal(l.declared('sw1', 1_000_000), 2);
  assert.equal(l.of('sw1', undefined)[0]!.dropped.node_lost, 3);
});

test('at the end: a member lost before its final report is accounted then; one that reported it is not; one that never reported had nothing', () => {
  const l = lives();
  l.report('h1', { lease: 7, nodes: [final('h1', 9, 1)], links: [] });
  l.gone('h1');
  l.gone('h2');
  l.settle(8_000_000, new Map([['h2', final('h2', 5)]]));
  assert.deepEqual(l.losses.map((x) => [x.node, x.atNs]), [['h1', 8000]]);
  assert.equal(l.of('h1', undefined)[0]!.dropped.node_lost, 1);
  assert.equal(l.of('h2', final('h2', 5)).length, 1);
  const never = lives();
  never.gone('sw1');
  never.declared('sw1', 0);
  assert.deepEqual(never.of('sw1', undefined).map((f) => [f.sent, f.dropped.node_lost]), [[0, 0]]);
});
