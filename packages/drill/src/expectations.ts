/**
 * The expectations of a drill, evaluated over each variant's run: its result, its trace tables
 * (rates, queue, pfc, probes, events) and its pod. Each gives the value measured, the bound, and
 * the margin either way, in words and in base units — what the report prints and a CI job reads.
 * Everything here is a pure function of those inputs, so the same run gives the same report in
 * every mode.
 */
import { nearestRank, pauseIntervals, type EventRow, type FctRow, type NodeReport, type PfcRow, type ProbeRow, type QueueRow, type RateRow, type TraceTables } from '@rocelab/results';
import { parseBytes, parseDuration, type PodSpec } from '@rocelab/topology';
import { findDeadlock } from './deadlock.js';
import { goodputRate, type Expectation } from './drill-file.js';
import { backAbove, defaultBaselineUs, firstDetection, flowSeries, goodputOver, recoveryStart, type RecoveryFrom } from './incident.js';
import { metricValue } from './metrics.js';
import { outcome, round } from './outcome.js';
import { programCompared, programOperand, programResult, variantOfValue } from './program-result.js';
import type { AuditOutcome, ExpectationOutcome } from './report-model.js';

/** What a variant's run left behind. */
export interface VariantData {
  name: string;
  pod: PodSpec;
  result: {
    conservation: boolean;
    causalityViolations: number;
    packets: { sent: number; delivered: number; dropped: number; queued: number };
    summary: { portTotals: { losslessDrops: number } };
    /** Every node's end-of-run figures (the drill asks for them). */
    nodes?: NodeReport[];
  };
  tables: TraceTables;
  /** Trace times count from this virtual time (the first message's post), ps. */
  traceOriginPs: number;
  durationPs: number;
}

const PS_PER_US = 1e6;

/** Every expectation for every variant it applies to (goodputRatio: across two). */
export function evaluate(expectations: readonly Expectation[], variants: readonly VariantData[]): ExpectationOutcome[] {
  const byName = new Map(variants.map((v) => [v.name, v]));
  return expectations.flatMap((e) => {
    if (isAcrossVariants(e)) {
      const [a, b] = comparedVariants(e);
      return [ratioOutcome(e, ratioOperand(e, byName.get(a)!), ratioOperand(e, byName.get(b)!))];
    }
    const targets = e.variant === null ? variants : [byName.get(e.variant)!];
    return targets.map((v) => one(e, v));
  });
}

/**
 * goodputRatio and fctSlowdownRatio compare two variants, and so does a programResult whose
 * `value` is `variant:NAME` (a figure against the same figure in another variant); every other
 * kind, and every other programResult, is evaluated in one.
 */
export function isAcrossVariants(e: Expectation): boolean {
  return e.kind === 'goodputRatio' || e.kind === 'fctSlowdownRatio' || (e.kind === 'programResult' && typeof e.raw.value === 'string');
}

/** The two variants an expectation across variants compares, in its order: `a` against `b`. */
export function comparedVariants(e: Expectation): [string, string] {
  if (e.kind === 'programResult') return [e.variant!, variantOfValue(e.raw.value as string)];
  return [e.raw.variantA as string, e.raw.variantB as string];
}

/** The expectations of `expectations` that apply to `v` alone, evaluated over it (in file order). */
export function evaluateVariant(expectations: readonly Expectation[], v: VariantData): ExpectationOutcome[] {
  return expectations.filter((e) => !isAcrossVariants(e) && (e.variant === null || e.variant === v.name)).map((e) => one(e, v));
}

/**
 * What a ratio expectation needs of one of its two variants, measured when that variant ran so
 * that its tables need not be kept for the others (a drill runner keeps memory flat across
 * variants): goodputRatio, the selected flows' summed goodput (bit/s); fctSlowdownRatio, the
 * percentile of their FCT slowdowns, null without messages.
 */
export interface RatioOperand {
  variant: string;
  value: number | null;
  /** programResult: what the figure was read from (`program ib_write_bw on h1[0] exited 0`), or why there is none. */
  note?: string;
}

export function ratioOperand(e: Expectation, v: VariantData): RatioOperand {
  if (e.kind === 'goodputRatio') return { variant: v.name, value: goodputs(e, v, e.raw.during as string).reduce((n, f) => n + f.bps, 0) };
  if (e.kind === 'fctSlowdownRatio') {
    const values = slowdowns(e, v);
    return { variant: v.name, value: values.length === 0 ? null : nearestRank(values, e.raw.percentile as number)! };
  }
  if (e.kind === 'programResult') return programOperand(e, v);
  throw new Error(`${e.kind} is evaluated in one variant`);
}

/** A ratio expectation from its operands: `a` of variantA, `b` of variantB. */
export function ratioOutcome(e: Expectation, a: RatioOperand, b: RatioOperand): ExpectationOutcome {
  if (e.kind === 'programResult') return programCompared(e, a, b);
  return e.kind === 'goodputRatio' ? goodputRatio(e, a, b) : fctSlowdownRatio(e, a, b);
}

