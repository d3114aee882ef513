/**
 * What a person watching a run sees: a progress bar in virtual time for long runs (on a
 * terminal only; never in --json output or CI logs), and `rocelab status`, the controller's
 * view of a running pod.
 */
import { choosePod, livePodRecords } from './pod-record.js';
import { performance } from 'node:perf_hooks';
import type { AutoPaceView, PaceView, PacingView } from '@rocelab/controller';
import { faultEta } from './fault-eta.js';
import type { Status } from '@rocelab/wire';

/** The controller's GET /status: the wire Status plus what the HTTP view adds. */
export interface StatusView extends Status {
  pod?: string;
  durationPs?: number | null;
  /** The lease held back until the wall clock catches up with the dilation; null when none is. */
  pacing?: PacingView | null;
  /** The pace measured and chosen from the first windows (`rocelab up` without --dilation); null: the dilation is fixed. */
  autoPace?: AutoPaceView | null;
  /** The pace the pod keeps: virtual time completed per wall second, recently; null before it is known. */
  pace?: PaceView | null;
  /** The first fault still to come, by virtual time; null when none is. */
  nextFault?: { id: number; kind: string; target: string; atNs: number } | null;
  /** The faults in force now, and those still to come (`untilNs` null: no end known). */
  activeFaults?: StatusFault[];
  scheduledFaults?: StatusFault[];
  nodes?: Record<string, string>;
}

export interface StatusFault {
  id: number;
  kind: string;
  target: string;
  source: string;
  atNs: number;
  untilNs: number | null;
}

/** Faults listed in `rocelab status` per state, at most (the rest counted): a status is read at a glance. */
const MAX_STATUS_FAULTS = 8;

/** `fault 3 nicPauseStorm on h16 since 10.000 ms (until 12.000 ms), live`, one per row. */
function faultRows(label: string, faults: readonly StatusFault[] | undefined, verb: string): Array<[string, string]> {
  if (faults === undefined) return [];
  if (faults.length === 0) return [[label, 'none']];
  const text = (f: StatusFault) => `fault ${f.id} ${f.kind} on ${f.target} ${verb} ${ms(f.atNs * 1000)}${f.untilNs === null ? '' : ` until ${ms(f.untilNs * 1000)}`} virtual (${f.source})`;
  const rows = faults.slice(0, MAX_STATUS_FAULTS).map((f, i): [string, string] => [i === 0 ? label : '', text(f)]);
  return faults.length > MAX_STATUS_FAULTS ? [...rows, ['', `and ${faults.length - MAX_STATUS_FAULTS} more (rocelab fault list)`]] : rows;
}

const ms = (ps: number): string => `${(ps / 1e9).toFixed(3)} ms`;

/** One line: `[#####-----] 1.234 ms / 2.000 ms virtual  62%  310 windows/s` (the tail is the caller's). */
export function formatProgress(virtualPs: number, durationPs: number, tail: string, width = 30): string {
  const fraction = durationPs > 0 ? Math.min(1, virtualPs / durationPs) : 0;
  const filled = Math.round(fraction * width);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
  return `${bar} ${ms(virtualPs)} / ${ms(durationPs)} virtual  ${Math.floor(fraction * 100)}%${tail ? `  ${tail}` : ''}`;
}

const drawing = (): boolean => process.stderr.isTTY === true && !process.env.CI;
const barWidth = (): number => Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - 60));

