/**
 * The messages of proto/rocelab.proto as plain TypeScript, the only shapes the rest of rocelab
 * sees (the generated protobufjs classes stay inside this package). Every field is present:
 * a decoded message has proto3 defaults filled in (0, '', false, empty arrays). 64-bit fields
 * are numbers, exact below 2^53 (virtual picoseconds ≈ 2.5 h); the decoder rejects larger ones.
 */
import type { Frame } from './frame.js';

/** First message in each direction of every connection; see the proto for the handshake. */
export interface Hello {
  protocolVersion: number;
  /** Link: node name; control: member id. */
  node: string;
  /** host | tor | leaf | spine | switch | controller | member | pair (a member's connection to a neighbouring member) */
  role: string;
  nonce: Uint8Array;
  /** HMAC-SHA256 over the transcript; empty in the first server Hello. */
  proof: Uint8Array;
  /** Link connections: the link's name, "a-node:port--b-node:port" as in the topology. */
  link: string;
  /** Control: the nodes this member hosts. */
  nodes: string[];
  /** Control: where this member accepts link connections. */
  linkUrl: string;
  /** Control: each hosted node's /metrics URL, parallel to `nodes`. */
  metricsUrls: string[];
}

/**
 * One link's frames of one window (the link benchmark's message; members send `PairBatch`): the frames emitted during `window` of `lease`.
 * `arrivalPs[i]`, `originSeq[i]` and `fcsBad[i]` belong to `frames[i]`; all four have one length.
 * (Proto message `Batch`.)
 */
export interface LinkBatch {
  lease: number;
  window: number;
  frames: Frame[];
  /** Arrival time at the receiver, virtual ps. */
  arrivalPs: number[];
  /** The sender's event sequence number: the last key of the event order. */
  originSeq: number[];
  /** Corrupted in flight: the receiver drops the frame with reason `corrupt`. */
  fcsBad: boolean[];
}

/**
 * One link's frames in a `PairBatch`: `link` is the link's index among the links between the
 * two members, sorted by name; the arrays are `LinkBatch`'s. (Proto message `LinkFrames`.)
 */
export interface LinkFrames {
  link: number;
  frames: Frame[];
  arrivalPs: number[];
  originSeq: number[];
  fcsBad: boolean[];
}

/**
 * One message per pair of neighbouring members per window (DESIGN §3): the frames of every
 * link between them that carried any during `window` of `lease`, in increasing `link` order;
 * idle links are absent. It goes every window, empty or not: it is what tells the neighbour
 * that the window is complete. (Proto message `PairBatch`.)
 */
export interface PairBatch {
  lease: number;
  window: number;
  links: LinkFrames[];
}

/** A fault or configuration change at a virtual time (DESIGN §7). */
export interface Fault {
  id: number;
  atPs: number;
  /** e.g. linkDown, linkUp, impair */
  kind: string;
  /** node or node:port */
  target: string;
  /**
   * The fault item as written (random forms drawn), as JSON; for kind `clear`, `{clears, at, raw}`.
   * The wire only bounds its size: @rocelab/runtime fault-wire.ts writes it and is the one reader,
   * checking it against the topology's fault item schema (`faultPayload`).
   */
  spec: string;
}

/** Controller → members once every member said Hello: who hosts what, and the run. */
export interface Directory {
  members: Member[];
  windowPs: number;
  seed: number;
  runId: string;
  /** Sent to a restarted member joining a running pod: it starts with fresh state. */
  rejoin: boolean;
}

export interface Member {
  id: string;
  nodes: string[];
  linkUrl: string;
}

/** What the sync protocol needs of a fault (@rocelab/sync): it travels with the grant of the lease that contains its time. */
export interface TimedFault {
  id: number;
  atPs: number;
}

/**
 * A lease of `windows` windows of `windowPs` from `startPs`, the last ending at `endPs`, as the
 * sync protocol's state machines see it (@rocelab/sync), whatever the faults carry.
 */