function one(e: Expectation, v: VariantData): ExpectationOutcome {
  switch (e.kind) {
    case 'noLosslessDrops':
      return losslessDrops(e, v, null, { max: 0 });
    case 'losslessDrops':
      return losslessDrops(e, v, (e.raw.reasons as string[] | undefined) ?? null, limitsOf(e));
    case 'timeToDetect':
      return timeToDetect(e, v);
    case 'timeToRecover':
      return timeToRecover(e, v);
    case 'appResult':
      return appResult(e, v);
    case 'programResult':
      return programResult(e, v);
    case 'watchdogDetected':
      return watchdogDetected(e, v);
    case 'flowGoodput':
      return flowGoodput(e, v);
    case 'pausePropagated':
      return pausePropagated(e, v);
    case 'pauseContained':
      return pauseContained(e, v);
    case 'deadlock':
      return deadlock(e, v);
    case 'probeLatency':
      return probeLatency(e, v);
    case 'queueDepth':
      return queueDepth(e, v);
    case 'probeLatencyRatio':
      return probeLatencyRatio(e, v);
    case 'metric':
      return metric(e, v);
    case 'fctSlowdown':
      return fctSlowdown(e, v);
    case 'goodputRatio':
    case 'fctSlowdownRatio':
      throw new Error(`${e.kind} is evaluated across variants`);
  }
}

// --- formatting -------------------------------------------------------------------------------

type Unit = (value: number) => string;
const count = (what: string): Unit => (n) => `${round(n)} ${what}`;
const timeUnit: Unit = (ps) => (!Number.isFinite(ps) ? '∞' : Math.abs(ps) >= 1e9 ? `${round(ps / 1e9)} ms` : Math.abs(ps) >= 1e6 || ps === 0 ? `${round(ps / 1e6)} µs` : `${round(ps / 1e3)} ns`);
const rateUnit: Unit = (bps) => `${round(bps / 1e9)} Gb/s`;
const ratioUnit: Unit = (r) => (Number.isFinite(r) ? `${round(r)}×` : '∞');

const limitsOf = (e: Expectation): { min?: number; max?: number } => ({ ...(e.raw.min === undefined ? {} : { min: e.raw.min as number }), ...(e.raw.max === undefined ? {} : { max: e.raw.max as number }) });

/** A measured value against `min`/`max`, with the margin in the value's unit. */
function bound(e: Expectation, v: VariantData | null, what: string, value: number, limits: { min?: number; max?: number }, unit: Unit, measuredNote = ''): ExpectationOutcome {
  const { min, max } = limits;
  const low = min !== undefined && !(value >= min);
  const high = max !== undefined && !(value <= max);
  const expected = [min !== undefined ? `≥ ${unit(min)}` : '', max !== undefined ? `≤ ${unit(max)}` : ''].filter(Boolean).join(' and ');
  let margin: string;
  if (low) margin = `${unit(min - value)} short`;
  else if (high) margin = `${unit(value - max)} over`;
  else if (min === undefined && max === undefined) margin = 'no bound';
  else {
    const spare = Math.min(min !== undefined ? value - min : Infinity, max !== undefined ? max - value : Infinity);
    margin = spare === 0 ? 'exactly at the bound' : `${unit(spare)} to spare`;
  }
  return outcome(e, v?.name ?? null, what, !low && !high, `${unit(value)}${measuredNote}`, expected, margin, value);
}

// --- windows and selections -----------------------------------------------------------------

/** A window `A-B` of virtual time, as trace µs. */
function windowUs(text: string, v: VariantData): [number, number] {
  const [a, b] = text.split('-').map(parseDuration) as [number, number];
  return [(a - v.traceOriginPs) / PS_PER_US, (b - v.traceOriginPs) / PS_PER_US];
}

const asList = (x: unknown): string[] | null => (x === undefined ? null : Array.isArray(x) ? (x as string[]) : [x as string]);

/** Nodes a `to` selector names: a node, a list, or a role. */
function nodesOf(sel: unknown, pod: PodSpec): Set<string> {
  if (typeof sel === 'object' && sel !== null && !Array.isArray(sel)) return new Set(pod.nodes.filter((n) => n.role === (sel as { role: string }).role).map((n) => n.name));
  return new Set(asList(sel) ?? []);
}

function describeNodes(sel: unknown): string {
  if (typeof sel === 'object' && sel !== null && !Array.isArray(sel)) {
    const role = (sel as { role: string }).role;
    return `the ${role === 'leaf' ? 'leaves' : `${role}s`}`;
  }
  return (asList(sel) ?? []).join(', ');
}

