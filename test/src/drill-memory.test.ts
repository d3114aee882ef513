/**
 * A drill's memory stays flat across its variants (issue 22: a fuzzed drill of 5,000 variants
 * grew with each). The runner keeps of a finished variant only its report figures and a few
 * numbers for what compares variants; its run result, node reports, trace tables and pod must
 * be garbage once its outputs are written. Checked by what is retained, not by timing: weak
 * references to each variant's data, a forced collection, and every earlier variant's data gone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runDrill } from '@rocelab/cli/drill';
import { loadDrill, MAX_DRILL_VARIANTS } from '@rocelab/drill';
import { readInputFile } from '@rocelab/topology';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const dir = mkdtempSync(join(tmpdir(), 'rocelab-drill-memory-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const VARIANTS = 6;

/** h1 → sw1 → h2 for 300 µs, traced as every drill variant is; the variants differ in their flow's size. */
function drillText(variants: number): string {
  const lines = [
    'title: memory across variants',
    'source: issue 22',
    'duration: 300us',
    'seed: 3',
    'topology:',
    '  name: tiny',
    '  defaults: {link: {rate: 40G, latency: 1us, mtu: 1024}}',
    '  nodes:',
    '    - {name: h1, role: host, ip: 10.0.1.1}',
    '    - {name: h2, role: host, ip: 10.0.1.2}',
    '    - {name: sw1, role: tor, subnet: 10.0.1.0/24}',
    '  links:',
    '    - {a: h1:p0, b: sw1:p1}',
    '    - {a: h2:p0, b: sw1:p2}',
    'variants:',
  ];
  for (let i = 1; i <= variants; i++) lines.push(`  - {name: v${i}, workloads: [{kind: flow, from: h1, to: h2, sizeBytes: ${i * 100}KB, start: 0us}]}`);
  lines.push(
    'expect:',
    '  - {kind: noLosslessDrops}',
    `  - {kind: goodputRatio, variantA: v${variants}, variantB: v1, flows: {to: h2}, during: 10us-290us, min: 0.5}`,
    `  - {kind: fctSlowdownRatio, variantA: v1, variantB: v2, flows: {to: h2}, percentile: 50, max: 10}`,
  );
  return `${lines.join('\n')}\n`;
}

test('a drill runner keeps no earlier variant: its result, node reports, trace tables and pod are collected as the next runs', { timeout: 300_000 }, async () => {
  const file = join(dir, 'memory.yaml');
  writeFileSync(file, drillText(VARIANTS));
  const drill = loadDrill(readInputFile(file, 'drill file'), file, { readText: (path) => readInputFile(path, 'topology file') });
  const held: Array<Array<{ what: string; ref: WeakRef<object> }>> = [];
  const alive: string[] = [];
  const heapMiB: number[] = [];
  const report = await runDrill(drill, join(dir, 'out'), { mode: 'inproc', workers: null, image: 'unused', variant: null, out: null, json: true }, async (data, result) => {
    assert.ok(result.nodes !== undefined && (data.tables['queue.csv'] ?? []).length > 0, 'the data watched is what a variant leaves: node reports and trace rows');
    held.push([
      { what: 'result', ref: new WeakRef(result) },
      { what: 'node reports', ref: new WeakRef(result.nodes) },
      { what: 'trace tables', ref: new WeakRef(data.tables) },
      { what: 'pod', ref: new WeakRef(data.pod) },
    ]);
    // An inproc drill runs without yielding to the event loop, and a weak reference keeps its
    // target for the rest of the task that made it: end the task before collecting.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    heapMiB.push(process.memoryUsage().heapUsed / 2 ** 20);
    // The variant before the one just told about: nothing but the runner can keep its data now.
    const earlier = held.length - 2;
    if (earlier >= 0) for (const { what, ref } of held[earlier]!) if (ref.deref() !== undefined) alive.push(`variant v${earlier + 1}'s ${what}, while v${held.length} ran`);
  });
  assert.equal(held.length, VARIANTS, 'every variant ran and was watched');
  assert.deepEqual(alive, [], `kept after their variant (heap after each variant, MiB: ${heapMiB.map((m) => m.toFixed(1)).join(', ')})`);
  // What the runner keeps is still enough for the report: every expectation, the ratios across variants and the CDFs.
  assert.equal(report.variants.length, VARIANTS);
  assert.equal(report.acrossVariants.length, 2);
  assert.ok(report.acrossVariants.every((o) => o.value !== null), JSON.stringify(report.acrossVariants));
  assert.ok(report.plots.some((p) => p.file === 'fct-slowdown.svg'), 'the CDF across variants is drawn');
  assert.equal(JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')).variants.length, VARIANTS);
});

test(`a drill of more than ${MAX_DRILL_VARIANTS} variants is refused before any variant is built (exit 2, docs/errors.md)`, () => {
  const file = join(dir, 'sweep.yaml');
  writeFileSync(file, drillText(MAX_DRILL_VARIANTS + 1));
  assert.throws(() => loadDrill(readInputFile(file, 'drill file'), file, { readText: () => '' }), {
    name: 'DrillError',
    message: `${file}: variants: expected at most ${MAX_DRILL_VARIANTS} variants (rocelab's limit: each runs a whole pod; split a bigger sweep into several drills), got ${MAX_DRILL_VARIANTS + 1} variants`,
  });
  writeFileSync(file, drillText(MAX_DRILL_VARIANTS));
  assert.equal(loadDrill(readInputFile(file, 'drill file'), file, { readText: () => '' }).variants.length, MAX_DRILL_VARIANTS, 'the limit itself is allowed');
});
