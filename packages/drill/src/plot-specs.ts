/**
 * The Vega-Lite specs of the drill plots, from the rows of plot-series.ts. Every time plot has
 * the same x scale (0 to the run's end, in µs) so a report's plots line up, and the faults as
 * labelled vertical rules. Data is inline (`values`): nothing is loaded, nothing is random.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { CdfPoint, FaultMark, HoldBar, PauseCell, Point, ProbePoint, SlowdownPoint } from './plot-series.js';

type LayeredSpec = Extract<TopLevelSpec, { layer: unknown }>;
type Layer = LayeredSpec['layer'][number];

const WIDTH = 720;
const HEIGHT = 220;
/** Height of one heatmap row (px). */
const ROW_PX = 14;
const FAULT_COLOR = '#c0392b';

/** No ARIA attributes per mark (they would carry every data point into the SVG); the report captions each plot. */
const CONFIG = {
  aria: false,
  font: 'sans-serif',
  background: 'white',
  title: { anchor: 'start', fontSize: 14, subtitleFontSize: 11, subtitleColor: '#555' },
  // Without a canvas Vega estimates text at 0.8 em a character: room for ~40-character names.
  legend: { labelLimit: 320 },
  axisY: { labelLimit: 320 },
} as const;

const timeAxis = (endUs: number) => ({ field: 't', type: 'quantitative' as const, title: 'time (µs)', scale: { domain: [0, endUs], nice: false } });

/** Fault labels: font size, the width Vega estimates per character, the height of a lane, lanes at most. */
const LABEL_FONT = 10;
const LABEL_CHAR_PX = 6;
const LANE_PX = 12;
const MAX_LANES = 4;

/**
 * Each fault label's lane in the band above the plot, so no label sits on the data (the heatmap's
 * cells, a line) and no two labels overprint: a label runs right of its rule, or left of it when
 * it would pass the plot's right edge; it takes the first lane free over its width (the least
 * filled one when all MAX_LANES are taken). Pure: the same marks give the same lanes.
 */
export function labelLanes(marks: readonly FaultMark[], endUs: number, widthPx = WIDTH): Array<{ lane: number; align: 'left' | 'right' }> {
  const ends: number[] = [];
  return marks.map((m) => {
    const x = endUs > 0 ? (m.t / endUs) * widthPx : 0;
    const w = m.label.length * LABEL_CHAR_PX + 6;
    const align = x + w > widthPx ? 'right' : 'left';
    const [from, to] = align === 'left' ? [x, x + w] : [x - w, x];
    let lane = ends.findIndex((end) => end <= from);
    if (lane < 0) lane = ends.length < MAX_LANES ? ends.length : ends.indexOf(Math.min(...ends));
    ends[lane] = to;
    return { lane, align };
  });
}

/** Lanes the fault labels take above the plot (0 without faults). */
const bandLanes = (marks: readonly FaultMark[], endUs: number): number => (marks.length === 0 ? 0 : Math.max(...labelLanes(marks, endUs).map((l) => l.lane)) + 1);

/** A rule at each fault instant, labelled in the band above the plot (`labelLanes`). */
function faultLayers(marks: readonly FaultMark[], endUs: number): Layer[] {
  if (marks.length === 0) return [];
  const lanes = labelLanes(marks, endUs);
  const values = marks.map((m, i) => ({ ...m, labelY: -4 - lanes[i]!.lane * LANE_PX, align: lanes[i]!.align }));
  const label = (align: 'left' | 'right'): Layer => ({
    data: { values: values.filter((v) => v.align === align) },
    mark: { type: 'text', align, baseline: 'bottom', dx: align === 'left' ? 3 : -3, fontSize: LABEL_FONT, color: FAULT_COLOR },
    encoding: { x: timeAxis(endUs), y: { field: 'labelY', type: 'quantitative', scale: null }, text: { field: 'label', type: 'nominal' } },
  });
  return [
    { data: { values }, mark: { type: 'rule', color: FAULT_COLOR, strokeDash: [4, 3], strokeWidth: 1.5 }, encoding: { x: timeAxis(endUs) } },
    ...(values.some((v) => v.align === 'left') ? [label('left')] : []),
    ...(values.some((v) => v.align === 'right') ? [label('right')] : []),
  ];
}