/** The node:port at the other end of `node:port`. */
function peerOf(pod: PodSpec, node: string, port: string): { node: string; port: string } | null {
  const n = pod.nodes.find((x) => x.name === node);
  const p = n?.ports.find((x) => x.name === port);
  if (p === undefined) return null;
  const peer = pod.nodes[p.peerNode]!;
  return { node: peer.name, port: peer.ports[p.peerPort]!.name };
}

// --- the kinds -----------------------------------------------------------------------------

/**
 * The conservation audit of a run (issue 24: no longer an expectation counted among them): every
 * frame delivered, dropped with a counted reason or still queued, and no causality violation.
 * Every run prints it; a broken audit fails the drill.
 */
export function audit(v: VariantData): AuditOutcome {
  const { packets: p, causalityViolations: c } = v.result;
  const offBy = p.sent - p.delivered - p.dropped - p.queued;
  const pass = v.result.conservation && c === 0;
  const text = `sent ${p.sent} = delivered ${p.delivered} + dropped ${p.dropped} + queued ${p.queued}${offBy === 0 ? '' : ` (off by ${offBy})`}; ${c} causality violation${c === 1 ? '' : 's'}`;
  return { pass, conservation: v.result.conservation, causalityViolations: c, offBy, text: `${text}: ${pass ? 'holds' : 'BROKEN'}` };
}

/** Frames of a lossless priority dropped by the switches and NICs (of `nodes`), for the reasons given (null: all), summed. */
function losslessDrops(e: Expectation, v: VariantData, reasons: string[] | null, limits: { min?: number; max?: number }): ExpectationOutcome {
  const nodes = asList(e.raw.nodes);
  const byReason = new Map<string, number>();
  for (const n of v.result.nodes ?? []) {
    if (nodes !== null && !nodes.includes(n.node)) continue;
    for (const p of n.ports) for (const [reason, k] of Object.entries(p.losslessDropped ?? {})) if (reasons === null || reasons.includes(reason)) byReason.set(reason, (byReason.get(reason) ?? 0) + (k ?? 0));
  }
  const total = [...byReason.values()].reduce((a, b) => a + b, 0);
  const which = reasons === null ? 'for any reason' : `for ${reasons.join(', ')}`;
  const what = `lossless frames dropped ${which}${nodes === null ? '' : ` at ${nodes.join(', ')}`}`;
  const parts = [...byReason].filter(([, k]) => k > 0).sort(([a], [b]) => (a < b ? -1 : 1)).map(([r, k]) => `${r} ${k}`);
  return bound(e, v, what, total, limits, count('lossless drops'), parts.length === 0 ? '' : ` (${parts.join(', ')})`);
}

/** The fault an expectation measures from: `fault:` (its number in the variant), or the variant's first. */
function faultOf(e: Expectation, v: VariantData) {
  const index = e.raw.fault as number | undefined;
  return index === undefined ? v.pod.faults[0] : v.pod.faults.find((f) => f.index === index);
}

function timeToDetect(e: Expectation, v: VariantData): ExpectationOutcome {
  const maxPs = parseDuration(e.raw.max as string);
  const fault = faultOf(e, v)!;
  const node = e.raw.node as string | undefined;
  const what = `a watchdog${node === undefined ? '' : ` of ${node}`} detects fault ${fault.index} (${fault.kind} ${fault.target}) within ${timeUnit(maxPs)} of its start`;
  const d = firstDetection(v.tables, v.traceOriginPs, fault.atPs, node);
  if (d === null) return outcome(e, v.name, what, false, 'never detected', `≤ ${timeUnit(maxPs)}`, 'no detection at all', null);
  return bound(e, v, what, d.atPs - fault.atPs, { max: maxPs }, timeUnit, ` (${d.by} at ${timeUnit(d.atPs)}; the fault at ${timeUnit(fault.atPs)})`);
}

function timeToRecover(e: Expectation, v: VariantData): ExpectationOutcome {
  const maxPs = parseDuration(e.raw.max as string);
  const fault = faultOf(e, v)!;
  const fraction = (e.raw.fraction as number | undefined) ?? 0.9;
  const from = (e.raw.since as RecoveryFrom | undefined) ?? 'either';
  const sel = e.raw.flows as { from?: unknown; to?: unknown };
  const flows = flowSeries(v.tables, asList(sel.from), asList(sel.to));
  const [a, b] = e.raw.baseline === undefined ? defaultBaselineUs(fault, v.traceOriginPs) : windowUs(e.raw.baseline as string, v);
  const what = `the goodput of the ${selection(e)} is back above ${round(fraction * 100)} % of its pre-fault rate within ${timeUnit(maxPs)} of fault ${fault.index} (${fault.kind} ${fault.target}) ${from === 'end' ? 'ending' : from === 'containment' ? 'being contained' : 'ending or being contained'}`;
  const fail = (measured: string, margin: string) => outcome(e, v.name, what, false, measured, `≤ ${timeUnit(maxPs)}`, margin, null);
  if (flows.length === 0) return fail('no such flow in rates.csv', 'nothing measured');
  const baseline = b - a <= 0 ? 0 : goodputOver(flows, a, b);
  if (baseline === 0) return fail(`no goodput before the fault (${timeUnit(a * PS_PER_US + v.traceOriginPs)}–${timeUnit(b * PS_PER_US + v.traceOriginPs)})`, 'no pre-fault rate to recover to');
  const start = recoveryStart(fault, firstDetection(v.tables, v.traceOriginPs, fault.atPs), from);
  if (start === null) return fail(`the fault ${from === 'containment' ? 'was never contained' : from === 'end' ? 'has no end (no `for`)' : 'has no end (no `for`) and was never contained'}`, 'nothing to recover from');
  const back = backAbove(flows, (start.atPs - v.traceOriginPs) / PS_PER_US, fraction * baseline);
  const note = ` (from its ${start.what} at ${timeUnit(start.atPs)}; pre-fault ${rateUnit(baseline)}, ${flows.length} flow${flows.length === 1 ? '' : 's'})`;
  if (back === null) return fail(`not back by the end${note}`, 'never recovered');
  return bound(e, v, what, back * PS_PER_US + v.traceOriginPs - start.atPs, { max: maxPs }, timeUnit, note);
}

