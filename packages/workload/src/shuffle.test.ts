import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowIdParts } from './flow-id.js';
import { hostTraffic } from './host-traffic.js';
import type { ShuffleWorkload } from './shuffle-schema.js';
import { contextFor, drain } from './testing.js';

const HOSTS = ['h1', 'h2', 'h3', 'h4', 'h5'];
const shuffle: ShuffleWorkload = { kind: 'shuffle', index: 0, hosts: 'all', sizeBytes: 256, startPs: 3, transport: 'rdma', dscp: 26 };

test('every ordered pair of distinct hosts exactly once, all at the start', () => {
  const pairs = HOSTS.flatMap((h) => drain(h, [shuffle], HOSTS).map((p) => `${h}->${p.to}`));
  assert.equal(pairs.length, 5 * 4);
  assert.equal(new Set(pairs).size, 20);
  assert.ok(pairs.every((p) => p.split('->')[0] !== p.split('->')[1]));
  assert.ok(HOSTS.every((h) => drain(h, [shuffle], HOSTS).every((p) => p.atPs === 3 && p.sizeBytes === 256)));
});

test('a host posts to the next hosts in rotation, one connection each, seq = rotation step', () => {
  const posts = drain('h4', [shuffle], HOSTS);
  assert.deepEqual(posts.map((p) => p.to), ['h5', 'h1', 'h2', 'h3']);
  assert.deepEqual(posts.map((p) => flowIdParts(p.flow)), [0, 1, 2, 3].map((seq) => ({ workload: 0, slot: 3, seq })));
  assert.deepEqual(hostTraffic('h4', [shuffle], contextFor('h4', HOSTS)).connections().map((c) => c.key), ['w0:h4->h1', 'w0:h4->h2', 'w0:h4->h3', 'w0:h4->h5']);
});

test('an explicit set: only its hosts, in its order', () => {
  const some: ShuffleWorkload = { ...shuffle, hosts: ['h3', 'h1'] };
  assert.deepEqual(drain('h3', [some], HOSTS).map((p) => [p.to, flowIdParts(p.flow).slot]), [['h1', 0]]);
  assert.deepEqual(drain('h1', [some], HOSTS).map((p) => [p.to, flowIdParts(p.flow).slot]), [['h3', 1]]);
  assert.deepEqual(drain('h2', [some], HOSTS), []);
});
