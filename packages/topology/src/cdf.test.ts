import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { cdfQuantile, hostTraffic, meanSizeBytes, type PoissonWorkload } from '@rocelab/workload';
import { CdfError, cdfPath, parseCdf, readCdfFile } from './cdf.js';
import { resolvedWorkloads } from './extensions.js';
import { loadTopologyFile, parseTopology } from './load.js';
import { assertProblem, fixture } from './testing.js';

const WEBSEARCH = fixture('cdf/websearch-small.txt');

function cdfError(run: () => unknown): CdfError {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof CdfError, String(err));
    return err;
  }
  assert.fail('no CdfError');
}

test('the fixture: percent scale, comments, whitespace; hand-computed median, 90th percentile and mean', () => {
  const points = readCdfFile(WEBSEARCH);
  assert.equal(points.length, 12);
  assert.deepEqual(points[0], { sizeBytes: 0, probability: 0 });
  assert.deepEqual(points[5], { sizeBytes: 80000, probability: 0.53 });
  assert.deepEqual(points.at(-1), { sizeBytes: 30_000_000, probability: 1 });
  assert.ok(Math.abs(cdfQuantile(points, 0.5) - (50_000 + (30_000 * 10) / 13)) < 1e-6);
  assert.equal(cdfQuantile(points, 0.9), 5_000_000);
  assert.ok(Math.abs(meanSizeBytes({ kind: 'cdf', source: 'x', points }) - 1_711_250) < 1e-6);
});

test('fractions and percent both load; the scale comes from the last line', () => {
  assert.deepEqual(parseCdf('100 0.5\n200 1\n', 'f.txt'), [
    { sizeBytes: 100, probability: 0.5 },
    { sizeBytes: 200, probability: 1 },
  ]);
  assert.deepEqual(parseCdf('\t100\t50   # percent\n\n200 100\n', 'p.txt'), [
    { sizeBytes: 100, probability: 0.5 },
    { sizeBytes: 200, probability: 1 },
  ]);
});

test('errors name the file and line, what was expected and what was there', () => {
  const cases: Array<[string, number, string, string]> = [
    ['# sizes\n100 0.5\n150\n200 1\n', 3, 'a line "size cumulative_probability" of two non-negative numbers', '150'],
    ['100 0.5\n-5 0.7\n200 1\n', 2, 'a line "size cumulative_probability"', '-5 0.7'],
    ['100 0.5\n200 0.4\n300 1\n', 2, "a cumulative probability not below the previous line's 0.5", '0.4'],
    ['100 0.5\n50 0.7\n300 1\n', 2, "a size not below the previous line's 100", '50'],
    ['100 0.5\n200 0.9\n', 2, 'a last cumulative probability of exactly 1 (or 100 in a percent file)', '0.9'],
    ['100 50\n200 99.5\n', 2, 'a last cumulative probability of exactly 1', '99.5'],
  ];
  for (const [text, line, expected, actual] of cases) {
    const err = cdfError(() => parseCdf(text, 'c.txt'));
    assert.equal(err.line, line, text);
    assert.ok(err.expected.startsWith(expected), `${err.expected} (${text})`);
    assert.equal(err.actual, actual);
    assert.equal(err.message, `c.txt:${line}: expected ${err.expected}, got ${JSON.stringify(actual)}`);
  }
  assert.equal(cdfError(() => parseCdf('# only comments\n\n', 'e.txt')).message, 'e.txt: expected at least one "size cumulative_probability" line, got "none"');
  assert.equal(cdfError(() => readCdfFile('/nonexistent/x.txt')).actual, 'ENOENT');
});

test('relative CDF paths start at the topology file\'s directory', () => {
  assert.equal(cdfPath('pods/a.yaml', 'cdf/x.txt'), join('pods', 'cdf/x.txt'));
  assert.equal(cdfPath('<inline>', 'cdf/x.txt'), 'cdf/x.txt');
  assert.equal(cdfPath('pods/a.yaml', '/abs/x.txt'), '/abs/x.txt');
});

test('a bad CDF file fails the topology with the item\'s path and the CDF file:line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-cdf-'));
  writeFileSync(join(dir, 'bad.txt'), '100 0.5\n200 0.4\n300 1\n');
  const yaml = `name: t\nnodes:\n  - {name: s, role: switch}\n  - {name: h, role: host, ip: 10.0.0.1}\n  - {name: g, role: host, ip: 10.0.0.2}\nlinks:\n  - {a: h:p0, b: s:p1}\n  - {a: g:p0, b: s:p2}\nworkloads:\n  - {kind: poisson, load: 0.3, sizes: {cdf: CDF}}\n`;
  const file = join(dir, 'pod.yaml');
  assertProblem(() => parseTopology(yaml.replace('CDF', 'bad.txt'), file), {
    file,
    code: 'value',
    path: 'workloads[0].sizes.cdf',
    expected: `a CDF file of "size cumulative_probability" lines (${join(dir, 'bad.txt')}:2: expected a cumulative probability not below the previous line's 0.5)`,
    actual: '"0.4"',
  });
  assertProblem(() => parseTopology(yaml.replace('CDF', 'missing.txt'), file), { file, code: 'value', path: 'workloads[0].sizes.cdf', expected: `(${join(dir, 'missing.txt')}: expected a readable CDF file)`, actual: '"ENOENT"' });
});

test('poisson sizes from the fixture CDF reproduce its median and 90th percentile', () => {
  const pod = loadTopologyFile(fixture('workloads.yaml'));
  const poisson = resolvedWorkloads(pod).find((w): w is PoissonWorkload => w.kind === 'poisson')!;
  assert.equal(poisson.sizes.kind === 'cdf' && poisson.sizes.source, 'cdf/websearch-small.txt');
  const hosts = pod.nodes.filter((n) => n.role === 'host').map((n) => n.name);
  const traffic = hostTraffic('h2', [{ ...poisson, stopPs: null }], { hosts, seed: pod.seed, linkRateBps: () => 40e9, rng: (p) => new Rng(pod.seed, 'h2', p) });
  const sizes: number[] = [];
  while (sizes.length < 40_000) sizes.push(traffic.next()!.sizeBytes);
  sizes.sort((a, b) => a - b);
  const median = sizes[sizes.length / 2]!;
  const p90 = sizes[sizes.length * 0.9]!;
  assert.ok(Math.abs(median / 73_077 - 1) < 0.03, `median ${median}`);
  assert.ok(Math.abs(p90 / 5_000_000 - 1) < 0.03, `90th percentile ${p90}`);
});