/** A value the apps reported (`rdma.report`), or that every app finished. */
function appResult(e: Expectation, v: VariantData): ExpectationOutcome {
  const node = e.raw.node as string | undefined;
  const apps = (v.result.nodes ?? []).flatMap((n) => (n.app === undefined ? [] : [n.app])).filter((a) => node === undefined || a.node === node);
  const where = node === undefined ? 'every app' : `the app on ${node}`;
  if (e.raw.finished === true) {
    const unfinished = apps.filter((a) => a.status !== 'finished');
    const what = `${where} finished`;
    if (apps.length === 0) return outcome(e, v.name, what, false, 'no app ran', 'finished', 'nothing measured', null);
    const measured = unfinished.length === 0 ? `${apps.length} of ${apps.length} finished` : `${apps.length - unfinished.length} of ${apps.length} finished; ${unfinished.slice(0, 5).map((a) => `${a.node} ${a.status}${a.error ? ` (${a.error})` : ''}`).join(', ')}${unfinished.length > 5 ? ', …' : ''}`;
    return outcome(e, v.name, what, unfinished.length === 0, measured, `${apps.length} of ${apps.length} finished`, unfinished.length === 0 ? 'all finished' : `${unfinished.length} did not`, apps.length - unfinished.length);
  }
  const key = e.raw.key as string;
  const reported = apps.filter((a) => a.reports[key] !== undefined).map((a) => ({ node: a.node, value: a.reports[key]! }));
  const bounds = [e.raw.value !== undefined ? `= ${JSON.stringify(e.raw.value)}` : '', e.raw.min !== undefined ? `≥ ${String(e.raw.min)}` : '', e.raw.max !== undefined ? `≤ ${String(e.raw.max)}` : ''].filter(Boolean).join(' and ');
  const what = `${key} as ${node === undefined ? 'each app that reports it' : `the app on ${node}`} reported it ${bounds}`;
  if (reported.length === 0) return outcome(e, v.name, what, false, `no app reported ${key}`, bounds, 'nothing measured', null);
  const fits = (x: number | string | boolean) =>
    (e.raw.value === undefined || x === e.raw.value) && (e.raw.min === undefined || (typeof x === 'number' && x >= (e.raw.min as number))) && (e.raw.max === undefined || (typeof x === 'number' && x <= (e.raw.max as number)));
  const bad = reported.filter((r) => !fits(r.value));
  const shown = (bad.length > 0 ? bad : reported).slice(0, 5).map((r) => `${JSON.stringify(r.value)} (${r.node})`).join(', ');
  const worst = bad[0] ?? reported[0]!;
  const target = typeof e.raw.value === 'number' ? (e.raw.value as number) : typeof e.raw.min === 'number' && typeof worst.value === 'number' && worst.value < (e.raw.min as number) ? (e.raw.min as number) : (e.raw.max as number | undefined);
  const off = typeof worst.value === 'number' && typeof target === 'number' ? `${round(Math.abs(worst.value - target))} ${bad.length > 0 ? 'the wrong side' : 'from the bound'}` : bad.length > 0 ? 'differs' : 'equal';
  const margin = bad.length === 0 ? (reported.length > 1 ? `all ${reported.length} hold; ${off}` : off) : `${bad.length} of ${reported.length} do not: ${off}`;
  return outcome(e, v.name, what, bad.length === 0, `${shown}${reported.length > 5 ? ', …' : ''}`, bounds, margin, typeof worst.value === 'number' ? worst.value : null);
}

