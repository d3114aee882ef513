/**
 * The drill report's plots as SVG, one file per plot and variant: queue depth, the pause
 * heatmap, per-flow throughput and (when the variant sent probes) probe round trips, each with
 * the variant's faults as vertical rules; and across variants, their FCT slowdown and probe
 * round-trip CDFs. Vega-Lite compiles each spec and Vega renders it
 * headless (`renderer: 'none'`, no canvas, no DOM). The same input gives the same bytes: data
 * is inline, text is measured by Vega's estimate, and the `id`s Vega numbers from module-wide
 * counters are renumbered per plot, under the plot's own prefix, so several SVGs can also share
 * one HTML page without one plot's clip path or gradient standing in for another's.
 */
import { slowdownBuckets, type NodeReport, type SlowdownSummary, type TraceTables } from '@rocelab/results';
import { View, parse } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { faultMarks, heldTimes, holdBarsOf, pauseHeatmap, probeSeries, queueSeries, rateSeries, cdfByVariant, slowdownBySizeSeries, MAX_PAUSE_ROWS, type HeldTime } from './plot-series.js';
import { cdfSpec, holdSpec, pauseSpec, probeSpec, queueSpec, rateSpec, slowdownBySizeSpec } from './plot-specs.js';
import type { DrillReport, PlotRef, VariantOutcome } from './report-model.js';

export interface DrillPlotInput {
  report: DrillReport;
  /** Each variant's trace tables, by variant name. */
  tables: ReadonlyMap<string, TraceTables>;
  /** Each variant's run end in trace time (µs); without it, the last time in its tables. */
  runEndUs: ReadonlyMap<string, number>;
  /** Queues to plot (`node:port:priority`); default the 3 with the deepest peak. */
  bottleneckQueues?: readonly string[];
  /** Each variant's trace origin (its first post) in virtual µs: fault times are virtual, trace times are not. Default 0. */
  traceOriginUs?: ReadonlyMap<string, number>;
  /** Each variant's node reports: with a credit link anywhere, one more plot compares how long each node was held. */
  nodes?: ReadonlyMap<string, readonly NodeReport[]>;
  /** Told what Vega-Lite or Vega logged while rendering a plot (a sign of a bad spec, not of bad data). */
  onWarning?: (file: string, message: string) => void;
  /** The drill asked for FCT slowdown by size (`plots: {slowdown: true}`). */
  slowdownBySize?: boolean;
}

export interface RenderedPlot {
  ref: PlotRef;
  svg: string;
}

/** The plots of every variant that has tables, in report order (queue, pauses, rates, probes), then those across variants. */
export async function drillPlots(input: DrillPlotInput): Promise<RenderedPlot[]> {
  const variants = input.report.variants.filter((v) => input.tables.has(v.name));
  const stems = fileStems(variants.map((v) => v.name));
  const out: RenderedPlot[] = [];
  for (const v of variants) {
    const tables = input.tables.get(v.name)!;
    out.push(
      ...(await variantPlots({
        variant: v,
        stem: stems.get(v.name)!,
        tables,
        endUs: input.runEndUs.get(v.name) ?? lastTimeUs(tables),
        traceOriginUs: input.traceOriginUs?.get(v.name) ?? 0,
        ...(input.bottleneckQueues === undefined ? {} : { bottleneckQueues: input.bottleneckQueues }),
        ...(input.onWarning === undefined ? {} : { onWarning: input.onWarning }),
      })),
    );
  }
  const kept = variants.map((v) => acrossVariantData(v.name, input.tables.get(v.name)!, input.nodes?.get(v.name)));
  return [...out, ...(await acrossVariantPlots(kept, input.onWarning, { slowdownBySize: input.slowdownBySize === true }))];
}

/** One variant's plots, from its tables. */
export interface VariantPlotInput {
  variant: VariantOutcome;
  /** Its file-name stem (`fileStems` over every variant of the report). */
  stem: string;
  tables: TraceTables;
  /** Its run end and trace origin (its first post) in µs: trace times count from the origin, fault times are virtual. */
  endUs: number;
  traceOriginUs: number;
  bottleneckQueues?: readonly string[];
  onWarning?: (file: string, message: string) => void;
}

