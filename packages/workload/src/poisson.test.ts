import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowIdParts } from './flow-id.js';
import type { PoissonWorkload } from './poisson-schema.js';
import { exponentialPs, meanGapPs } from './poisson.js';
import { hostTraffic } from './host-traffic.js';
import { contextFor, drain } from './testing.js';

const HOSTS = ['h1', 'h2', 'h3', 'h4'];
const US = 1_000_000;
const poisson = (fields: Partial<PoissonWorkload> = {}): PoissonWorkload => ({ kind: 'poisson', index: 3, hosts: 'all', load: 0.3, sizes: { kind: 'fixed', sizeBytes: 1000 }, startPs: 50 * US, stopPs: null, qpPerMessage: false, transport: 'rdma', dscp: 26, ...fields });

test('the rate: 64 kB messages at half of 40 Gb/s arrive every 25.6 us on average', () => {
  // 1/λ = 8 × 64,000 B / (0.5 × 40e9 bit/s) = 25.6e-6 s.
  assert.equal(meanGapPs(0.5, 40e9, 64_000), 25_600_000);
  // A draw u maps to −ln(1 − u) means: u = 1 − 1/e is exactly one mean.
  assert.equal(exponentialPs(1 - Math.exp(-1), 25_600_000), 25_600_000);
  assert.equal(exponentialPs(0, 25_600_000), 0);
});

test('the mean gap over 20,000 arrivals is within 3σ of 1/λ, and the offered load is `load` of the link', () => {
  const n = 20_000;
  const posts = drain('h2', [poisson()], HOSTS, { limit: n });
  assert.equal(posts.length, n);
  const mean = meanGapPs(0.3, 40e9, 1000); // 666,666.7 ps
  const sampleMean = (posts.at(-1)!.atPs - 50 * US) / n;
  assert.ok(Math.abs(sampleMean - mean) < (3 * mean) / Math.sqrt(n), `mean gap ${sampleMean} ps, expected ${mean} ± ${(3 * mean) / Math.sqrt(n)}`);
  const load = (n * 1000 * 8) / ((posts.at(-1)!.atPs - 50 * US) / 1e12) / 40e9;
  assert.ok(Math.abs(load - 0.3) < 0.01, `offered load ${load}`);
  // Times never go back; sequence numbers count up in the host's slot (h2 is slot 1 of `all`).
  assert.ok(posts.every((p, i) => i === 0 || p.atPs >= posts[i - 1]!.atPs));
  assert.deepEqual(flowIdParts(posts[41]!.flow), { workload: 3, slot: 1, seq: 41 });
});

test('the link rate scales the arrival rate: a 10 Gb/s host sends a quarter as often', () => {
  const fast = drain('h1', [poisson({ stopPs: 50 * US + 10_000 * US })], HOSTS, { rateBps: 40e9 }).length;
  const slow = drain('h1', [poisson({ stopPs: 50 * US + 10_000 * US })], HOSTS, { rateBps: 10e9 }).length;
  assert.ok(Math.abs(fast / slow - 4) < 0.3, `${fast} vs ${slow} arrivals`);
});

test('destinations: uniform among the other hosts, never itself, a connection per peer', () => {
  const posts = drain('h3', [poisson()], HOSTS, { limit: 30_000 });
  const counts = new Map<string, number>();
  for (const p of posts) counts.set(p.to, (counts.get(p.to) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort(), ['h1', 'h2', 'h4']);
  for (const c of counts.values()) assert.ok(Math.abs(c / 30_000 - 1 / 3) < 0.015, `share ${c / 30_000}`);
  assert.ok(posts.every((p) => p.connection === `w3:h3->${p.to}` && p.opcode === 'write' && !p.probe));
});

test('sizes from a CDF reproduce its quantiles and mean', () => {
  // P(≤ 10 kB) = 0.5, P(≤ 20 kB) = 0.75, P(≤ 100 kB) = 1; mean = 0.5·5k + 0.25·15k + 0.25·60k = 21,250 B.
  const points = [
    { sizeBytes: 0, probability: 0 },
    { sizeBytes: 10_000, probability: 0.5 },
    { sizeBytes: 20_000, probability: 0.75 },
    { sizeBytes: 100_000, probability: 1 },
  ];
  const sizes = drain('h1', [poisson({ sizes: { kind: 'cdf', source: 'inline', points } })], HOSTS, { limit: 20_000 })
    .map((p) => p.sizeBytes)
    .sort((a, b) => a - b);
  const quantile = (q: number) => sizes[Math.floor(q * sizes.length)]!;
  assert.ok(Math.abs(quantile(0.5) / 10_000 - 1) < 0.03, `median ${quantile(0.5)}`);
  assert.ok(Math.abs(quantile(0.75) / 20_000 - 1) < 0.03, `75th percentile ${quantile(0.75)}`);
  assert.ok(Math.abs(quantile(0.25) / 5_000 - 1) < 0.05, `25th percentile ${quantile(0.25)}`);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  assert.ok(Math.abs(mean / 21_250 - 1) < 0.03, `mean ${mean}`);
  assert.ok(sizes[0]! >= 1 && Number.isInteger(sizes[0]!), 'sizes are whole bytes, at least 1');
});

test('stop: no arrival at or after it, then the traffic ends', () => {
  const stopPs = 50 * US + 200 * meanGapPs(0.3, 40e9, 1000);
  const posts = drain('h4', [poisson({ stopPs })], HOSTS);
  assert.ok(posts.length > 150 && posts.length < 250, `${posts.length} arrivals`);
  assert.ok(posts.every((p) => p.atPs > 50 * US && p.atPs < stopPs));
});

test('deterministic: the same seed gives the same posts, another seed others', () => {
  const a = drain('h1', [poisson()], HOSTS, { limit: 100, seed: 5 });
  assert.deepEqual(drain('h1', [poisson()], HOSTS, { limit: 100, seed: 5 }), a);
  assert.notDeepEqual(drain('h1', [poisson()], HOSTS, { limit: 100, seed: 6 }), a);
});

test('qpPerMessage: each message on a QP of its own, listed before the run from a fresh stream, the same arrivals as without it', () => {
  const window = { startPs: 0, stopPs: 200 * US };
  const shared = drain('h1', [poisson(window)], HOSTS);
  const own = drain('h1', [poisson({ ...window, qpPerMessage: true })], HOSTS);
  assert.ok(own.length > 50, `${own.length} messages`);
  // The arrivals (time, peer, size, flow id) are the draws without the option; only the QP differs.
  assert.deepEqual(own.map(({ connection: _c, ...p }) => p), shared.map(({ connection: _c, ...p }) => p));
  assert.deepEqual(new Set(shared.map((p) => p.connection)).size, 3, 'one QP per peer');
  assert.equal(new Set(own.map((p) => p.connection)).size, own.length, 'one QP per message');
  assert.equal(own[0]!.connection, `w3:h1->${own[0]!.to}#0`);
  // The QP plan lists them from a context whose streams are fresh: the same keys, in message order.
  const listed = hostTraffic('h1', [poisson({ ...window, qpPerMessage: true })], contextFor('h1', HOSTS)).connections();
  assert.deepEqual([...listed.map((c) => c.key)].sort(), own.map((p) => p.connection).sort());
  assert.ok(listed.every((c) => own.some((p) => p.connection === c.key && p.to === c.to)), 'each QP goes to its message\'s peer');
});