function title(text: string, notes: readonly string[], offset: number) {
  return { text, ...(notes.length === 0 ? {} : { subtitle: notes.join('; ') }), ...(offset === 0 ? {} : { offset }) };
}

/** What every plot's spec starts with: the schema, its title and notes (above the fault labels' band), its size, the shared config. */
function frame(text: string, notes: readonly string[], height = HEIGHT, faults: { marks: readonly FaultMark[]; endUs: number } = { marks: [], endUs: 0 }) {
  const lanes = bandLanes(faults.marks, faults.endUs);
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title: title(text, notes, lanes === 0 ? 0 : 6 + lanes * LANE_PX), width: WIDTH, height, config: CONFIG };
}

/** Lines of `series`, in the order given (legend and colours follow it). */
function lineSpec(o: { title: string; notes: string[]; endUs: number; yTitle: string; series: string[]; points: Point[]; faults: FaultMark[] }): TopLevelSpec {
  return {
    ...frame(o.title, o.notes, HEIGHT, { marks: o.faults, endUs: o.endUs }),
    layer: [
      {
        data: { values: o.points },
        mark: { type: 'line', strokeWidth: 1.25, clip: true },
        encoding: {
          x: timeAxis(o.endUs),
          y: { field: 'value', type: 'quantitative', title: o.yTitle },
          color: { field: 'series', type: 'nominal', title: null, scale: { domain: o.series, scheme: o.series.length > 10 ? 'category20' : 'tableau10' } },
        },
      },
      ...faultLayers(o.faults, o.endUs),
    ],
  };
}

export function queueSpec(o: { variant: string; endUs: number; queues: string[]; points: Point[]; faults: FaultMark[]; notes: string[] }): TopLevelSpec {
  return lineSpec({ title: `${o.variant}: queue depth (max per bin)`, notes: o.notes, endUs: o.endUs, yTitle: 'queue (bytes)', series: o.queues, points: o.points, faults: o.faults });
}

export function rateSpec(o: { variant: string; endUs: number; series: string[]; points: Point[]; faults: FaultMark[]; notes: string[] }): TopLevelSpec {
  return lineSpec({ title: `${o.variant}: throughput per flow`, notes: o.notes, endUs: o.endUs, yTitle: 'throughput (Gb/s)', series: o.series, points: o.points, faults: o.faults });
}

/** One row per transmitter, one rect per run of bins with the same paused fraction (blue, so the red fault rules stand out); unpaused bins stay white. */
export function pauseSpec(o: { variant: string; endUs: number; rows: string[]; cells: PauseCell[]; faults: FaultMark[]; notes: string[] }): TopLevelSpec {
  return {
    ...frame(`${o.variant}: fraction of each bin the transmitter was paused`, o.notes, Math.max(ROW_PX * o.rows.length, 3 * ROW_PX), { marks: o.faults, endUs: o.endUs }),
    layer: [
      {
        data: { values: o.cells },
        mark: { type: 'rect' },
        encoding: {
          x: timeAxis(o.endUs),
          x2: { field: 't2' },
          y: { field: 'row', type: 'nominal', title: 'transmitter', scale: { domain: o.rows } },
          color: { field: 'fraction', type: 'quantitative', title: 'paused', scale: { domain: [0, 1], scheme: 'blues' } },
        },
      },
      ...faultLayers(o.faults, o.endUs),
    ],
  };
}

/** Held time per node, one bar per variant (`holdBars`): how far back-pressure reached in each. */
export function holdSpec(o: { rows: string[]; variants: string[]; bars: HoldBar[] }): TopLevelSpec {
  return {
    ...frame('time each node\'s transmitters were held: paused by PFC or waiting for credit', ['summed over ports and priorities'], Math.max(ROW_PX * o.rows.length * o.variants.length, 3 * ROW_PX)),
    data: { values: o.bars },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'node', type: 'nominal', title: 'node', scale: { domain: o.rows } },
      yOffset: { field: 'variant', type: 'nominal', scale: { domain: o.variants } },
      x: { field: 'ms', type: 'quantitative', title: 'held (ms)' },
      color: { field: 'variant', type: 'nominal', title: 'variant', scale: { domain: o.variants } },
    },
  };
}