function watchdogDetected(e: Expectation, v: VariantData): ExpectationOutcome {
  const node = e.raw.node as string;
  const host = v.pod.nodes.find((n) => n.name === node)?.role === 'host';
  const priority = (e.raw.priority as number | undefined) ?? 3;
  const withinPs = parseDuration(e.raw.within as string);
  const port = (e.raw.port as string | undefined) ?? (host ? v.pod.nodes.find((n) => n.name === node)!.ports[0]!.name : undefined);
  // The switch's watchdog watches its own transmitter; a host's stall prevention, the pauses it sends (they hold its ToR's port).
  const watched = host ? peerOf(v.pod, node, port!) : port === undefined ? null : { node, port };
  const event = host ? 'nic_stall_error' : 'pfcwd_storm_detected';
  const events = (v.tables['events.csv'] ?? []).filter((r: EventRow) => r.node === node && r.event === event && (host || ((port === undefined || r.port === port) && r.priority === priority)));
  const where = host ? `${node}'s NIC stall prevention` : `the watchdog of ${node}${port ? `:${port}` : ''} priority ${priority}`;
  const what = `${where} detects the storm within ${timeUnit(withinPs)} of the pauses starting`;
  const first = events[0];
  if (first === undefined) return outcome(e, v.name, what, false, 'never detected', `≤ ${timeUnit(withinPs)}`, 'no detection at all', null);
  const intervals = pauseIntervals((v.tables['pfc.csv'] ?? []).filter((r: PfcRow) => watched === null || (r.node === watched.node && r.port === watched.port)).filter((r) => r.priority === priority));
  const storm = intervals.filter((i) => i.startUs <= first.timeUs).sort((a, b) => b.startUs - a.startUs)[0];
  const startUs = storm?.startUs ?? first.timeUs;
  const tookPs = (first.timeUs - startUs) * PS_PER_US;
  return bound(e, v, what, tookPs, { max: withinPs }, timeUnit, ` (detected at ${timeUnit(first.timeUs * PS_PER_US + v.traceOriginPs)}, paused since ${timeUnit(startUs * PS_PER_US + v.traceOriginPs)})`);
}

/** Goodput (bit/s) of each selected QP over the window: bytes acknowledged between its ends. */
function goodputs(e: Expectation, v: VariantData, during: string): Array<{ flow: string; bps: number }> {
  const sel = e.raw.flows as { from?: unknown; to?: unknown };
  const from = asList(sel.from);
  const to = asList(sel.to);
  const [a, b] = windowUs(during, v);
  const rows = (v.tables['rates.csv'] ?? []).filter((r: RateRow) => (from === null || from.includes(r.node)) && (to === null || to.includes(r.dst)));
  const byQp = new Map<string, RateRow[]>();
  for (const r of rows) {
    const key = `${r.node} qp${r.qp} → ${r.dst}`;
    byQp.set(key, [...(byQp.get(key) ?? []), r]);
  }
  const ackedAt = (list: RateRow[], t: number) => list.filter((r) => r.timeUs <= t).reduce((x, r) => Math.max(x, r.ackedBytes), 0);
  return [...byQp].sort(([x], [y]) => (x < y ? -1 : 1)).map(([flow, list]) => ({ flow, bps: ((ackedAt(list, b) - ackedAt(list, a)) * 8) / ((b - a) / 1e6) }));
}

function selection(e: Expectation): string {
  const sel = e.raw.flows as { from?: unknown; to?: unknown; minBytes?: string | number; maxBytes?: string | number };
  const from = asList(sel.from);
  const to = asList(sel.to);
  const sizes = sel.minBytes === undefined && sel.maxBytes === undefined ? '' : ` of ${sel.minBytes ?? 0} to ${sel.maxBytes ?? 'any size'}${typeof sel.maxBytes === 'number' ? ' B' : ''}`;
  return `flows${from ? ` from ${from.join(', ')}` : ''}${to ? ` to ${to.join(', ')}` : ''}${sizes}`;
}

function flowGoodput(e: Expectation, v: VariantData): ExpectationOutcome {
  const during = e.raw.during as string;
  const limits = { ...(e.raw.min === undefined ? {} : { min: goodputRate(e.raw.min) }), ...(e.raw.max === undefined ? {} : { max: goodputRate(e.raw.max) }) };
  const flows = goodputs(e, v, during);
  const what = `goodput of the ${selection(e)} over ${during}${e.raw.each === true ? ', each' : ''}`;
  if (flows.length === 0) return outcome(e, v.name, what, false, 'no such flow in rates.csv', 'a flow to measure', 'nothing measured', null);
  if (e.raw.each === true) {
    const worst = flows.map((f) => ({ f, o: bound(e, v, what, f.bps, limits, rateUnit, ` (${f.flow})`) })).sort((x, y) => Number(x.o.pass) - Number(y.o.pass) || (limits.min !== undefined ? x.f.bps - y.f.bps : y.f.bps - x.f.bps))[0]!;
    return { ...worst.o, measured: `${worst.o.measured}, the worst of ${flows.length}` };
  }
  return bound(e, v, what, flows.reduce((n, f) => n + f.bps, 0), limits, rateUnit, ` (${flows.length} flow${flows.length === 1 ? '' : 's'})`);
}