/** Queue depth, paused transmitters, throughput per flow and probe round trips of one variant, those it has data for. */
export async function variantPlots(input: VariantPlotInput): Promise<RenderedPlot[]> {
  const { variant: v, stem, endUs } = input;
  // A plot may end before the run (`plots: {until}`): what came after is off its axis.
  const within = <T extends { timeUs: number }>(rows: T[] | undefined): T[] | undefined => rows?.filter((r) => r.timeUs <= endUs);
  const tables = { ...input.tables, 'queue.csv': within(input.tables['queue.csv']), 'rates.csv': within(input.tables['rates.csv']), 'probes.csv': within(input.tables['probes.csv']) };
  const out: RenderedPlot[] = [];
  const faults = faultMarks(v.faults, input.traceOriginUs, endUs);
  // One plot at a time, so a report with many variants never holds many Vega views at once.
  const add = async (kind: string, title: string, spec: TopLevelSpec): Promise<void> => {
    const file = `${kind}-${stem}.svg`;
    const { svg, warnings } = await renderSvg(spec, `${kind}-${stem}`);
    for (const w of warnings) input.onWarning?.(file, w);
    out.push({ ref: { file, title, variant: v.name }, svg });
  };
  if ((tables['queue.csv'] ?? []).length > 0) {
    const q = queueSeries(tables['queue.csv']!, endUs, input.bottleneckQueues);
    const notes = q.missing.length > 0 ? [`not in queue.csv: ${q.missing.join(', ')}`] : [];
    if (q.queues.length > 0) await add('queue', `${v.name}: queue depth`, queueSpec({ variant: v.name, endUs, ...q, faults, notes }));
  }
  const pauses = pauseHeatmap(tables['pfc.csv'] ?? [], endUs);
  if (pauses.rows.length > 0) {
    const prio = pauses.priorities.length === 1 ? `priority ${pauses.priorities[0]}` : `priorities ${pauses.priorities.join(', ')}`;
    const notes = [prio, ...(pauses.omitted > 0 ? [`${pauses.omitted} less paused transmitters not shown (top ${MAX_PAUSE_ROWS})`] : [])];
    await add('pauses', `${v.name}: paused transmitters`, pauseSpec({ variant: v.name, endUs, rows: pauses.rows, cells: pauses.cells, faults, notes }));
  }
  if ((tables['rates.csv'] ?? []).length > 0) {
    const r = rateSeries(tables['rates.csv']!, endUs);
    const notes = r.omitted > 0 ? [`${r.omitted} quieter flows not shown`] : [];
    await add('rates', `${v.name}: throughput per flow`, rateSpec({ variant: v.name, endUs, series: r.series, points: r.points, faults, notes }));
  }
  if ((tables['probes.csv'] ?? []).length > 0) {
    const p = probeSeries(tables['probes.csv']!, endUs);
    const notes = [...(p.binned ? ['p50 and p99 per bin'] : []), ...(p.lost > 0 ? [`${p.lost} lost (▼)`] : [])];
    await add('probes', `${v.name}: probe round trips`, probeSpec({ variant: v.name, endUs, binned: p.binned, points: p.points, faults, notes }));
  }
  return out;
}

/**
 * What the plots across variants need of one variant, taken when it ran so that its tables and
 * node reports can go: its messages' FCT slowdowns, its probes' round trips (null: not completed,
 * lost), and with node reports, each node's held time and whether any port used credits.
 */
export interface AcrossVariantData {
  name: string;
  fctSlowdowns: ReadonlyArray<number | null>;
  probeRttsUs: ReadonlyArray<number | null>;
  held: readonly HeldTime[] | null;
  credit: boolean;
  /** Its completed messages' slowdown by size group (HPCC's figures); absent: not taken. */
  slowdown?: SlowdownSummary;
}

export function acrossVariantData(name: string, tables: TraceTables, nodes: readonly NodeReport[] | undefined): AcrossVariantData {
  return {
    name,
    fctSlowdowns: (tables['fct.csv'] ?? []).map((r) => r.slowdown),
    probeRttsUs: (tables['probes.csv'] ?? []).map((r) => r.rttUs),
    held: nodes === undefined ? null : heldTimes(nodes),
    credit: nodes?.some((n) => n.ports.some((p) => p.credit !== undefined)) ?? false,
    slowdown: slowdownOf(tables),
  };
}

/** The groups of fct.csv's completed messages (the same as the run's `slowdown` summary). */
function slowdownOf(tables: TraceTables): SlowdownSummary {
  const rows = tables['fct.csv'] ?? [];
  const measured = rows.flatMap((r) => (r.status === 'success' && r.slowdown !== null ? [{ flow: r.flow, sizeBytes: r.sizeBytes, slowdown: r.slowdown }] : []));
  return slowdownBuckets(measured, rows.length - measured.length);
}

/**
 * Across variants: their FCT slowdowns, and their probes' round trips, each on one plot when at
 * least two variants have some; with a credit link anywhere, the held time per node; asked for
 * (`slowdownBySize`), the P50/P95/P99 slowdown per size group of every variant with messages.
 */
