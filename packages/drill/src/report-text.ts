/**
 * What report.md and report.html both say, as plain text cells: the verdict, what ran, the
 * faults, the expectations and the headline numbers of each run. The two renderers only add
 * their markup and escaping, so the two files cannot drift apart.
 */
import type { IncidentFigures } from './incident.js';
import type { DrillReport, ExpectationOutcome, FaultOutcome, TimelineRow, VariantOutcome, VariantRun } from './report-model.js';

/** Every expectation of the report: each variant's, then those across variants. */
export const allExpectations = (report: DrillReport): ExpectationOutcome[] => [...report.variants.flatMap((v) => v.expectations), ...report.acrossVariants];

export interface Verdict {
  pass: boolean;
  total: number;
  failed: ExpectationOutcome[];
}

export function verdict(report: DrillReport): Verdict {
  const all = allExpectations(report);
  return { pass: report.pass, total: all.length, failed: all.filter((e) => !e.pass) };
}

/** `expect[2] (variant baseline)` or `expect[4] (across variants)`. */
export const whereOf = (e: ExpectationOutcome): string => (e.variant === null ? 'across variants' : `variant ${e.variant}`);

/** The verdict's sentence after PASS/FAIL, without the failing ids (the renderers mark those up). */
export function verdictSummary(v: Verdict): string {
  if (v.failed.length > 0) return `${v.failed.length} of ${v.total} expectation${v.total === 1 ? '' : 's'} failed:`;
  if (v.pass) return v.total === 0 ? 'no expectations to check.' : `all ${v.total} expectation${v.total === 1 ? '' : 's'} held.`;
  return 'every expectation held, but a run did not (see the runs below).';
}

/** A time in ns with the unit that reads best: `2.000 ms`, `12.500 µs`, `800 ns`. */
export function formatNs(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(3)} µs`;
  return `${Number(ns.toFixed(1))} ns`;
}

export const RAN_HEADER = ['variant', 'result', 'mode', 'seed', 'profile', 'timing', 'virtual time', 'wall time', 'trace hash'];
export const ranRow = (v: VariantOutcome): string[] => [
  v.name, v.pass ? 'PASS' : 'FAIL', v.run.mode, String(v.run.seed), v.run.profile, v.run.timing, formatNs(v.run.virtualNs), `${v.run.wallMs} ms`, v.run.traceHash,
];

export const FAULT_HEADER = ['#', 'fault', 'target', 'at', 'until', 'from', 'parameters'];
export const faultRow = (f: FaultOutcome): string[] => {
  const drawn = (key: string, what = '') => (f.drawnFrom?.[key] === undefined ? '' : ` (${what}drawn from ${drawnForm(f.drawnFrom[key])})`);
  const until = f.untilNs === null ? '–' : `${formatNs(f.untilNs)}${drawn('for', `for ${formatNs(f.untilNs - f.atNs)}, `)}`;
  return [
    String(f.id), f.kind, `${f.target}${drawn('node')}`, `${formatNs(f.atNs)}${drawn('at')}`, until, f.source,
    Object.keys(f.params).length === 0 ? '–' : JSON.stringify(f.params),
  ];
};

/** A random form in words: `leaf1, tor2`, `any switch`, `uniform 2ms–4ms`. */
function drawnForm(form: unknown): string {
  const f = form as { random?: unknown; uniform?: [string, string] };
  if (Array.isArray(f.random)) return `${(f.random as string[]).join(', ')}`;
  if (typeof f.random === 'string') return `any ${f.random}`;
  if (Array.isArray(f.uniform)) return `uniform ${f.uniform[0]}–${f.uniform[1]}`;
  return JSON.stringify(form);
}

export const EXPECTATION_HEADER = ['id', 'kind', 'what must hold', 'measured', 'expected', 'margin', 'result'];
export const expectationRow = (e: ExpectationOutcome): string[] => [e.id, e.kind, e.why === undefined ? e.description : `${e.description} (why: ${e.why})`, e.measured, e.expected, e.margin, e.pass ? 'PASS' : 'FAIL'];

/** A variant's facts: its audit, each fault's time to detect and to recover, then its run's headline numbers. */
export function variantFacts(v: VariantOutcome): Array<[string, string]> {
  return [['audit', v.audit.text], ...v.incidents.map((i): [string, string] => [`fault ${i.fault}`, incidentText(i)]), ...runFacts(v.run).filter(([label]) => label !== 'conservation')];
}

/** `nicPauseStorm h4 at 2.000 ms: detected 3.000 ms after it (tor2:p2 priority 3); recovered 1.020 ms after its containment (…)`. */
export function incidentText(i: IncidentFigures): string {
  const detect = i.timeToDetectNs === null ? 'no watchdog detected it' : `time to detect ${formatNs(i.timeToDetectNs)} (${i.detectedBy} at ${formatNs(i.detectedNs!)})`;
  const back = i.flows.filter((f) => f.backNs !== null);
  let recover: string;
  if (i.recoveryFrom === null) recover = 'no time to recover: it has no end (no `for`) and no watchdog contained it';
  else if (i.flows.length === 0) recover = `no time to recover: no flow ran before it (from its ${i.recoveryFrom} at ${formatNs(i.recoveryFromNs!)})`;
  else if (i.timeToRecoverNs !== null) recover = `time to recover ${formatNs(i.timeToRecoverNs)} from its ${i.recoveryFrom} at ${formatNs(i.recoveryFromNs!)} (all ${i.flows.length} flows that ran before it back above 90 % of their pre-fault goodput)`;
  else {
    const missing = i.flows.filter((f) => f.backNs === null).map((f) => f.flow);
    recover = `not recovered by the end: ${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', …' : ''} not back above 90 % of their pre-fault goodput (${back.length} of ${i.flows.length} flows back; from its ${i.recoveryFrom} at ${formatNs(i.recoveryFromNs!)})`;
  }
  return `${i.kind} ${i.target} at ${formatNs(i.atNs)}: ${detect}; ${recover}`;
}

/** The headline numbers of a run, as (label, text). */
export function runFacts(run: VariantRun): Array<[string, string]> {
  const drops = Object.entries(run.droppedByReason)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`);
  const { sent, delivered, dropped, queued } = run.packets;
  const f = run.flows;
  const probes = run.probes.sent === 0
    ? 'none'
    : `${run.probes.sent} sent, ${run.probes.lost} lost; p50 ${run.probes.p50Ns === null ? '–' : formatNs(run.probes.p50Ns)}, p99 ${run.probes.p99Ns === null ? '–' : formatNs(run.probes.p99Ns)}`;
  return [
    ['virtual time', `${formatNs(run.virtualNs)} (${run.wallMs} ms of wall time)`],
    ['packets', `sent ${sent}, delivered ${delivered}, dropped ${dropped}${drops.length > 0 ? ` (${drops.join(', ')})` : ''}, queued ${queued}`],
    ['conservation', run.conservation ? 'holds' : 'BROKEN: sent ≠ delivered + dropped + queued'],
    ['flows', `${f.total}: ${f.completed} completed, ${f.pending} pending (${f.stalled} stalled), ${f.failed} failed`],
    ['PFC', `${run.pauseFramesSent} pause frames sent, ${run.pausedPorts} ports paused`],
    ['probes', probes],
  ];
}

