/**
 * What each node reports at the end of a run, beside its conservation counts: per port the PFC,
 * ECN, drop and queue figures, and for a host its transport counters. These are plain numbers in
 * base units (ps, bytes), read from the engine and the models by the runtime, and carried in the
 * final report from every process, so the summary is assembled the same way in every mode.
 */
import type { DropReason } from '@rocelab/sim';
import { PFC_PRIORITIES } from '@rocelab/wire';

export interface PortReport {
  port: string;
  /** Indexed by priority 0..7. */
  pfcSent: number[];
  pfcReceived: number[];
  /** Virtual time each priority of this port's transmitter was held by received pauses. */
  pausedPs: number[];
  /** Virtual time this port's receiver held its peer paused, per priority. */
  pausingPs: number[];
  /** First and last PAUSE (non-zero quanta) sent and received; -1 = none. */
  firstPauseTxPs: number;
  lastPauseTxPs: number;
  firstPauseRxPs: number;
  lastPauseRxPs: number;
  /** Packets CE-marked leaving this port (switches). */
  ecnMarked: number;
  /** Drops attributed to this port, non-zero reasons only. */
  dropped: Partial<Record<DropReason, number>>;
  /** Switch: the fullest egress queue of this port ever; host: the NIC's receive buffer. */
  peakQueueBytes: number;
  /** Lossless frames dropped for lack of buffer arriving on this port (PFC failed to hold the sender back). */
  losslessDrops: number;
  /**
   * Frames of a lossless priority dropped at this port, by reason (issue 24): a switch's every
   * drop decision (buffer, headroom_full, watchdog, flood_blocked, no_route, ttl, tagger), a
   * NIC's receive buffer (buffer). The engine's drops (link_down, node_lost, loss, corrupt) are
   * in `dropped` only.
   */
  losslessDropped: Partial<Record<DropReason, number>>;
  txBytes: number;
  rxBytes: number;
  /**
   * Credit flow control (`flowControl: credit`, issue 14), on credit links only: virtual time each
   * priority (virtual lane) of this port's transmitter waited for credit, and the credit update
   * packets this port sent and received.
   */
  credit?: { waitPs: number[]; updatesSent: number; updatesReceived: number };
}

/** A Tagger switch's packets (issue 14): re-tagged against up-down, demoted past the last lossless tag, dropped there. */
export interface TaggerReport {
  retagged: number;
  demoted: number;
  dropped: number;
}

export interface HostReport {
  cnpsSent: number;
  cnpsReceived: number;
  retransmittedPackets: number;
  naksSent: { seq: number; rnr: number };
  naksReceived: { seq: number; rnr: number };
  rtoExpirations: number;
  /** RNR NAKs received: each makes the QP wait the coded RNR time before resending. */
  rnrWaits: number;
  stormEvents: { warning: number; error: number };
  /** Payload the host's responders hold for good (`rocelab_goodput_bytes_total`). */
  goodputBytes: number;
  /** Payload of every data packet that reached its transport (`rocelab_received_payload_bytes_total`). */
  receivedPayloadBytes: number;
  /** The host's TCP stack (issue 14), when it has connections (`rocelab_tcp_*`). */
  tcp?: TcpReport;
}

export interface TcpReport {
  segmentsSent: number;
  retransmittedSegments: number;
  fastRetransmits: number;
  rtoExpirations: number;
  /** DCTCP's cuts of the window for a marked window. */
  cwndCuts: number;
  /** Segments received ahead of a hole, and duplicates. */
  outOfOrder: number;
  duplicates: number;
}

export interface NodeReport {
  node: string;
  role: string;
  ports: PortReport[];
  host: HostReport | null;
  /** The application the host ran (issue 13); absent without one. */
  app?: AppReport;
  /** The native programs the host ran (issue 25), in its `programs` order; absent (or empty) without any. */
  programs?: ProgramReport[];
  /** A switch with Tagger on; absent otherwise. */
  tagger?: TaggerReport;
}

/** What a host's application did (issue 13): its outcome, its own figures (`rdma.report`), its last log lines. */
export interface AppReport {
  node: string;
  module: string;
  /** sha256 of the code it ran (bundled and instrumented). */
  digest: string;
  /** `running`: it had not returned when the run ended. */
  status: 'running' | 'finished' | 'failed';
  /** The app's first error: it names the app, the node and the operation. */
  error: string | null;
  finishedPs: number | null;
  reports: Record<string, number | string | boolean>;
  /** Its last log lines (`rdma.log`), oldest first. */
  log: string[];
  workRequests: { posted: number; completed: number; failed: number };
}

/** The last this many bytes of a program's stdout and of its stderr are kept (the head of a long output is dropped). */
export const PROGRAM_OUTPUT_MAX_BYTES = 64 * 1024;
/** The last this many lines of rocelab's own log about a program are kept. */
export const PROGRAM_LOG_MAX_LINES = 100;

/**
 * What a host's native program did (issue 25): how it ended, when in virtual time, its output,
 * and what it asked of the rocelab0 device that the device does not do. Filled by the runtime
 * that runs it; assembled into the run result's `programs` and read by `programResult`.
 */
export interface ProgramReport {
  node: string;
  /** Its place in its host's `programs` list. */
  index: number;
  /** The command line it ran, expanded (ProgramSpec.argv). */
  argv: string[];
  /**
   * `running`: it had not exited when the run ended; `exited`: it exited by itself (any code);
   * `killed`: a signal ended it; `failed`: rocelab could not run it or gave up on it (not found,
   * its wall-clock timeout between two waits, a crash of the device): `error` says which.
   */
  status: 'running' | 'exited' | 'killed' | 'failed';
  /** Its exit code when `exited`; else null. */
  exitCode: number | null;
  /** The signal that ended it (`SIGSEGV`) when `killed`; else null. */
  signal: string | null;
  /** Virtual time it started and exited (null: it had not), ps. */
  startedPs: number;
  exitedPs: number | null;
  /** The last PROGRAM_OUTPUT_MAX_BYTES of each, as UTF-8 text. */
  stdout: string;
  stderr: string;
  /** The last PROGRAM_LOG_MAX_LINES lines of rocelab's own log about it (unsupported calls, waits), oldest first. */
  log: string[];
  /** Calls it made that rocelab0 does not implement (each failed with EOPNOTSUPP), by name, counted. */
  unsupported: Record<string, number>;
  /** Why it `failed`, naming the program and its node; null otherwise. */
  error: string | null;
}

/** One figure per priority. */
const zeros = (): number[] => new Array<number>(PFC_PRIORITIES).fill(0);

/** A port's figures before anything happened on it (a node that never reported: its member died first). */
export function emptyPortReport(port: string): PortReport {
  return {
    port,
    pfcSent: zeros(),
    pfcReceived: zeros(),
    pausedPs: zeros(),
    pausingPs: zeros(),
    firstPauseTxPs: -1,
    lastPauseTxPs: -1,
    firstPauseRxPs: -1,
    lastPauseRxPs: -1,
    ecnMarked: 0,
    dropped: {},
    peakQueueBytes: 0,
    losslessDrops: 0,
    losslessDropped: {},
    txBytes: 0,
    rxBytes: 0,
  };
}

/** A host's transport counters before anything happened. */
export function emptyHostReport(): HostReport {
  return { cnpsSent: 0, cnpsReceived: 0, retransmittedPackets: 0, naksSent: { seq: 0, rnr: 0 }, naksReceived: { seq: 0, rnr: 0 }, rtoExpirations: 0, rnrWaits: 0, stormEvents: { warning: 0, error: 0 }, goodputBytes: 0, receivedPayloadBytes: 0 };
}
