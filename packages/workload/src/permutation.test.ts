import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { randomDerangement } from './derangement.js';
import { hostTraffic } from './host-traffic.js';
import type { PermutationWorkload } from './permutation-schema.js';
import { permutationOf } from './permutation.js';
import { contextFor, drain } from './testing.js';

const HOSTS = Array.from({ length: 8 }, (_, i) => `h${i + 1}`);
const perm: PermutationWorkload = { kind: 'permutation', index: 4, hosts: 'all', sizeBytes: 4096, startPs: 0, transport: 'rdma', dscp: 26 };

/** Each host computes its own destination alone, as it would in its own process. */
function destinations(seed: number, hosts: readonly string[] = HOSTS): string[] {
  return hosts.map((h) => {
    const posts = drain(h, [perm], hosts, { seed });
    assert.equal(posts.length, 1);
    return posts[0]!.to;
  });
}

test('derangements: no fixed point, every value once, over many streams and sizes', () => {
  for (let n = 2; n <= 12; n++) {
    for (let s = 0; s < 50; s++) {
      const d = randomDerangement(n, new Rng(s, 'x', 'd'));
      assert.deepEqual([...d].sort((a, b) => a - b), [...Array(n).keys()]);
      assert.ok(d.every((v, i) => v !== i), `${d} has a fixed point`);
    }
  }
  assert.deepEqual(randomDerangement(2, new Rng(1, 'x', 'd')), [1, 0], 'the only derangement of 2');
  assert.throws(() => randomDerangement(1, new Rng(1, 'x', 'd')), RangeError);
});

test('every host computes its part of the same derangement, without talking to the others', () => {
  const to = destinations(7);
  assert.ok(to.every((dest, i) => dest !== HOSTS[i]), 'nobody sends to itself');
  assert.deepEqual([...to].sort(), [...HOSTS].sort(), 'everybody receives exactly once');
  // It is the draw of the first host's stream workload:4.
  const expected = randomDerangement(8, new Rng(7, 'h1', 'workload:4')).map((i) => HOSTS[i]);
  assert.deepEqual(to, expected);
  assert.deepEqual(permutationOf(4, HOSTS, 7).map((i) => HOSTS[i]), expected);
});

test('the same seed gives the same permutation, another seed another one', () => {
  assert.deepEqual(destinations(7), destinations(7));
  assert.notDeepEqual(destinations(7), destinations(8));
  // The order the pod lists its hosts in does not matter: `all` sorts them.
  assert.deepEqual(destinations(7, [...HOSTS].reverse()).reverse(), destinations(7));
});

test('the first host\'s own stream is left alone, and hosts outside the set send nothing', () => {
  const ctx = contextFor('h1', HOSTS, { seed: 7 });
  hostTraffic('h1', [perm], ctx).next();
  assert.equal(ctx.rng('workload:4').nextU32(), new Rng(7, 'h1', 'workload:4').nextU32());
  assert.deepEqual(drain('h8', [{ ...perm, hosts: ['h1', 'h2', 'h3'] }], HOSTS), []);
});
