import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FctRow, TraceTables } from '@rocelab/results';
import { slowdownBySizeSeries } from './plot-series.js';
import { acrossVariantData, acrossVariantPlots } from './plots.js';

/** fct.csv rows: message k (from 1) has size 1000·k and slowdown `slow(k)`; one more did not complete. */
function tables(n: number, slow: (k: number) => number): TraceTables {
  const row = (k: number, done: boolean): FctRow => ({
    run: '', flow: String(k), from: 'h1', to: 'h2', sizeBytes: 1000 * k, startUs: 0, completionUs: done ? slow(k) : null, fctUs: done ? slow(k) : null, idealFctUs: 1, slowdown: done ? slow(k) : null, status: done ? 'success' : 'pending',
  });
  return { 'fct.csv': [...Array.from({ length: n }, (_, i) => row(i + 1, true)), row(n + 1, false)] };
}

test('the series: per variant and size group, P50/P95/P99, groups labelled by their place and the largest size', () => {
  const lossless = acrossVariantData('lossless', tables(40, (k) => 1 + k / 40), undefined);
  const lossy = acrossVariantData('lossy', tables(40, (k) => 2 + k / 20), undefined);
  assert.deepEqual([lossless.slowdown!.measured, lossless.slowdown!.notMeasured, lossless.slowdown!.buckets.length], [40, 1, 20]);
  const s = slowdownBySizeSeries([lossless, lossy].map((v) => ({ variant: v.name, summary: v.slowdown! })));
  assert.equal(s.groups.length, 20);
  // 40 messages, groups of 2: the first holds sizes 1000 and 2000.
  assert.deepEqual(s.groups.slice(0, 2), ['5% ≤2.0K', '10% ≤4.0K']);
  assert.deepEqual(s.variants, ['lossless', 'lossy']);
  assert.equal(s.points.length, 2 * 20 * 3);
  // lossy, first group: slowdowns [2.05, 2.1]: p50 = a[⌊2·0.5⌋] = 2.1, p99 = a[1] = 2.1.
  assert.deepEqual(s.points.filter((p) => p.variant === 'lossy' && p.group === '5% ≤2.0K').map((p) => [p.percentile, p.slowdown]), [['p50', 2.1], ['p95', 2.1], ['p99', 2.1]]);
});

test('the plot is drawn only when asked for, with a line per variant and percentile, the same bytes every time', async () => {
  const variants = [acrossVariantData('pfc', tables(30, (k) => 1 + k / 10), undefined), acrossVariantData('no-pfc', tables(30, (k) => 1 + k / 5), undefined)];
  assert.equal((await acrossVariantPlots(variants)).some((p) => p.ref.file === 'fct-slowdown-by-size.svg'), false);
  const warnings: string[] = [];
  const plots = await acrossVariantPlots(variants, (file, w) => warnings.push(`${file}: ${w}`), { slowdownBySize: true });
  const plot = plots.find((p) => p.ref.file === 'fct-slowdown-by-size.svg')!;
  assert.deepEqual(plot.ref, { file: 'fct-slowdown-by-size.svg', title: 'FCT slowdown by message size (P50, P95, P99)', variant: null });
  assert.deepEqual(warnings, []);
  for (const text of ['pfc', 'no-pfc', 'p50', 'p95', 'p99', '5% ≤1.0K', '100% ≤30.0K', 'FCT slowdown (FCT / ideal FCT)']) assert.ok(plot.svg.includes(text), text);
  // 2 variants × 3 percentiles = 6 lines.
  assert.equal(plot.svg.match(/<g class="mark-line role-mark/g)?.length, 6);
  const again = (await acrossVariantPlots(variants, undefined, { slowdownBySize: true })).find((p) => p.ref.file === 'fct-slowdown-by-size.svg')!;
  assert.equal(again.svg, plot.svg);
});
