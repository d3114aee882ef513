/**
 * The HPCC paper's size distributions (workloads/cdf, copied from its traffic_gen/) load as they
 * are, have the mean its `custom_rand.py` `getAvg` gives, and a `poisson` workload drawing from
 * them offers the load it is asked for: traffic_gen.py's own example (320 hosts at 100 Gb/s,
 * 30 % load) over a window of virtual time, offered bytes over capacity, within 4σ of the
 * compound-Poisson spread the CDF itself implies.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { readCdfFile } from '@rocelab/topology';
import { hostTraffic, meanSizeBytes, type CdfPoint, type PoissonWorkload, type SizeDistribution } from '@rocelab/workload';
import { ROOT } from './harness.js';

const cdf = (name: string): SizeDistribution => ({ kind: 'cdf', source: name, points: readCdfFile(join(ROOT, 'workloads', 'cdf', name)) });

/** E[X²] of the piecewise-linear CDF: a uniform stretch [a, b] of mass w adds w·(a² + ab + b²)/3. */
function secondMoment(points: readonly CdfPoint[]): number {
  let m = points[0]!.probability * points[0]!.sizeBytes ** 2;
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1]!.sizeBytes, points[i]!.sizeBytes];
    m += ((points[i]!.probability - points[i - 1]!.probability) * (a * a + a * b + b * b)) / 3;
  }
  return m;
}

/** Offered bytes of every host's posts before `stopPs` (the generator ends there), over what their links carry in that time. */
function offeredLoad(sizes: SizeDistribution, o: { hosts: number; rateBps: number; load: number; stopPs: number; seed: number }): { load: number; messages: number } {
  const hosts = Array.from({ length: o.hosts }, (_, i) => `h${i + 1}`);
  const workload: PoissonWorkload = { kind: 'poisson', index: 0, hosts: 'all', load: o.load, sizes, startPs: 0, stopPs: o.stopPs, qpPerMessage: false, transport: 'rdma', dscp: 26 };
  let bytes = 0;
  let messages = 0;
  for (const host of hosts) {
    const streams = new Map<string, Rng>();
    const rng = (purpose: string): Rng => {
      let s = streams.get(purpose);
      if (s === undefined) streams.set(purpose, (s = new Rng(o.seed, host, purpose)));
      return s;
    };
    const traffic = hostTraffic(host, [workload], { hosts, seed: o.seed, linkRateBps: () => o.rateBps, rng });
    for (let post = traffic.next(); post !== null; post = traffic.next()) {
      bytes += post.sizeBytes;
      messages++;
    }
  }
  return { load: (bytes * 8) / (o.hosts * o.rateBps * (o.stopPs / 1e12)), messages };
}

test("the files load unchanged, with the mean of the script's getAvg", () => {
  const web = cdf('WebSearch_distribution.txt');
  const hadoop = cdf('FbHdp_distribution.txt');
  assert.equal(web.kind === 'cdf' && web.points.length, 12);
  assert.equal(hadoop.kind === 'cdf' && hadoop.points.length, 20);
  // Σ (x_{i-1} + x_i)/2 · (p_i − p_{i-1}) / 100, by hand: 171,125,000 / 100 and 12,042,075 / 100.
  assert.ok(Math.abs(meanSizeBytes(web) - 1_711_250) < 1e-6, String(meanSizeBytes(web)));
  assert.ok(Math.abs(meanSizeBytes(hadoop) - 120_420.75) < 1e-6, String(meanSizeBytes(hadoop)));
});

for (const [name, stopMs] of [['WebSearch_distribution.txt', 100], ['FbHdp_distribution.txt', 40]] as const) {
  test(`poisson at 30 % load with ${name}: offered bytes over capacity within 4σ of 0.3 (320 hosts at 100 Gb/s, ${stopMs} ms)`, () => {
    const sizes = cdf(name);
    const o = { hosts: 320, rateBps: 100e9, load: 0.3, stopPs: stopMs * 1e9, seed: 1 };
    const { load, messages } = offeredLoad(sizes, o);
    // Bytes in the window are a compound Poisson sum: relative spread sqrt(E[X²] / (N·E[X]²)) for N expected messages.
    const mean = meanSizeBytes(sizes);
    const expected = (o.hosts * o.rateBps * o.load * (o.stopPs / 1e12)) / 8 / mean;
    const sigma = Math.sqrt(secondMoment(sizes.kind === 'cdf' ? sizes.points : []) / (expected * mean * mean));
    assert.ok(sigma < 0.02, `the window is long enough for a 2 % σ (σ = ${sigma})`);
    assert.ok(Math.abs(messages - expected) < 4 * Math.sqrt(expected), `${messages} messages, expected ${expected.toFixed(0)}`);
    process.stdout.write(`# ${name}: ${messages} messages, offered load ${load.toFixed(4)}, σ ${(sigma * 100).toFixed(2)} %\n`);
    assert.ok(Math.abs(load / o.load - 1) < 4 * sigma, `offered load ${load.toFixed(4)}, expected 0.3 ± ${(4 * sigma * 0.3).toFixed(4)}`);
  });
}