/** `rocelab status`: a few aligned lines a person reads at a glance. */
export function formatStatus(s: StatusView): string {
  const rows: Array<[string, string]> = [
    ['pod', `${s.pod ?? '(unnamed)'}: ${s.state}`],
    ['virtual time', `${ms(s.virtualPs)}${s.durationPs ? ` of ${ms(s.durationPs)}` : ''}`],
    ['dilation', dilationText(s)],
    ['lag', lagText(s)],
    ['windows', `${s.windows} (${s.windowsPerSecond.toFixed(1)} per wall second${s.pacing ? ', none while held for pacing' : ''})`],
    ...(s.pacing ? [['pacing', pacingText(s.pacing, s.dilation)] as [string, string]] : []),
    ...(s.pace ? [['pace', paceText(s.pace, s.dilation)] as [string, string]] : []),
    ['nodes up', `${s.nodesUp} of ${s.nodesTotal}`],
    ...faultRows('faults active', s.activeFaults, 'since'),
    ...faultRows('scheduled', s.scheduledFaults, 'at'),
    ...(s.nextFault ? [['next fault', nextFaultText(s.nextFault, s)] as [string, string]] : []),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return `${rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`;
}

/**
 * A lag past this is no hiccup (a paced lease spans at most 0.4 s of wall time): the pod cannot
 * keep its pace now, and status says so. A chosen pace is kept all the same (`auto-pace.ts`).
 */
export const BEHIND_NOTE_SECONDS = 2;

/** `8400 wall s per virtual s, chosen from the first windows (…)`, or how it is being measured. */
export function autoPaceText(p: AutoPaceView): string {
  if (p.state === 'measuring') return `none yet: running unpaced to measure the pace (the first ${p.measureWindows} windows or ${p.measureWallSeconds} s of wall time; ${p.windows} run)`;
  return `${p.dilation} wall s per virtual s, the pace chosen from the first windows (${p.windows} windows took ${readable(p.measuredDilation)} wall s per virtual s over ${p.wallSeconds.toFixed(1)} s; ×${p.headroom} headroom)`;
}

const readable = (x: number): string => (x >= 100 ? Math.round(x).toString() : Number(x.toPrecision(2)).toString());

function dilationText(s: StatusView): string {
  if (s.autoPace) return autoPaceText(s.autoPace);
  if (s.dilation === 0) return 'none (as fast as possible)';
  // An older controller says nothing of where its dilation comes from.
  return `${s.dilation} wall s per virtual s${s.autoPace === null ? ' (fixed when the pod started)' : ''}`;
}

function lagText(s: StatusView): string {
  const lag = `${s.lagSeconds.toFixed(3)} s behind the paced schedule`;
  if (s.lagSeconds <= BEHIND_NOTE_SECONDS) return lag;
  const chosen = s.autoPace?.state === 'chosen' ? ', chosen from its first windows, and keeps it (rocelab up --dilation D fixes a slower one)' : '';
  return `${lag}: the pod cannot keep this pace now${chosen}`;
}

const msPerSecond = (psPerSecond: number): string => `${(psPerSecond / 1e9).toFixed(3)} ms virtual per wall s`;

/** `0.084 ms virtual per wall s over the last 10 s (dilation 10000 asks 0.100)`. */
function paceText(p: PaceView, dilation: number): string {
  const asked = dilation > 0 ? ` (dilation ${dilation} asks ${(1e3 / dilation).toFixed(3)})` : '';
  return `${msPerSecond(p.virtualPsPerWallSecond)} over the last ${p.overSeconds.toFixed(0)} s${asked}`;
}

/**
 * `nicPauseStorm on h16 at 10.000 ms virtual: in ≈ 95 s at the pace the pod keeps (…)`: when
 * it comes in wall time at the pace observed over the last seconds (`faultEta`); before there
 * is one, at the dilation.
 */
function nextFaultText(f: NonNullable<StatusView['nextFault']>, s: StatusView): string {
  const head = `${f.kind} on ${f.target} at ${ms(f.atNs * 1000)} virtual`;
  const eta = faultEta(f.atNs * 1000, s.virtualPs, s.pace ?? null, s.dilation);
  if (eta.basis === 'pace') {
    const window = `over the last ${s.pace!.overSeconds.toFixed(0)} s`;
    if (eta.seconds === null) return `${head}: no estimate, no virtual time passed ${window}`;
    const atDilation = s.dilation > 0 ? `; at dilation ${s.dilation} it would be ${((Math.max(0, f.atNs * 1000 - s.virtualPs) / 1e12) * s.dilation).toFixed(0)} s` : '';
    return `${head}: in ≈ ${eta.seconds.toFixed(0)} s at the pace the pod keeps (${msPerSecond(s.pace!.virtualPsPerWallSecond)} ${window}${atDilation})`;
  }
  if (eta.basis === 'dilation') return `${head}: in ≈ ${eta.seconds!.toFixed(0)} s at dilation ${s.dilation} (no pace measured yet)`;
  return `${head} (no pacing: as soon as the machine gets there)`;
}

/**
 * `held: lease 12 (1.000 ms → 1.100 ms virtual) goes out in 83.2 s, at 2026-11-25T04:12:31.123Z
 * (dilation 10000: the pod is on time and waits for the wall clock)`.
 */
export function pacingText(p: PacingView, dilation: number): string {
  return `held: lease ${p.lease} (${ms(p.leaseStartPs)} → ${ms(p.leaseEndPs)} virtual) goes out in ${p.releaseInSeconds.toFixed(1)} s, at ${p.releaseAt} (dilation ${dilation}: the pod is on time and waits for the wall clock)`;
}

/** One bar line on stderr, redrawn in place and cleared at the end; null unless stderr is a terminal and not in CI. */
function barLine(durationPs: number): { draw: (virtualPs: number, tail: string) => void; clear: () => void } | null {
  if (!drawing()) return null;
  const err = process.stderr;
  let drawn = false;
  return {
    draw: (virtualPs, tail) => {
      err.write(`\r${formatProgress(virtualPs, durationPs, tail, barWidth())}`);
      drawn = true;
    },
    clear: () => {
      if (drawn) err.write('\r\x1b[2K');
    },
  };
}

/**
 * Redraws the bar every `everyMs` while `read` gives a status; returns the stop function,
 * which clears the line. A no-op unless stderr is a terminal and not in CI.
 */
export function showProgress(read: () => Promise<Status | null> | Status | null, durationPs: number, everyMs = 250): () => void {
  const line = barLine(durationPs);
  if (line === null) return () => undefined;
  const timer = setInterval(() => {
    void Promise.resolve(read()).then(
      (status) => {
        if (status === null) return;
        const pacing = (status as StatusView).pacing;
        line.draw(status.virtualPs, pacing ? `held for pacing: the next lease goes out in ${pacing.releaseInSeconds.toFixed(0)} s` : `${Math.round(status.windowsPerSecond)} windows/s`);
      },
      () => undefined,
    );
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    line.clear();
  };
}

/**
 * The bar for a run that holds the event loop (`inproc`): `update` is called between slices of
 * virtual time and redraws at most every `everyMs` of wall time (display only).
 */
export function inlineProgress(durationPs: number, everyMs = 250): { update: (virtualPs: number) => void; stop: () => void } | null {
  const line = barLine(durationPs);
  if (line === null) return null;
  const start = performance.now();
  let last = -Infinity;
  return {
    update: (virtualPs) => {
      const now = performance.now();
      if (now - last < everyMs) return;
      last = now;
      line.draw(virtualPs, `${(virtualPs / 1e9 / ((now - start) / 1000)).toFixed(2)} virtual ms per wall s`);
    },
    stop: line.clear,
  };
}

/** A controller's GET /status; throws when nothing answers in time or the answer is not 200. */
export async function fetchStatus(url: string, timeoutMs: number): Promise<StatusView> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as StatusView;
}

/** Compose publishes the controller here. */
const COMPOSE_CONTROLLER = 'http://127.0.0.1:7000';

/**
 * `controller` as given, else ROCELAB_CONTROLLER, else the pod this user's `rocelab up` runs (the
 * one started last, with a note naming the others when there are several), else compose's.
 */
export function resolveController(given: string | null): { url: string; from: string; note: string | null } {
  if (given !== null) return { url: given, from: '--controller', note: null };
  if (process.env.ROCELAB_CONTROLLER) return { url: process.env.ROCELAB_CONTROLLER, from: 'ROCELAB_CONTROLLER', note: null };
  const found = choosePod(livePodRecords());
  if (found !== null) return { url: found.chosen.controller, from: `the pod ${found.chosen.pod} that rocelab up runs (process ${found.chosen.pid})`, note: found.note };
  return { url: COMPOSE_CONTROLLER, from: 'the compose pod\'s address (no rocelab up runs)', note: null };
}

/** `rocelab status [--controller URL] [--json]`. */
export async function statusCommand(given: string | null, json: boolean): Promise<number> {
  const { url: controller, from, note } = resolveController(given);
  if (note !== null) process.stderr.write(note);
  const url = `${controller.replace(/\/+$/, '')}/status`;
  let status: StatusView;
  try {
    status = await fetchStatus(url, 5000);
  } catch (err) {
    process.stderr.write(
      `rocelab status: no controller answers at ${url}, ${from} (${err instanceof Error ? err.message : String(err)}): expected a running pod: start one (npm start, rocelab up FILE, or docker compose up), or point at one with --controller URL or ROCELAB_CONTROLLER (rocelab up prints its controller)\n`,
    );
    return 1;
  }
  process.stdout.write(json ? `${JSON.stringify(status)}\n` : formatStatus(status));
  return 0;
}