/** Round trips (or p50/p99 per bin) as points or lines; lost probes as red triangles along the top edge. */
export function probeSpec(o: { variant: string; endUs: number; binned: boolean; points: ProbePoint[]; faults: FaultMark[]; notes: string[] }): TopLevelSpec {
  const kinds = o.binned ? ['p50', 'p99', 'lost'] : ['round trip', 'lost'];
  const color = { field: 'kind', type: 'nominal' as const, title: null, scale: { domain: kinds, range: o.binned ? ['#4c78a8', '#f58518', FAULT_COLOR] : ['#4c78a8', FAULT_COLOR] } };
  const answered = o.points.filter((p) => p.kind !== 'lost');
  const lost = o.points.filter((p) => p.kind === 'lost').map((p) => ({ ...p, markY: 4 }));
  // Headroom above the slowest round trip, so the lost markers along the top never sit on a point.
  const topUs = answered.reduce((m, p) => Math.max(m, p.rttUs ?? 0), 0) * 1.15;
  return {
    ...frame(`${o.variant}: probe round trips by post time`, o.notes, HEIGHT, { marks: o.faults, endUs: o.endUs }),
    layer: [
      {
        data: { values: answered },
        mark: o.binned ? { type: 'line', strokeWidth: 1.25, clip: true } : { type: 'point', filled: true, size: 14, clip: true },
        encoding: { x: timeAxis(o.endUs), y: { field: 'rttUs', type: 'quantitative', title: 'round trip (µs)', scale: topUs > 0 ? { domainMax: topUs } : {} }, color },
      },
      {
        data: { values: lost },
        mark: { type: 'point', shape: 'triangle-down', filled: true, size: 40 },
        encoding: { x: timeAxis(o.endUs), y: { field: 'markY', type: 'quantitative', scale: null }, color },
      },
      ...faultLayers(o.faults, o.endUs),
    ],
  };
}

/** The variants' CDFs of one measure on one log axis: the comparison a drill of designs is about. */
export function cdfSpec(o: { title: string; xTitle: string; yTitle: string; variants: string[]; points: CdfPoint[]; notes: string[] }): TopLevelSpec {
  return {
    ...frame(o.title, o.notes),
    data: { values: o.points },
    mark: { type: 'line', strokeWidth: 1.5, interpolate: 'step-after' },
    encoding: {
      x: { field: 'value', type: 'quantitative', title: o.xTitle, scale: { type: 'log' } },
      y: { field: 'fraction', type: 'quantitative', title: o.yTitle, scale: { domain: [0, 1] } },
      color: { field: 'variant', type: 'nominal', title: null, scale: { domain: o.variants, scheme: 'tableau10' } },
    },
  };
}

/**
 * FCT slowdown by size group across variants, as the HPCC paper draws it: x the size groups
 * (smallest messages left), y the slowdown on a log axis, a colour per variant and a dash per
 * percentile (P50 solid, P95 dashed, P99 dotted).
 */
export function slowdownBySizeSpec(o: { groups: string[]; variants: string[]; points: SlowdownPoint[]; notes: string[] }): TopLevelSpec {
  return {
    ...frame('FCT slowdown by message size, per variant', o.notes),
    data: { values: o.points },
    mark: { type: 'line', strokeWidth: 1.5, point: { size: 16 } },
    encoding: {
      x: { field: 'group', type: 'ordinal', title: 'size group (upper % of messages by size, largest size)', scale: { domain: o.groups }, axis: { labelAngle: -45 } },
      y: { field: 'slowdown', type: 'quantitative', title: 'FCT slowdown (FCT / ideal FCT)', scale: { type: 'log' } },
      color: { field: 'variant', type: 'nominal', title: null, scale: { domain: o.variants, scheme: 'tableau10' } },
      strokeDash: { field: 'percentile', type: 'nominal', title: null, scale: { domain: ['p50', 'p95', 'p99'], range: [[1, 0], [6, 3], [2, 2]] } },
      detail: { field: 'percentile', type: 'nominal' },
    },
  };
}