/** Who paused whom, per transmitter: the incident timeline's columns (issue 24). */
export const TIMELINE_HEADER = ['port', 'priority', 'first PAUSE sent', 'first PAUSE received', 'paused for', 'paused by', 'because', 'watchdog detected', 'restored'];
export const timelineRow = (r: TimelineRow): string[] => {
  const at = (ns: number | null): string => (ns === null ? '–' : formatNs(ns));
  const because = r.cause ?? (r.firstPauseSentNs === null ? '–' : 'starts here');
  return [r.port, r.priority === null ? '–' : String(r.priority), at(r.firstPauseSentNs), at(r.firstPauseReceivedNs), r.pausedNs === 0 ? '–' : formatNs(r.pausedNs), r.pausedBy ?? '–', because, at(r.watchdogDetectedNs), at(r.watchdogRestoredNs)];
};

/** The note under a timeline with rows left out. */
export const timelineOmittedNote = (v: VariantOutcome): string | null =>
  (v.timelineOmitted ?? 0) > 0 ? `… and ${v.timelineOmitted} more transmitters (pfc.csv and events.csv in the trace have them all)` : null;

/** The variants side by side, at the top of the report: verdict, expectations held and the figures that tell an incident. */
export const SUMMARY_HEADER = ['variant', 'result', 'expectations held', 'PAUSE frames sent', 'ports paused', 'longest paused', 'first storm detected', 'drops', 'flows completed', 'probe p99'];
export function summaryRow(v: VariantOutcome): string[] {
  const held = v.expectations.filter((e) => e.pass).length;
  const timeline = v.timeline ?? [];
  const longest = timeline.reduce((m, r) => Math.max(m, r.pausedNs), 0);
  const detected = timeline.flatMap((r) => (r.watchdogDetectedNs === null ? [] : [r.watchdogDetectedNs])).sort((a, b) => a - b)[0];
  const f = v.run.flows;
  return [
    v.name,
    v.pass ? 'PASS' : 'FAIL',
    `${held} of ${v.expectations.length}`,
    `${v.run.pauseFramesSent} frames`,
    `${v.run.pausedPorts} ports`,
    v.timeline === undefined ? 'not traced' : longest === 0 ? 'none' : formatNs(longest),
    v.timeline === undefined ? 'not traced' : detected === undefined ? 'none' : `at ${formatNs(detected)}`,
    `${v.run.packets.dropped} packets`,
    `${f.completed} of ${f.total} flows`,
    v.run.probes.p99Ns === null ? '–' : formatNs(v.run.probes.p99Ns),
  ];
}
