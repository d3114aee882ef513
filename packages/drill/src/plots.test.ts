import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TraceTables } from '@rocelab/results';
import { MAX_POINTS_PER_SERIES } from './plot-series.js';
import { drillPlots, fileStems, scopeIds, type DrillPlotInput } from './plots.js';
import { sampleReport, sampleTables, sampleVariant } from './testing.js';

function input(tables: TraceTables, over: Partial<DrillPlotInput> = {}): DrillPlotInput & { warnings: string[] } {
  const warnings: string[] = [];
  const report = sampleReport({ variants: [sampleVariant('watchdog', false)] });
  return {
    report, tables: new Map([['watchdog', tables]]), runEndUs: new Map([['watchdog', 1000]]),
    onWarning: (file, message) => warnings.push(`${file}: ${message}`), warnings, ...over,
  };
}

/** How many elements of a Vega mark type (`line`, `rect`, `symbol`, …) the SVG draws as data (not axes or legends). */
function marks(svg: string, type: string): number {
  const group = svg.split(`class="mark-${type} role-mark `).slice(1).map((rest) => rest.slice(0, rest.indexOf('</g>')));
  return group.reduce((n, g) => n + (g.match(/<(path|line|text)\b/g) ?? []).length, 0);
}

test('every plot of a variant renders to an SVG with its marks, axis titles and the fault rule', async () => {
  const i = input(sampleTables());
  const plots = await drillPlots(i);
  assert.deepEqual(i.warnings, [], 'Vega-Lite and Vega had nothing to say about the specs');
  assert.deepEqual(plots.map((p) => p.ref.file), ['queue-watchdog.svg', 'pauses-watchdog.svg', 'rates-watchdog.svg', 'probes-watchdog.svg']);
  assert.ok(plots.every((p) => p.ref.variant === 'watchdog'));
  const svg = new Map(plots.map((p) => [p.ref.file.split('-')[0]!, p.svg]));
  for (const [kind, s] of svg) {
    assert.match(s, /^<svg [^>]*width="\d+" height="\d+"/, kind);
    assert.ok(s.includes('time (µs)'), `${kind}: x axis title`);
    assert.ok(marks(s, 'rule') >= 1 && s.includes('nicPauseStorm h4') && s.includes('nicPauseStorm ends'), `${kind}: fault start and end`);
  }
  assert.ok(svg.get('queue')!.includes('queue (bytes)'));
  assert.equal(marks(svg.get('queue')!, 'line'), 3, 'three queues by default');
  for (const q of ['tor2:p2:3', 'leaf2:down1:3', 'tor1:up1:3']) assert.ok(svg.get('queue')!.includes(q), q);
  assert.ok(!svg.get('queue')!.includes('spine1:down1:3'), 'an empty queue is not among the 3 deepest');
  assert.ok(svg.get('pauses')!.includes('transmitter') && marks(svg.get('pauses')!, 'rect') > 0);
  assert.ok(svg.get('rates')!.includes('throughput (Gb/s)') && svg.get('rates')!.includes('h1 qp2 → h4'));
  assert.equal(marks(svg.get('rates')!, 'line'), 2);
  assert.ok(svg.get('probes')!.includes('round trip (µs)') && marks(svg.get('probes')!, 'symbol') === 40, '39 round trips and 1 lost');
});

test('the heatmap leaves out ports that never paused', async () => {
  const pauses = (await drillPlots(input(sampleTables()))).find((p) => p.ref.file.startsWith('pauses-'))!.svg;
  assert.ok(pauses.includes('tor2:p2') && pauses.includes('sw1:p1'));
  assert.ok(!pauses.includes('sw1:p2'), 'only resumed, never paused');
  assert.ok(!pauses.includes('leaf2:down1'), 'no pfc.csv row at all');
});

test('no probes, no probe plot; no pause, no heatmap; named bottleneck queues', async () => {
  const tables = { ...sampleTables(), 'probes.csv': [], 'pfc.csv': [] };
  const plots = await drillPlots(input(tables, { bottleneckQueues: ['leaf2:down1:3', 'nowhere:p9:3'] }));
  assert.deepEqual(plots.map((p) => p.ref.file), ['queue-watchdog.svg', 'rates-watchdog.svg']);
  const queue = plots[0]!.svg;
  assert.equal(marks(queue, 'line'), 1);
  assert.ok(queue.includes('not in queue.csv: nowhere:p9:3'));
});

test('the same input gives the same bytes, also when rendered concurrently', async () => {
  const a = await drillPlots(input(sampleTables()));
  const [b, c] = await Promise.all([drillPlots(input(sampleTables())), drillPlots(input(sampleTables()))]);
  assert.deepEqual(b, a);
  assert.deepEqual(c, a);
  // Ids are the plot's own: the files can share one HTML page.
  const ids = a.flatMap((p) => [...p.svg.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!));
  assert.ok(ids.length > 0);
  assert.equal(new Set(ids).size, ids.length);
});

test('a long queue.csv is downsampled: at most MAX_POINTS_PER_SERIES points per line, and the SVG stays small', async () => {
  const tables = sampleTables({ queueStepUs: 0.01 }); // 100,001 rows per queue
  assert.ok(tables['queue.csv']!.length > 400_000);
  const queue = (await drillPlots(input(tables)))[0]!.svg;
  const lines = [...queue.matchAll(/class="mark-line [^"]*"[^>]*><path [^>]*\bd="([^"]*)"/g)].map((m) => m[1]!);
  assert.equal(lines.length, 3);
  for (const d of lines) assert.ok((d.match(/[ML]/g) ?? []).length <= MAX_POINTS_PER_SERIES, `${(d.match(/[ML]/g) ?? []).length} points`);
  assert.ok(queue.length < 300_000, `${queue.length} bytes`);
});

test('names from the trace are text in the SVG; variant names become safe, distinct file names', async () => {
  const tables = sampleTables({ node: '<script>alert(1)</script>' });
  const report = sampleReport({ variants: [sampleVariant('a/b <x>', false)] });
  const plots = await drillPlots({ report, tables: new Map([['a/b <x>', tables]]), runEndUs: new Map([['a/b <x>', 1000]]) });
  assert.deepEqual(plots.map((p) => p.ref.file), ['queue-a-b-x.svg', 'pauses-a-b-x.svg', 'rates-a-b-x.svg', 'probes-a-b-x.svg']);
  for (const p of plots) assert.ok(!/<script/i.test(p.svg), p.ref.file);
  assert.ok(plots[0]!.svg.includes('&lt;script&gt;alert(1)&lt;/script&gt;:p2:3'));
  assert.deepEqual([...fileStems(['a', 'A', 'a/b', 'a b', '..', '']).values()], ['a', 'A-2', 'a-b', 'a-b-2', 'variant', 'variant-2']);
});

test('scopeIds renumbers ids and their references, and only those', () => {
  const svg = '<svg><clipPath id="clip7"><rect/></clipPath><g clip-path="url(#clip7)"/><linearGradient id="gradient_0"/><path fill="url(#gradient_0)"/><use href="#clip7"/><path fill="url(#other)"/></svg>';
  assert.equal(
    scopeIds(svg, 'queue-x y'),
    '<svg><clipPath id="rl-queue-x_y-1"><rect/></clipPath><g clip-path="url(#rl-queue-x_y-1)"/><linearGradient id="rl-queue-x_y-2"/><path fill="url(#rl-queue-x_y-2)"/><use href="#rl-queue-x_y-1"/><path fill="url(#other)"/></svg>',
  );
});
