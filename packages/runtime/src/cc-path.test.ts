import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from '@rocelab/topology';
import { podCcPath } from './models.js';
import { podContext } from './pod-context.js';

test('the pod\'s base RTT and BDP follow third.cc: 2 × latency + one packet\'s serialization per hop, over the slowest hop', () => {
  // HPCC ns-3's mix/topology.txt in small: two hosts on one switch, 100 Gb/s, 1 µs, 1000 B packets.
  // maxRtt (third.cc CalculateRoute, main): 2 hops × 2 × 1 µs + 2 × 80 ns to serialize 1000 B = 4160 ns;
  // maxBdp = 4160 ns × 100 Gb/s / 8 = 52,000 B.
  const pod = parseTopology(`
name: star
defaults:
  link: {rate: 100G, latency: 1us, mtu: 1000}
nodes:
  - {name: sw, role: tor, subnet: 11.0.0.0/16}
  - {name: h1, role: host, ip: 11.0.1.1}
  - {name: h2, role: host, ip: 11.0.2.1}
links:
  - {a: h1:p0, b: sw:p1}
  - {a: h2:p0, b: sw:p2}
`);
  assert.deepEqual(podCcPath(podContext(pod, 1)), { baseRttPs: 4_160_000, bdpBytes: 52_000 });
});
