/**
 * A live session as a drill (`rocelab fault export`, issue 24): pure, from the session's fault log,
 * its pod and (for the drafted expectations) the trace tables of the session run again.
 *
 * The faults are the session's live faults as they applied: each with its stamped time, and a
 * fault cleared through the API gets `for` = clear − at — to the engine a clear is that `for`
 * (runtime `scheduleClear`), numbered as the fault, so the drill's trace hash is the session's
 * as long as the live faults are numbered right after the topology's, as a drill numbers its own
 * faults. A fault withdrawn before it applied kept its number in the session: the faults after
 * it are numbered one lower in the drill, and the hashes differ (`warnings` says so).
 *
 * The expectations are drafts of what the run shows, each commented as one, for the user to
 * edit: per fault, the first PAUSE after it and how far pausing spread (`pausePropagated`) or that
 * none came (`pauseContained`), watchdog or NIC stall-prevention detections
 * (`watchdogDetected`), and the flows whose goodput fell during it (`flowGoodput` with `max`).
 * Bounds leave a margin over what was measured (×1.5 on times, ×1.25 on goodput).
 */
import { parseDuration, type PodSpec } from '@rocelab/topology';
import type { EventRow, PfcRow, RateRow } from '@rocelab/results';
import { CLEAR_KIND, faultPayload, type FaultLogEntry } from '@rocelab/runtime';

/** A fault log as `rocelab up --fault-log` writes it. */
export interface SessionLog {
  pod: string;
  seed: number;
  /** Where the session stopped. */
  virtualNs: number;
  traceHash: string | null;
  /** Every record: topology faults, live faults, clears. */
  faults: readonly FaultLogEntry[];
}

/** What the session did, as the traces of its run again say (times in µs from `originPs`). */
export interface Observed {
  originPs: number;
  pfc: readonly PfcRow[];
  events: readonly EventRow[];
  rates: readonly RateRow[];
}

export interface DraftInput {
  log: SessionLog;
  /** Its name as the log names it (for the header). */
  logName: string;
  pod: PodSpec;
  /** The topology as the drill names it (relative to the drill). */
  topology: string;
  observed: Observed | null;
}

/** One live fault as it applied: its record, its item as drawn, and its end (a clear, or its own `for`). */
export interface AppliedFault {
  id: number;
  target: string;
  item: Record<string, unknown>;
  atPs: number;
  /** When a clear ended it; null: not cleared. */
  clearedAtPs: number | null;
}

/** The live faults as they applied, in number order; each clear folded into the fault it ended. */
export function appliedFaults(log: readonly FaultLogEntry[]): AppliedFault[] {
  const live = log.filter((e) => e.source === 'live');
  const cleared = new Map<number, number>();
  for (const e of live) {
    const { clears } = faultPayload(e);
    if (e.kind === CLEAR_KIND && clears !== null) cleared.set(clears.fault, e.atPs);
  }
  return live
    .filter((e) => e.kind !== CLEAR_KIND)
    .sort((a, b) => a.id - b.id)
    .map((e) => ({ id: e.id, target: e.target, item: { ...faultPayload(e).item }, atPs: e.atPs, clearedAtPs: cleared.get(e.id) ?? null }));
}

/** When an applied fault ended: its clear, else its own `for`; null: it never did. */
export function appliedEndPs(f: AppliedFault): number | null {
  return f.clearedAtPs ?? (typeof f.item.for === 'string' ? f.atPs + parseDuration(f.item.for) : null);
}

/** `ps` exactly, in the largest unit that holds it whole (a drill's times must be the session's to the ps). */
export function exactDuration(ps: number): string {
  for (const [unit, scale] of [['ms', 1e9], ['us', 1e6], ['ns', 1e3]] as const) if (ps % scale === 0) return `${ps / scale}${unit}`;
  return `${ps}ps`;
}

/** A draft bound: `x` scaled up and rounded up to 2 significant digits. */
function roundUp(x: number): number {
  if (x <= 0) return 0;
  const step = 10 ** (Math.floor(Math.log10(x)) - 1);
  return Math.ceil(x / step) * step;
}
const us = (ps: number) => `${+(ps / 1e6).toFixed(3)}us`;
const gbps = (bps: number) => `${+(bps / 1e9).toFixed(2)}G`;

/** A YAML flow mapping of plain values (JSON values are YAML). */
function flow(o: Record<string, unknown>): string {
  return `{${Object.entries(o)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ')}}`;
}

export interface Draft {
  /** The drill file's text. */
  text: string;
  /** What the user must know (on stderr): why the hash may differ, a seed that moves draws. */
  warnings: string[];
}