export interface LeaseGrant<F extends TimedFault = TimedFault> {
  lease: number;
  startPs: number;
  windowPs: number;
  /** Number of windows; 0 for the closing lease that only collects final reports. */
  windows: number;
  /** End of the last window (≤ start + windows · windowPs; cut at the run's end). */
  endPs: number;
  final: boolean;
  faults: F[];
  /** Links declared down at `startPs` (link names `a-node:port>b-node:port` as in the topology). */
  linksDown: string[];
  /** Links back up at `startPs`: a lost member rejoined with fresh state (its links as above). */
  linksUp: string[];
  /** Members declared lost at `startPs`, and members that rejoin at `startPs` (they run this lease). */
  membersLost: string[];
  membersJoined: string[];
  /** Frames lost in transit on broken links, to be counted by their senders as `link_down`. */
  losses: LinkLoss[];
}

/** Controller → members: a lease, carrying faults as they travel. */
export type Grant = LeaseGrant<Fault>;

export interface LinkLoss {
  /** "node:port>node:port", the direction that lost frames. */
  link: string;
  frames: number;
}

/** Member → controller at the end of each lease. */
export interface Report {
  lease: number;
  hasNextEvent: boolean;
  nextEventPs: number;
  nodes: NodeReport[];
  /** Counts of the remote link directions that failed in this lease. */
  links: LinkCount[];
  /** Remote links this member saw fail in this lease. */
  linksFailed: string[];
  /** Every remote link direction's count so far: a lost member is accounted from its neighbours' counts. */
  linkTotals: LinkCount[];
  /** `PairBatch` messages this member shipped over the run, and their encoded bytes (what windows cost on the wire). */
  linkMessages: number;
  linkBytes: number;
}

/** One end's count of a failed link direction; sent − accepted was lost in transit. */
export interface LinkCount {
  /** Direction "from:port>to:port". */
  link: string;
  /** True: frames this member emitted on it; false: frames it accepted from it. */
  sender: boolean;
  frames: number;
}

export interface NodeReport {
  node: string;
  /** Running SHA-256 of the node's model events so far. */
  hash: Uint8Array;
  events: number;
  /** Counters at the lease end (proto message-field presence; null when not sent). */
  stats: NodeStats | null;
}

export interface NodeStats {
  sent: number;
  delivered: number;
  queued: number;
  /** Frames dropped, by drop reason. */
  dropped: Record<string, number>;
  causalityViolations: number;
  rssBytes: number;
  /** Final report: the process's proportional set size (private pages plus its share of shared ones) over its nodes; 0 when not measured. */
  pssBytes: number;
  /**
   * A host's results (messages, probes; `null` for a switch) as JSON, final report only. Written
   * and read only by @rocelab/runtime report-wire.ts, which checks it against `hostResultsSchema`
   * of @rocelab/results.
   */
  resultsJson: string;
  /** The node's end-of-run figures for the run summary (ports, transport counters), JSON; checked likewise against `nodeReportSchema`. */
  reportJson: string;
}

export interface Status {
  virtualPs: number;
  dilation: number;
  windowsPerSecond: number;
  nodesUp: number;
  nodesTotal: number;
  lagSeconds: number;
  /** starting | running | finished | failed */
  state: string;
  windows: number;
}

/** Orderly end of a connection, with the reason. */
export interface Goodbye {
  reason: string;
}

/** Everything that travels on a connection: exactly one body, tagged by `type`. */
export type Envelope =
  | { type: 'hello'; hello: Hello }
  | { type: 'batch'; batch: LinkBatch }
  | { type: 'pair'; pair: PairBatch }
  | { type: 'directory'; directory: Directory }
  | { type: 'grant'; grant: Grant }
  | { type: 'report'; report: Report }
  | { type: 'fault'; fault: Fault }
  | { type: 'status'; status: Status }
  | { type: 'goodbye'; goodbye: Goodbye };

export type EnvelopeType = Envelope['type'];
