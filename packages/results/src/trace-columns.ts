/**
 * The trace CSV files of `rocelab run --trace DIR` and their columns, in the order the writer
 * prints them. One header line, comma-separated, no quoting; times in µs from the run's start
 * with 6 decimals; an empty field means "no value". A reference directory has the same files
 * with a `run` column anywhere in the header (one directory, several runs, e.g. seeds).
 */

/** Per sending QP on a regular grid (default 10 µs). `acked_bytes` and `cnps` are cumulative; `throughput_gbps` is the bytes acknowledged over the preceding grid interval (ACKs come in bursts, so it can pass the line rate; the drill plot bounds it: `wireThroughput`); `alpha` is empty when DCQCN is off. */
export const RATES_COLUMNS = ['time_us', 'node', 'qp', 'flow', 'dst', 'rate_gbps', 'target_gbps', 'alpha', 'acked_bytes', 'cnps', 'throughput_gbps'] as const;

/** Per switch egress queue on a grid (default 1 µs). `paused`/`pausing` are 0 or 1; `ecn_marks` and `tx_packets` (packets that left the queue) are cumulative. */
export const QUEUE_COLUMNS = ['time_us', 'node', 'port', 'priority', 'queue_bytes', 'threshold_bytes', 'ingress_bytes', 'headroom_bytes', 'paused', 'pausing', 'ecn_marks', 'tx_packets'] as const;

/** One row per PAUSE or RESUME arriving at a transmitter (`node:port`); `pause_us` is what the quanta stand for at the link's rate, 0 for a resume. */
export const PFC_COLUMNS = ['time_us', 'node', 'port', 'priority', 'event', 'quanta', 'pause_us'] as const;

/**
 * One row per message; `completion_us`, `fct_us` and `slowdown` are empty when it did not complete.
 * The file as written has one more column at the end, `bucket` (the message's size group,
 * `withBucketColumn`), added after the nodes' parts are merged; readers do not require it.
 */
export const FCT_COLUMNS = ['flow', 'from', 'to', 'size_bytes', 'start_us', 'completion_us', 'fct_us', 'ideal_fct_us', 'slowdown', 'status'] as const;

/** One row per pingmesh probe: when it was posted, between which hosts, and its round trip (empty: it did not come back). */
export const PROBES_COLUMNS = ['time_us', 'from', 'to', 'rtt_us'] as const;

/** Notable events of the models (watchdog storms, NIC stall prevention, faults applied and ended); `port`/`priority` empty where they do not apply. */
export const EVENTS_COLUMNS = ['time_us', 'node', 'port', 'priority', 'event', 'detail'] as const;

/**
 * Per QP, what happened to it (issue 24), at the host where it happened: `wr_posted` (a work
 * request posted: `bytes` its size, `detail` its operation), `psn_sent` and `retransmission` (a
 * data packet leaving: its PSN and payload bytes; a PSN at or below the highest already sent is a
 * retransmission; READ responses count at the responder), `ack`, `nak`, `rnr_nak` (arriving at
 * the requester: the PSN they name, `detail` the AETH syndrome in hex), `cnp` (arriving at the
 * sender), `completion` (`bytes` the size, `detail` the status). `psn`, `bytes` and `detail` are
 * empty where they do not apply.
 */
export const QP_EVENTS_COLUMNS = ['time_us', 'node', 'qp', 'event', 'psn', 'bytes', 'detail'] as const;

/** One row per data packet a `packetEvent` fault hit: where (`node:port` it was leaving), when it started, its QP, its index on that QP (from 1), its PSN, the action. */
export const PACKET_EVENTS_COLUMNS = ['time_us', 'node', 'port', 'qp', 'index', 'psn', 'action'] as const;

/** The column naming the run of each row in a reference directory. */
export const RUN_COLUMN = 'run';

/** Every trace file by name, with its columns. */
export const TRACE_FILES = {
  'rates.csv': RATES_COLUMNS,
  'queue.csv': QUEUE_COLUMNS,
  'pfc.csv': PFC_COLUMNS,
  'fct.csv': FCT_COLUMNS,
  'probes.csv': PROBES_COLUMNS,
  'events.csv': EVENTS_COLUMNS,
  'qp-events.csv': QP_EVENTS_COLUMNS,
  'packet-events.csv': PACKET_EVENTS_COLUMNS,
} as const;

export type TraceFileName = keyof typeof TRACE_FILES;
export const TRACE_FILE_NAMES = Object.keys(TRACE_FILES) as TraceFileName[];