/** The drill of a session: header, faults as they applied, drafted expectations. */
export function draftDrill(input: DraftInput): Draft {
  const { log, pod } = input;
  const durationPs = Math.round(log.virtualNs * 1000);
  const faults = appliedFaults(log.faults);
  const warnings: string[] = [];
  const first = pod.faults.length;
  faults.forEach((f, i) => {
    if (f.id !== first + i) warnings.push(`fault ${f.id} is numbered ${first + i} in the drill (a fault before it was withdrawn, or the log is older than clears numbered as their fault): the drill runs the same faults at the same times, but its trace hash differs from the session's`);
  });
  if (log.seed !== pod.seed && pod.faults.some((f) => f.drawnFrom !== undefined)) warnings.push(`the session ran with seed ${log.seed}, not the topology's ${pod.seed}: the drill's seed is ${log.seed}, so the topology's random faults draw from it, not as they did in the session`);
  const lines: string[] = [
    `# A drill drafted by \`rocelab fault export\` from the fault log ${input.logName}: pod ${pod.name}, seed ${log.seed},`,
    `# stopped at ${exactDuration(durationPs)} of virtual time${log.traceHash === null ? '' : `, trace hash ${log.traceHash}`}.`,
    '# Its faults are the live faults as they applied (a fault cleared through the API has `for` up to its clear),',
    '# so `rocelab drill run` of this file runs the session again: the same events, the same trace hash.',
    '# Every expectation below is a DRAFT from what the session did: check each bound against what you',
    '# expect to hold, tighten or drop it, and say where its figure comes from.',
    `title: ${JSON.stringify(`Live session of pod ${pod.name} (${faults.length} live fault${faults.length === 1 ? '' : 's'})`)}`,
    `source: ${JSON.stringify(`a live session (rocelab up), fault log ${input.logName}`)}`,
    `topology: ${JSON.stringify(input.topology)}`,
    `seed: ${log.seed}`,
    `duration: ${exactDuration(durationPs)}`,
  ];
  if (faults.length > 0) lines.push('faults:');
  for (const f of faults) {
    const { at: _at, for: ownFor, kind, ...rest } = f.item;
    const item: Record<string, unknown> = { at: exactDuration(f.atPs), kind, ...rest };
    if (f.clearedAtPs !== null) item.for = exactDuration(f.clearedAtPs - f.atPs);
    else if (ownFor !== undefined) item.for = ownFor;
    const note = `at ${us(f.atPs)}, ${f.clearedAtPs !== null ? `cleared at ${us(f.clearedAtPs)}` : ownFor !== undefined ? 'ended by its own for' : 'never cleared'}`;
    lines.push(`  # session fault ${f.id}: ${note}`, `  - ${flow(item)}`);
  }
  const expect = input.observed === null ? [] : draftExpectations(faults, durationPs, input.pod, input.observed);
  if (expect.length === 0) expect.push({ why: 'nothing observed to draft from (replace with what the session should show)', item: { kind: 'deadlock', expected: false } });
  lines.push('expect:');
  for (const e of expect) lines.push(`  # draft: ${e.why}`, `  - ${flow(e.item)}`);
  return { text: `${lines.join('\n')}\n`, warnings };
}

interface Drafted {
  why: string;
  item: Record<string, unknown>;
}

function peer(pod: PodSpec, node: string, port: string): { node: string; port: string } | null {
  const n = pod.nodes.find((x) => x.name === node);
  const p = n?.ports.find((x) => x.name === port);
  if (n === undefined || p === undefined) return null;
  const other = pod.nodes[p.peerNode]!;
  return { node: other.name, port: other.ports[p.peerPort]!.name };
}