function goodputRatio(e: Expectation, va: RatioOperand, vb: RatioOperand): ExpectationOutcome {
  const during = e.raw.during as string;
  const [a, b] = [va.value!, vb.value!];
  const ratio = b === 0 ? (a === 0 ? 1 : Infinity) : a / b;
  const limits = { ...(e.raw.min === undefined ? {} : { min: e.raw.min as number }), ...(e.raw.max === undefined ? {} : { max: e.raw.max as number }) };
  const what = `goodput of the ${selection(e)} over ${during}: ${va.variant} over ${vb.variant}`;
  return bound(e, null, what, ratio, limits, ratioUnit, ` (${rateUnit(a)} vs ${rateUnit(b)})`);
}

/** FCT slowdowns of the selected messages, sorted; one not completed is infinitely slow. */
function slowdowns(e: Expectation, v: VariantData): number[] {
  const sel = e.raw.flows as { from?: unknown; to?: unknown; minBytes?: string | number; maxBytes?: string | number };
  const from = asList(sel.from);
  const to = asList(sel.to);
  const minBytes = sel.minBytes === undefined ? 0 : parseBytes(sel.minBytes);
  const maxBytes = sel.maxBytes === undefined ? Infinity : parseBytes(sel.maxBytes);
  return (v.tables['fct.csv'] ?? [])
    .filter((r: FctRow) => (from === null || from.includes(r.from)) && (to === null || to.includes(r.to)) && r.sizeBytes >= minBytes && r.sizeBytes <= maxBytes)
    .map((r) => r.slowdown ?? Infinity)
    .sort((x, y) => x - y);
}

function fctSlowdown(e: Expectation, v: VariantData): ExpectationOutcome {
  const p = e.raw.percentile as number;
  const values = slowdowns(e, v);
  const what = `P${p} FCT slowdown of the messages of the ${selection(e)}`;
  if (values.length === 0) return outcome(e, v.name, what, false, 'no such message in fct.csv', 'messages to measure', 'nothing measured', null);
  const limits = { ...(e.raw.min === undefined ? {} : { min: e.raw.min as number }), ...(e.raw.max === undefined ? {} : { max: e.raw.max as number }) };
  const unfinished = values.filter((x) => x === Infinity).length;
  return bound(e, v, what, nearestRank(values, p)!, limits, ratioUnit, ` (${values.length} messages${unfinished > 0 ? `, ${unfinished} not completed` : ''})`);
}

function fctSlowdownRatio(e: Expectation, va: RatioOperand, vb: RatioOperand): ExpectationOutcome {
  const p = e.raw.percentile as number;
  const what = `P${p} FCT slowdown of the messages of the ${selection(e)}: ${va.variant} over ${vb.variant}`;
  if (va.value === null || vb.value === null) return outcome(e, null, what, false, 'no such message in fct.csv', 'messages to measure', 'nothing measured', null);
  const [x, y] = [va.value, vb.value];
  const ratio = y === Infinity ? (x === Infinity ? 1 : 0) : x / y;
  const limits = { ...(e.raw.min === undefined ? {} : { min: e.raw.min as number }), ...(e.raw.max === undefined ? {} : { max: e.raw.max as number }) };
  return bound(e, null, what, ratio, limits, ratioUnit, ` (${ratioUnit(x)} vs ${ratioUnit(y)})`);
}

/** When `from` first paused a neighbour: the first PAUSE arriving at a transmitter facing it. */
function firstPauseFrom(v: VariantData, from: string): number | null {
  const [node, port] = from.split(':') as [string, string | undefined];
  const rows = (v.tables['pfc.csv'] ?? []).filter((r: PfcRow) => {
    if (r.event !== 'pause') return false;
    const peer = peerOf(v.pod, r.node, r.port);
    return peer !== null && peer.node === node && (port === undefined || peer.port === port);
  });
  return rows.length === 0 ? null : Math.min(...rows.map((r) => r.timeUs));
}

