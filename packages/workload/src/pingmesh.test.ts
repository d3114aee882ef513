import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowIdParts } from './flow-id.js';
import { hostTraffic } from './host-traffic.js';
import type { PingmeshWorkload } from './pingmesh-schema.js';
import { contextFor, drain } from './testing.js';

const HOSTS = ['h1', 'h2', 'h3'];
const US = 1_000_000;
const mesh: PingmeshWorkload = { kind: 'pingmesh', index: 5, hosts: 'all', intervalPs: 90 * US, sizeBytes: 64, startPs: 10 * US, stopPs: 200 * US, transport: 'rdma', dscp: 26 };

test('every interval each host probes every other, spread over the interval in rotation', () => {
  // 3 hosts: 2 probes per round, 45 us apart; h1 probes h2 then h3, h2 probes h3 then h1.
  const at = (host: string) => drain(host, [mesh], HOSTS).map((p) => [p.atPs / US, p.to, flowIdParts(p.flow).seq]);
  assert.deepEqual(at('h1'), [
    [10, 'h2', 0],
    [55, 'h3', 1],
    [100, 'h2', 2],
    [145, 'h3', 3],
    [190, 'h2', 4],
  ]);
  assert.deepEqual(at('h2'), [
    [10, 'h3', 0],
    [55, 'h1', 1],
    [100, 'h3', 2],
    [145, 'h1', 3],
    [190, 'h3', 4],
  ]);
  // At any instant the probes go to distinct receivers.
  for (const t of [10, 55, 100, 145]) {
    const targets = HOSTS.flatMap((h) => drain(h, [mesh], HOSTS).filter((p) => p.atPs === t * US).map((p) => p.to));
    assert.equal(new Set(targets).size, 3);
  }
});

test('probes are small WRITEs on dedicated probe connections', () => {
  const posts = drain('h3', [mesh], HOSTS);
  assert.ok(posts.every((p) => p.probe && p.opcode === 'write' && p.sizeBytes === 64 && p.connection === `w5:h3->${p.to}`));
  assert.deepEqual(hostTraffic('h3', [mesh], contextFor('h3', HOSTS)).connections(), [
    { key: 'w5:h3->h1', to: 'h1', probe: true, dscp: 26, transport: 'rdma', rateBps: null },
    { key: 'w5:h3->h2', to: 'h2', probe: true, dscp: 26, transport: 'rdma', rateBps: null },
  ]);
});

test('without stop, probing never ends', () => {
  const posts = drain('h1', [{ ...mesh, stopPs: null }], HOSTS, { limit: 10_000 });
  assert.equal(posts.length, 10_000);
  assert.equal(posts.at(-1)!.atPs, 10 * US + 4999 * 90 * US + 45 * US);
});
