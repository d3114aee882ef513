/**
 * A drill with `plots: {slowdown: true}` draws FCT slowdown by message size across its variants
 * (HPCC's Figure 11): FB_Hadoop sizes from workloads/cdf at two loads on a two-ToR tree.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runDrill } from '@rocelab/cli/drill';
import { loadDrill } from '@rocelab/drill';
import { readInputFile } from '@rocelab/topology';
import { ROOT } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-slowdown-drill-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const CDF = join(ROOT, 'workloads', 'cdf', 'FbHdp_distribution.txt');

const DRILL = `title: slowdown by size at two loads
duration: 2ms
seed: 5
plots: {slowdown: true}
topology:
  name: tree
  defaults: {link: {rate: 40G, latency: 1us, mtu: 1024}}
  nodes:
    - {name: sw1, role: tor, subnet: 10.0.1.0/24}
    - {name: sw2, role: tor, subnet: 10.0.2.0/24}
    - {name: h1, role: host, ip: 10.0.1.1}
    - {name: h2, role: host, ip: 10.0.1.2}
    - {name: h3, role: host, ip: 10.0.2.1}
    - {name: h4, role: host, ip: 10.0.2.2}
  links:
    - {a: h1:p0, b: sw1:p1}
    - {a: h2:p0, b: sw1:p2}
    - {a: h3:p0, b: sw2:p1}
    - {a: h4:p0, b: sw2:p2}
    - {a: sw1:p9, b: sw2:p9}
variants:
  - {name: load-30, workloads: [{kind: poisson, load: 0.3, sizes: {cdf: ${CDF}}, stop: 1500us}]}
  - {name: load-60, workloads: [{kind: poisson, load: 0.6, sizes: {cdf: ${CDF}}, stop: 1500us}]}
expect:
  - {kind: noLosslessDrops}
`;

test('plots: {slowdown: true}: fct-slowdown-by-size.svg across the variants, listed in the report', { timeout: 300_000 }, async () => {
  const file = join(dir, 'slowdown.yaml');
  writeFileSync(file, DRILL);
  const drill = loadDrill(readInputFile(file, 'drill file'), file, { readText: (path) => readInputFile(path, 'topology file') });
  assert.equal(drill.plotSlowdown, true);
  const out = join(dir, 'out');
  const report = await runDrill(drill, out, { mode: 'inproc', workers: null, image: 'unused', variant: null, out: null, json: true });
  const ref = report.plots.find((p) => p.file === 'fct-slowdown-by-size.svg');
  assert.deepEqual(ref, { file: 'fct-slowdown-by-size.svg', title: 'FCT slowdown by message size (P50, P95, P99)', variant: null });
  const svg = readFileSync(join(out, 'fct-slowdown-by-size.svg'), 'utf8');
  for (const text of ['load-30', 'load-60', 'p99', '100% ≤']) assert.ok(svg.includes(text), text);
  assert.ok(readFileSync(join(out, 'report.md'), 'utf8').includes('fct-slowdown-by-size.svg'));
  // Each variant's fct.csv carries its groups.
  for (const v of ['load-30', 'load-60']) assert.match(readFileSync(join(out, v, 'trace', 'fct.csv'), 'utf8'), /,bucket\n[\s\S]*,95-100%\n/);
  assert.ok(existsSync(join(out, 'report.html')));
});