function pausePropagated(e: Expectation, v: VariantData): ExpectationOutcome {
  const from = e.raw.from as string;
  const to = nodesOf(e.raw.to, v.pod);
  const all = e.raw.reach === 'all';
  const withinPs = parseDuration(e.raw.within as string);
  const what = `a PAUSE reaches ${all ? 'every one of' : ''} ${describeNodes(e.raw.to)} within ${timeUnit(withinPs)} of ${from} pausing`.replace('  ', ' ');
  const start = firstPauseFrom(v, from);
  if (start === null) return outcome(e, v.name, what, false, `${from} never paused anyone`, `≤ ${timeUnit(withinPs)}`, 'no pause to follow', null);
  const firsts = [...to].map((n) => {
    const rows = (v.tables['pfc.csv'] ?? []).filter((r: PfcRow) => r.node === n && r.event === 'pause' && r.timeUs >= start);
    return { node: n, atUs: rows.length === 0 ? Infinity : Math.min(...rows.map((r) => r.timeUs)) };
  });
  const reached = firsts.filter((f) => Number.isFinite(f.atUs));
  const decisive = all ? firsts.reduce((x, y) => (y.atUs > x.atUs ? y : x)) : firsts.reduce((x, y) => (y.atUs < x.atUs ? y : x));
  const tookPs = (decisive.atUs - start) * PS_PER_US;
  const note = Number.isFinite(tookPs) ? ` (${decisive.node} at ${timeUnit(decisive.atUs * PS_PER_US + v.traceOriginPs)}; ${reached.length} of ${to.size} reached)` : ` (${reached.length} of ${to.size} reached)`;
  return bound(e, v, what, tookPs, { max: withinPs }, timeUnit, note);
}

function pauseContained(e: Expectation, v: VariantData): ExpectationOutcome {
  const to = nodesOf(e.raw.to, v.pod);
  const from = e.raw.from as string | undefined;
  const during = e.raw.during as string | undefined;
  const [a, b] = during === undefined ? [-Infinity, Infinity] : windowUs(during, v);
  const start = Math.max(a, from === undefined ? -Infinity : (firstPauseFrom(v, from) ?? Infinity));
  const rows = (v.tables['pfc.csv'] ?? []).filter((r: PfcRow) => to.has(r.node) && r.event === 'pause' && r.timeUs >= start && r.timeUs < b);
  const what = `no PAUSE reaches ${describeNodes(e.raw.to)}${from ? ` after ${from} starts pausing` : ''}${during ? ` in ${during}` : ''}`;
  const nodes = [...new Set(rows.map((r) => `${r.node}:${r.port}`))].sort();
  const first = rows.length === 0 ? null : Math.min(...rows.map((r) => r.timeUs));
  return outcome(
    e,
    v.name,
    what,
    rows.length === 0,
    rows.length === 0 ? 'no PAUSE there' : `${rows.length} PAUSE frames at ${nodes.slice(0, 5).join(', ')}${nodes.length > 5 ? ', …' : ''}, the first at ${timeUnit(first! * PS_PER_US + v.traceOriginPs)}`,
    'none',
    rows.length === 0 ? 'contained' : `${rows.length} too many`,
    rows.length,
  );
}

function deadlock(e: Expectation, v: VariantData): ExpectationOutcome {
  const expected = e.raw.expected as boolean;
  const stallPs = e.raw.stall === undefined ? 100 * PS_PER_US : parseDuration(e.raw.stall as string);
  const switches = v.pod.nodes.filter((n) => n.role !== 'host' && n.role !== 'tor').map((n) => n.name);
  const found = findDeadlock({
    queue: (v.tables['queue.csv'] ?? []),
    links: v.pod.links.map((l) => ({ a: l.a, b: l.b })),
    stallUs: stallPs / PS_PER_US,
    hairpinNodes: switches,
  });
  const what = expected ? `a PFC deadlock forms (a cycle of paused, non-empty queues stuck for ${timeUnit(stallPs)})` : `no PFC deadlock (no cycle of paused, non-empty queues stuck for ${timeUnit(stallPs)})`;
  const measured =
    found === null
      ? 'no cycle'
      : `cycle ${found.cycle.map((q) => `${q.node}:${q.port}:${q.priority}`).join(' → ')} from ${timeUnit(found.atUs * PS_PER_US + v.traceOriginPs)}${found.untilUs === null ? ' to the end' : ` until ${timeUnit(found.untilUs * PS_PER_US + v.traceOriginPs)}`}`;
  const pass = (found !== null) === expected;
  return outcome(e, v.name, what, pass, measured, expected ? 'a cycle' : 'no cycle', pass ? 'as expected' : expected ? 'no deadlock formed' : 'a deadlock formed', found === null ? 0 : found.cycle.length);
}

/** Round trips (ps) of the probes posted in the window (of the hosts `flows` selects, if given); a lost one is infinitely late. */
function rtts(v: VariantData, during: string, flows?: unknown): number[] {
  const [a, b] = windowUs(during, v);
  const sel = (flows ?? {}) as { from?: unknown; to?: unknown };
  const from = asList(sel.from);
  const to = asList(sel.to);
  return (v.tables['probes.csv'] ?? [])
    .filter((r: ProbeRow) => r.timeUs >= a && r.timeUs < b && (from === null || from.includes(r.from)) && (to === null || to.includes(r.to)))
    .map((r) => (r.rttUs === null ? Infinity : r.rttUs * PS_PER_US))
    .sort((x, y) => x - y);
}