export async function acrossVariantPlots(variants: readonly AcrossVariantData[], onWarning?: (file: string, message: string) => void, options: { slowdownBySize?: boolean } = {}): Promise<RenderedPlot[]> {
  const out: RenderedPlot[] = [];
  if (options.slowdownBySize === true) {
    const s = slowdownBySizeSeries(variants.flatMap((v) => (v.slowdown === undefined ? [] : [{ variant: v.name, summary: v.slowdown }])));
    if (s.points.length > 0) {
      const notes = [`groups of ${variants.find((v) => v.slowdown !== undefined)!.slowdown!.stepPercent} % of the completed messages by size (HPCC fct_analysis.py); P50 solid, P95 dashed, P99 dotted`];
      const { svg, warnings } = await renderSvg(slowdownBySizeSpec({ ...s, notes }), 'fct-slowdown-by-size');
      for (const w of warnings) onWarning?.('fct-slowdown-by-size.svg', w);
      out.push({ ref: { file: 'fct-slowdown-by-size.svg', title: 'FCT slowdown by message size (P50, P95, P99)', variant: null }, svg });
    }
  }
  const cdfs = [
    { file: 'fct-slowdown', title: 'FCT slowdown by variant', xTitle: 'FCT slowdown (FCT / ideal FCT)', yTitle: 'fraction of messages', unfinished: 'not completed', values: (v: AcrossVariantData) => v.fctSlowdowns },
    { file: 'probe-rtt', title: 'probe round trips by variant', xTitle: 'round trip (µs)', yTitle: 'fraction of probes', unfinished: 'lost', values: (v: AcrossVariantData) => v.probeRttsUs },
  ];
  for (const c of cdfs) {
    const cdf = cdfByVariant(variants.map((v) => ({ variant: v.name, values: c.values(v) })));
    if (cdf.variants.length < 2 || cdf.points.length === 0) continue;
    const notes = [...cdf.missing].filter(([, n]) => n > 0).map(([variant, n]) => `${variant}: ${n} ${c.unfinished}`);
    const { svg, warnings } = await renderSvg(cdfSpec({ title: `${c.title} (CDF)`, xTitle: c.xTitle, yTitle: c.yTitle, variants: cdf.variants, points: cdf.points, notes }), c.file);
    for (const w of warnings) onWarning?.(`${c.file}.svg`, w);
    out.push({ ref: { file: `${c.file}.svg`, title: c.title, variant: null }, svg });
  }
  const withNodes = variants.flatMap((v) => (v.held === null ? [] : [{ name: v.name, held: v.held, credit: v.credit }]));
  if (withNodes.some((v) => v.credit)) {
    const { rows, bars } = holdBarsOf(withNodes);
    if (rows.length > 0) {
      const spec = holdSpec({ rows, variants: withNodes.map((v) => v.name), bars });
      const { svg, warnings } = await renderSvg(spec, 'held');
      for (const w of warnings) onWarning?.('held.svg', w);
      out.push({ ref: { file: 'held.svg', title: 'back-pressure: time each node was held, per variant', variant: null }, svg });
    }
  }
  return out;
}

/** Compiles and renders one spec; `warnings` are what Vega-Lite and Vega logged (a sign of a bad spec). */
export async function renderSvg(spec: TopLevelSpec, idPrefix: string): Promise<{ svg: string; warnings: string[] }> {
  const warnings: string[] = [];
  const logger = collectingLogger(warnings);
  const view = new View(parse(compile(spec, { logger }).spec), { renderer: 'none', logger });
  try {
    return { svg: scopeIds(await view.toSVG(), idPrefix), warnings };
  } finally {
    view.finalize();
  }
}

/**
 * Every `id` renumbered in document order as `<prefix>-<n>`, with the `url(#…)` and `href="#…"`
 * references to it. The prefix is made a valid XML name.
 */
export function scopeIds(svg: string, prefix: string): string {
  const safe = `rl-${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const ids = new Map<string, string>();
  for (const m of svg.matchAll(/\sid="([^"]*)"/g)) if (!ids.has(m[1]!)) ids.set(m[1]!, `${safe}-${ids.size + 1}`);
  if (ids.size === 0) return svg;
  return svg
    .replace(/(\sid=")([^"]*)"/g, (_all, head: string, id: string) => `${head}${ids.get(id) ?? id}"`)
    .replace(/url\(#([^)]*)\)/g, (all, id: string) => (ids.has(id) ? `url(#${ids.get(id)})` : all))
    .replace(/(href=")#([^"]*)"/g, (all, head: string, id: string) => (ids.has(id) ? `${head}#${ids.get(id)}"` : all));
}

/** File-name stems for variant names: letters, digits, `.`, `_`, `-`; equal stems get `-2`, `-3`, …. */
export function fileStems(names: readonly string[]): Map<string, string> {
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const name of names) {
    if (out.has(name)) continue;
    const base = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|-+$/g, '') || 'variant';
    let stem = base;
    for (let n = 2; used.has(stem.toLowerCase()); n++) stem = `${base}-${n}`;
    used.add(stem.toLowerCase());
    out.set(name, stem);
  }
  return out;
}

function lastTimeUs(tables: TraceTables): number {
  let end = 0;
  for (const rows of [tables['queue.csv'], tables['rates.csv'], tables['pfc.csv'], tables['probes.csv'], tables['events.csv']]) {
    for (const r of rows ?? []) end = Math.max(end, r.timeUs);
  }
  return end;
}

function collectingLogger(into: string[]) {
  let level = 2; // vega-util's Warn
  const logger = {
    level(l?: number) {
      if (l === undefined) return level;
      level = l;
      return logger;
    },
    error(...args: unknown[]) {
      into.push(`error: ${args.map(String).join(' ')}`);
      return logger;
    },
    warn(...args: unknown[]) {
      if (level >= 2) into.push(args.map(String).join(' '));
      return logger;
    },
    info: () => logger,
    debug: () => logger,
  };
  return logger;
}