/** Expectations per fault, from the observed traces: pauses, watchdog detections, victims' goodput. */
export function draftExpectations(faults: readonly AppliedFault[], durationPs: number, pod: PodSpec, o: Observed): Drafted[] {
  const out: Drafted[] = [];
  const abs = (timeUs: number) => Math.round(timeUs * 1e6) + o.originPs;
  for (const f of faults) {
    const endPs = Math.min(appliedEndPs(f) ?? durationPs, durationPs);
    if (endPs <= f.atPs) continue;
    // Faults in force at once share what the traces show: the draft says so, the user tells them apart.
    const overlapping = faults.filter((g) => g !== f && g.atPs < endPs && (g.clearedAtPs ?? durationPs) > f.atPs).map((g) => g.id);
    const label = `fault ${f.id} (${String(f.item.kind)}${overlapping.length === 0 ? '' : `; fault${overlapping.length === 1 ? '' : 's'} ${overlapping.join(', ')} in force too`})`;
    const window = `${us(f.atPs)}-${us(endPs)}`;
    const pauses = o.pfc.filter((r) => r.event === 'pause' && abs(r.timeUs) >= f.atPs && abs(r.timeUs) < endPs);
    const firstPause = pauses[0];
    const pauser = firstPause === undefined ? null : peer(pod, firstPause.node, firstPause.port);
    if (pauser === null) {
      out.push({ why: `no PAUSE reached any switch while ${label} lasted`, item: { kind: 'pauseContained', to: { role: 'switch' }, during: window } });
    } else {
      const firstAt = new Map<string, number>();
      for (const r of pauses) if (!firstAt.has(r.node) && r.node !== pauser.node) firstAt.set(r.node, abs(r.timeUs));
      const startPs = abs(firstPause!.timeUs);
      const to = [...firstAt.keys()].sort();
      const lastPs = Math.max(...firstAt.values());
      if (to.length > 0) {
        out.push({
          why: `after ${label}, ${pauser.node} paused first (its neighbour at ${us(startPs)}); pausing reached ${to.length} node${to.length === 1 ? '' : 's'} (${to.join(', ')}), the last ${us(lastPs - startPs)} later; within = 1.5× that`,
          item: { kind: 'pausePropagated', from: pauser.node, to, reach: 'all', within: us(Math.max(roundUp(1.5 * (lastPs - startPs)), 1e6)) },
        });
        const others = pod.nodes.filter((n) => n.role !== 'host' && !firstAt.has(n.name) && n.name !== pauser.node).map((n) => n.name);
        if (others.length > 0) out.push({ why: `no other switch was paused while ${label} lasted`, item: { kind: 'pauseContained', to: others, during: window } });
      }
    }
    const detections = o.events.filter((r) => (r.event === 'pfcwd_storm_detected' || r.event === 'nic_stall_error') && abs(r.timeUs) >= f.atPs && abs(r.timeUs) < endPs);
    const seen = new Set<string>();
    for (const d of detections) {
      const key = `${d.node}:${d.port}:${d.priority ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const tookPs = abs(d.timeUs) - f.atPs;
      const host = pod.nodes.find((n) => n.name === d.node)?.role === 'host';
      out.push({
        why: `${host ? `${d.node}'s NIC stall prevention` : `the watchdog of ${d.node}:${d.port}`} fired ${us(tookPs)} after ${label} began; within = 1.5× that`,
        item: { kind: 'watchdogDetected', node: d.node, ...(host ? {} : { port: d.port, priority: d.priority ?? 3 }), within: us(Math.max(roundUp(1.5 * tookPs), 1e6)) },
      });
    }
    out.push(...victims(f, endPs, label, o, abs));
  }
  return out;
}

/**
 * Flows whose goodput during the fault fell below 90 % of theirs over as long a time before it
 * (from the traffic's start at most; the four hardest hit): a `max` of 1.25× what they kept.
 */
function victims(f: AppliedFault, endPs: number, label: string, o: Observed, abs: (timeUs: number) => number): Drafted[] {
  const beforePs = Math.max(o.originPs, f.atPs - (endPs - f.atPs));
  if (beforePs >= f.atPs) return [];
  const byFlow = new Map<string, RateRow[]>();
  for (const r of o.rates) byFlow.set(`${r.node}>${r.dst}:${r.qp}`, [...(byFlow.get(`${r.node}>${r.dst}:${r.qp}`) ?? []), r]);
  const ackedAt = (rows: RateRow[], ps: number) => rows.filter((r) => abs(r.timeUs) <= ps).reduce((x, r) => Math.max(x, r.ackedBytes), 0);
  const rate = (rows: RateRow[], a: number, b: number) => ((ackedAt(rows, b) - ackedAt(rows, a)) * 8) / ((b - a) / 1e12);
  const hit = [...byFlow.values()]
    .map((rows) => ({ from: rows[0]!.node, to: rows[0]!.dst, before: rate(rows, beforePs, f.atPs), during: rate(rows, f.atPs, endPs) }))
    .filter((x) => x.before > 0 && x.during < 0.9 * x.before)
    .sort((a, b) => a.during / a.before - b.during / b.before || (a.from < b.from ? -1 : 1))
    .slice(0, 4);
  return hit.map((x) => ({
    why: `${x.from} → ${x.to} kept ${gbps(x.during)}b/s while ${label} lasted, against ${gbps(x.before)}b/s before it; max = 1.25× what it kept`,
    item: { kind: 'flowGoodput', flows: { from: x.from, to: x.to }, during: `${us(f.atPs)}-${us(endPs)}`, max: x.during === 0 ? 0 : gbps(roundUp(1.25 * x.during)) },
  }));
}