function probeLatency(e: Expectation, v: VariantData): ExpectationOutcome {
  const p = e.raw.percentile as number;
  const during = e.raw.during as string;
  const values = rtts(v, during, e.raw.flows);
  const what = `P${p} of the round trips of the ${e.raw.flows === undefined ? 'probes' : selection(e).replace('flows', 'probes')} posted in ${during}`;
  if (values.length === 0) return outcome(e, v.name, what, false, 'no probe in the window', 'probes to measure', 'nothing measured', null);
  const limits = { ...(e.raw.min === undefined ? {} : { min: parseDuration(e.raw.min as string) }), ...(e.raw.max === undefined ? {} : { max: parseDuration(e.raw.max as string) }) };
  return bound(e, v, what, nearestRank(values, p)!, limits, timeUnit, ` (${values.length} probes)`);
}

const bytesUnit: Unit = (b) => (Math.abs(b) >= 1e6 ? `${round(b / 1e6)} MB` : Math.abs(b) >= 1e3 ? `${round(b / 1e3)} kB` : `${round(b)} B`);

function queueDepth(e: Expectation, v: VariantData): ExpectationOutcome {
  const [node, port, prio = '3'] = (e.raw.queue as string).split(':') as [string, string, string?];
  const p = e.raw.percentile as number;
  const during = e.raw.during as string;
  const [a, b] = windowUs(during, v);
  const depths = (v.tables['queue.csv'] ?? [])
    .filter((r: QueueRow) => r.node === node && r.port === port && r.priority === Number(prio) && r.timeUs >= a && r.timeUs < b)
    .map((r) => r.queueBytes)
    .sort((x, y) => x - y);
  const what = `P${p} of ${node}:${port} priority ${prio}'s queue over ${during}`;
  if (depths.length === 0) return outcome(e, v.name, what, false, 'no sample of that queue in the window', 'samples to measure', 'nothing measured', null);
  const limits = { ...(e.raw.min === undefined ? {} : { min: parseBytes(e.raw.min as string) }), ...(e.raw.max === undefined ? {} : { max: parseBytes(e.raw.max as string) }) };
  return bound(e, v, what, nearestRank(depths, p)!, limits, bytesUnit, ` (${depths.length} samples)`);
}

function probeLatencyRatio(e: Expectation, v: VariantData): ExpectationOutcome {
  const p = e.raw.percentile as number;
  const [during, baseline] = [e.raw.during as string, e.raw.baseline as string];
  const [now, base] = [rtts(v, during), rtts(v, baseline)];
  const what = `P${p} of the probe round trips in ${during} over that in ${baseline}`;
  if (now.length === 0 || base.length === 0) return outcome(e, v.name, what, false, 'no probe in a window', 'probes to measure', 'nothing measured', null);
  const [x, y] = [nearestRank(now, p)!, nearestRank(base, p)!];
  const limits = { ...(e.raw.min === undefined ? {} : { min: e.raw.min as number }), ...(e.raw.max === undefined ? {} : { max: e.raw.max as number }) };
  return bound(e, v, what, x / y, limits, ratioUnit, ` (${timeUnit(x)} vs ${timeUnit(y)})`);
}

function metric(e: Expectation, v: VariantData): ExpectationOutcome {
  const name = e.raw.name as string;
  const labels = (e.raw.labels ?? {}) as Record<string, string>;
  const op = e.raw.op as '<' | '<=' | '==' | '>=' | '>';
  const target = e.raw.value as number;
  const value = metricValue(name, labels, v.result.nodes ?? [], v.tables);
  const sel = Object.entries(labels).map(([k, x]) => `${k}="${x}"`).join(',');
  const unit = metricUnit(name);
  const what = `${name}${sel ? `{${sel}}` : ''} at the end ${op} ${unit(target)}`;
  const pass = op === '<' ? value < target : op === '<=' ? value <= target : op === '==' ? value === target : op === '>=' ? value >= target : value > target;
  return outcome(e, v.name, what, pass, unit(value), `${op} ${unit(target)}`, pass ? `${unit(Math.abs(value - target))} from the bound` : `${unit(Math.abs(value - target))} the wrong side`, value);
}

/** A metric's value with its unit, from the Prometheus name's suffix: seconds as µs or ms (7.5 µs, not 0), bytes as B/kB/MB, the rest counted. */
export function metricUnit(name: string): Unit {
  if (name.endsWith('_seconds_total')) return (s) => timeUnit(s * 1e12);
  if (name.endsWith('_bytes_total')) return bytesUnit;
  const word = COUNTED.find(([part]) => name.includes(part))?.[1] ?? 'events';
  return (n) => `${round(n)} ${word}`;
}

/** What a counter counts, by a part of its name. */
const COUNTED: ReadonlyArray<[string, string]> = [
  ['_frames_', 'frames'], ['_packets_', 'packets'], ['_segments_', 'segments'], ['_storms_', 'storms'], ['_cnp_', 'CNPs'], ['_naks_', 'NAKs'],
  ['_expirations_', 'timeouts'], ['_window_cuts_', 'window cuts'], ['_updates_', 'credit updates'],
];
