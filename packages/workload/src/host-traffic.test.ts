import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostTraffic } from './host-traffic.js';
import { contextFor, drain } from './testing.js';
import type { ResolvedWorkload } from './workloads.js';

const HOSTS = ['h1', 'h2', 'h3', 'h4'];
const US = 1_000_000;

const FINITE: ResolvedWorkload[] = [
  { kind: 'flow', index: 0, from: 'h1', to: 'h2', sizeBytes: 3000, messageBytes: 1000, start: { kind: 'at', atPs: 20 * US }, rateBps: null, dscp: 26, transport: 'rdma' },
  { kind: 'incast', index: 1, to: 'h4', from: ['h2', 'h1'], sizeBytes: 500, startPs: 10 * US, staggerPs: 10 * US, transport: 'rdma', dscp: 26 },
  { kind: 'shuffle', index: 2, hosts: 'all', sizeBytes: 100, startPs: 20 * US, transport: 'rdma', dscp: 26 },
  { kind: 'permutation', index: 3, hosts: 'all', sizeBytes: 200, startPs: 0, transport: 'rdma', dscp: 26 },
];
const OPEN: ResolvedWorkload[] = [
  { kind: 'poisson', index: 4, hosts: 'all', load: 0.5, sizes: { kind: 'fixed', sizeBytes: 1500 }, startPs: 0, stopPs: null, qpPerMessage: false, transport: 'rdma', dscp: 26 },
  { kind: 'pingmesh', index: 5, hosts: 'all', intervalPs: 1 * US, sizeBytes: 64, startPs: 0, stopPs: null, transport: 'rdma', dscp: 26 },
];

test('posts are merged by (atPs, workload index, the kind\'s order)', () => {
  const posts = drain('h1', FINITE, HOSTS);
  assert.deepEqual(posts.map((p) => [p.atPs / US, p.connection, p.sizeBytes]), [
    [0, posts[0]!.connection, 200], // permutation, destination drawn
    [20, 'w0:h1->h2', 1000],
    [20, 'w0:h1->h2', 1000],
    [20, 'w0:h1->h2', 1000],
    [20, 'w1:h1->h4', 500], // incast slot 1: 10 us + 1 × 10 us
    [20, 'w2:h1->h2', 100],
    [20, 'w2:h1->h3', 100],
    [20, 'w2:h1->h4', 100],
  ]);
});

test('open-loop kinds interleave in time order, ties by workload index', () => {
  const posts = drain('h2', [...OPEN, ...FINITE], HOSTS, { limit: 5000 });
  for (let i = 1; i < posts.length; i++) {
    const [a, b] = [posts[i - 1]!, posts[i]!];
    assert.ok(a.atPs < b.atPs || (a.atPs === b.atPs && Math.floor(a.flow / 2 ** 40) <= Math.floor(b.flow / 2 ** 40)), `post ${i} out of order`);
  }
  assert.ok(posts.some((p) => p.probe) && posts.some((p) => p.connection.startsWith('w4:')));
});

test('connections(): exactly the keys the posts use, sorted, with no draw', () => {
  for (const host of HOSTS) {
    const traffic = hostTraffic(host, [...FINITE, ...OPEN], contextFor(host, HOSTS));
    const keys = traffic.connections().map((c) => c.key);
    assert.deepEqual(keys, [...keys].sort());
    assert.equal(new Set(keys).size, keys.length);
    const used = new Set(drain(host, [...FINITE, ...OPEN], HOSTS, { limit: 20_000 }).map((p) => p.connection));
    assert.deepEqual([...used].sort(), keys, host);
  }
});

test('deterministic, and flow ids are unique across the pod', () => {
  const all = HOSTS.flatMap((h) => drain(h, [...FINITE, ...OPEN], HOSTS, { limit: 3000, seed: 9 }));
  assert.deepEqual(HOSTS.flatMap((h) => drain(h, [...FINITE, ...OPEN], HOSTS, { limit: 3000, seed: 9 })), all);
  assert.equal(new Set(all.map((p) => p.flow)).size, all.length);
  // The workload order in the list given does not matter.
  assert.deepEqual(drain('h3', [...FINITE].reverse(), HOSTS, { seed: 9 }), drain('h3', FINITE, HOSTS, { seed: 9 }));
});

test('a host with no workloads has nothing to send', () => {
  const traffic = hostTraffic('h3', [], contextFor('h3', HOSTS));
  assert.equal(traffic.next(), null);
  assert.deepEqual(traffic.connections(), []);
});
