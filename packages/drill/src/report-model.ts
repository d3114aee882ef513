/**
 * What a drill report holds: what ran (each variant's run, with the faults and when they
 * applied), each expectation with its measured value, what was expected and the margin, and
 * whether everything held. `report.json` is this object; `report.md` and `report.html` render it.
 */

import type { IncidentFigures } from './incident.js';

/** One expectation, evaluated for one variant (or across variants). */
export interface ExpectationOutcome {
  /** Where it is in the drill file, e.g. `expect[2]`. */
  id: string;
  kind: string;
  /** The variant it was evaluated for; null when it compares variants. */
  variant: string | null;
  /** What must hold, in words: `tor2:p2 priority 3: the watchdog detects the storm within 3 ms`. */
  description: string;
  pass: boolean;
  /** The value measured, with its unit: `2.999 ms after the storm began`. */
  measured: string;
  /** The bound: `≤ 3 ms`. */
  expected: string;
  /** How far inside (pass) or outside (fail) the bound: `0.001 ms to spare`, `1.2 ms too late`. */
  margin: string;
  /** The measured number in base units when there is one (ps, bytes, bit/s, ratio), for tools. */
  value: number | null;
  /** Where the bound comes from (the drill's `why:`): the figure it cites, or why rocelab differs from it. */
  why?: string;
}

/**
 * The conservation audit of a run (issue 24): not an expectation, printed for every run, and a
 * broken one fails the drill. `text`: `sent N = delivered D + dropped X + queued Q; 0 causality violations: holds`.
 */
export interface AuditOutcome {
  pass: boolean;
  conservation: boolean;
  causalityViolations: number;
  /** sent − delivered − dropped − queued: 0 when the audit holds. */
  offBy: number;
  text: string;
}

/** A fault as it applied in a run. */
export interface FaultOutcome {
  id: number;
  kind: string;
  target: string;
  /** Virtual time it applied and, for a fault with `for`, when it ended (ns). */
  atNs: number;
  untilNs: number | null;
  params: Record<string, unknown>;
  /** From the drill file, the topology file, or injected into a live pod. */
  source: 'drill' | 'topology' | 'live';
  /**
   * The random forms its node and times were drawn from, as written (`{node: {random: [...]},
   * at: {uniform: [...]}}`); absent when it had none. `target`, `atNs` and `untilNs` are what was drawn.
   */
  drawnFrom?: Record<string, unknown>;
}

/** The headline numbers of one variant's run. */
export interface VariantRun {
  mode: string;
  seed: number;
  profile: string;
  timing: string;
  traceHash: string;
  virtualNs: number;
  wallMs: number;
  conservation: boolean;
  packets: { sent: number; delivered: number; dropped: number; queued: number };
  droppedByReason: Record<string, number>;
  flows: { total: number; completed: number; pending: number; stalled: number; failed: number };
  pauseFramesSent: number;
  pausedPorts: number;
  probes: { sent: number; lost: number; p50Ns: number | null; p99Ns: number | null };
  /** The error of each app that failed (issue 22): a drill whose app failed exits 3 even when its expectations hold. */
  failedApps: string[];
  /** Each native program that failed, was killed or exited non-zero (issue 25): `program ib_write_bw on h1[0] exited 1`; the drill exits 3 for it too. Absent in a report from before. */
  failedPrograms?: string[];
}

export interface VariantOutcome {
  name: string;
  /** What the variant changes, and why its result is what it is (the drill file says). */
  description: string;
  /** Its expectations held and its audit held. */
  pass: boolean;
  audit: AuditOutcome;
  /**
   * Per fault: time to detect (to the first watchdog detection) and time to recover (from its
   * end or containment until every flow that ran before it is back above 90 % of its pre-fault
   * goodput), measured whether or not an expectation bounds them (`incident.ts`).
   */
  incidents: IncidentFigures[];
  run: VariantRun;
  faults: FaultOutcome[];
  expectations: ExpectationOutcome[];
  /** The variant's trace directory, relative to the report (plots and readers find the CSVs there). */
  traceDir: string;
  /** Who paused whom, when and for how long (issue 24): the incident timeline, at most TIMELINE_MAX_ROWS rows. */
  timeline?: TimelineRow[];
  /** Rows of the timeline left out past TIMELINE_MAX_ROWS (the trace has them all). */
  timelineOmitted?: number;
  /** Each link of the pod and what happened on it (the topology picture colours them). */
  links?: LinkOutcome[];
  /** The variant's trace CSVs and pcaps, relative to the report, for the HTML to link. */
  files?: string[];
  /** `drill run --pcap`: the variant's captures, one per port, relative to the report (`<variant>/pcap/<node>-<port>.pcap`); absent without it. */
  pcaps?: string[];
}

/** One transmitter's part in the incident (`incidentTimeline` of @rocelab/results), times in virtual ns. */
export interface TimelineRow {
  /** The transmitter, `node:port`, and its priority (null: NIC stall events only). */
  port: string;
  priority: number | null;
  firstPauseSentNs: number | null;
  firstPauseReceivedNs: number | null;
  /** Time it was held paused in all. */
  pausedNs: number;
  /** The peer port whose PAUSE held it. */
  pausedBy: string | null;
  /** The node's own paused transmitter behind the PAUSE it sent; null when the pausing starts here. */
  cause: string | null;
  watchdogDetectedNs: number | null;
  watchdogRestoredNs: number | null;
}

export type LinkState = 'paused' | 'stuck' | 'dropping';

/** A link (`node:port` at each end) and what happened on it, worst first; `notes` say where and how much. */
export interface LinkOutcome {
  a: string;
  b: string;
  states: LinkState[];
  notes: string[];
}

/** A plot of the report: an SVG file beside report.md. */
export interface PlotRef {
  file: string;
  title: string;
  /** The variant it shows; null for a plot of all variants. */
  variant: string | null;
}

export interface DrillReport {
  /** The drill's name (its file name without .yaml) and title. */
  drill: string;
  title: string;
  /** What it shows, and the published result it reproduces (the file's header comment). */
  description: string;
  source: string;
  file: string;
  mode: string;
  pass: boolean;
  variants: VariantOutcome[];
  acrossVariants: ExpectationOutcome[];
  plots: PlotRef[];
}
