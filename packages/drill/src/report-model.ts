/**
 * What a drill report holds: what ran (each variant's run, with the faults and when they
 * applied), each expectation with its measured value, what was expected and the margin, and
 * whether everything held. `report.json` is this object; `report.md` and `report.html` render it.
 */

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
}

export interface VariantOutcome {
  name: string;
  /** What the variant changes, and why its result is what it is (the drill file says). */
  description: string;
  pass: boolean;
  run: VariantRun;
  faults: FaultOutcome[];
  expectations: ExpectationOutcome[];
  /** The variant's trace directory, relative to the report (plots and readers find the CSVs there). */
  traceDir: string;
  /** `drill run --pcap`: the variant's captures, one per port, relative to the report (`<variant>/pcap/<node>-<port>.pcap`); absent without it. */
  pcaps?: string[];
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
