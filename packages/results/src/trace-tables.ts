/**
 * The trace CSV files as typed rows, and a directory of them split into runs. A file with a
 * `run` column may hold several runs (a reference directory); a file without one is one run,
 * named `''`. Every run of a directory has every file the directory has, possibly with no rows
 * (a run without a single PAUSE is a run with no pfc.csv rows, not a run without pfc.csv).
 */
import { FieldReader, parseCsv, requireColumns, type CsvTable } from './csv.js';
import { ResultsError } from './errors.js';
import { EVENTS_COLUMNS, FCT_COLUMNS, PACKET_EVENTS_COLUMNS, PFC_COLUMNS, PROBES_COLUMNS, QP_EVENTS_COLUMNS, QUEUE_COLUMNS, RATES_COLUMNS, RUN_COLUMN, TRACE_FILE_NAMES, type TraceFileName } from './trace-columns.js';

export interface RateRow { run: string; timeUs: number; node: string; qp: number; flow: string; dst: string; rateGbps: number; targetGbps: number; alpha: number | null; ackedBytes: number; cnps: number; throughputGbps: number }
export interface QueueRow { run: string; timeUs: number; node: string; port: string; priority: number; queueBytes: number; thresholdBytes: number; ingressBytes: number; headroomBytes: number; paused: boolean; pausing: boolean; ecnMarks: number; txPackets: number }
export interface PfcRow { run: string; timeUs: number; node: string; port: string; priority: number; event: 'pause' | 'resume'; quanta: number; pauseUs: number }
export interface ProbeRow { run: string; timeUs: number; from: string; to: string; rttUs: number | null }
export interface EventRow { run: string; timeUs: number; node: string; port: string; priority: number | null; event: string; detail: string }
export interface QpEventRow { run: string; timeUs: number; node: string; qp: number; event: QpEventKind; psn: number | null; bytes: number | null; detail: string }
export interface PacketEventRow { run: string; timeUs: number; node: string; port: string; qp: number; index: number; psn: number; action: 'drop' | 'ecn' | 'corrupt' }
export const QP_EVENT_KINDS = ['wr_posted', 'psn_sent', 'retransmission', 'ack', 'nak', 'rnr_nak', 'cnp', 'completion'] as const;
export type QpEventKind = (typeof QP_EVENT_KINDS)[number];
export interface FctRow { run: string; flow: string; from: string; to: string; sizeBytes: number; startUs: number; completionUs: number | null; fctUs: number | null; idealFctUs: number; slowdown: number | null; status: string; /** The size group (`0-5%`); absent when empty or the file predates the column. */ bucket?: string }

/** The row type of each trace file. */
export interface TraceRows {
  'rates.csv': RateRow;
  'queue.csv': QueueRow;
  'pfc.csv': PfcRow;
  'fct.csv': FctRow;
  'probes.csv': ProbeRow;
  'events.csv': EventRow;
  'qp-events.csv': QpEventRow;
  'packet-events.csv': PacketEventRow;
}

/** The tables of one run (or of a whole directory); a file that is absent is undefined. */
export type TraceTables = { [F in TraceFileName]?: Array<TraceRows[F]> };

/** Rows of any trace file, for code that only needs their run. */
type AnyRows = Array<{ run: string }>;
const setRows = (tables: TraceTables, name: TraceFileName, rows: AnyRows): void => {
  (tables as Record<TraceFileName, AnyRows>)[name] = rows;
};

/** A trace file's text and the path to name in messages. */
export interface TraceText<F extends TraceFileName = TraceFileName> {
  name: F;
  path: string;
  text: string;
}

type Parse<T> = (r: FieldReader, run: string) => T;

const rateRow: Parse<RateRow> = (r, run) => ({
  run, timeUs: r.number('time_us'), node: r.text('node'), qp: r.integer('qp'), flow: r.text('flow'), dst: r.text('dst'),
  rateGbps: r.number('rate_gbps'), targetGbps: r.number('target_gbps'), alpha: r.optionalNumber('alpha'),
  ackedBytes: r.integer('acked_bytes'), cnps: r.integer('cnps'), throughputGbps: r.number('throughput_gbps'),
});
const queueRow: Parse<QueueRow> = (r, run) => ({
  run, timeUs: r.number('time_us'), node: r.text('node'), port: r.text('port'), priority: r.integer('priority', 0, 7),
  queueBytes: r.integer('queue_bytes'), thresholdBytes: r.integer('threshold_bytes'), ingressBytes: r.integer('ingress_bytes'), headroomBytes: r.integer('headroom_bytes'),
  paused: r.flag('paused'), pausing: r.flag('pausing'), ecnMarks: r.integer('ecn_marks'), txPackets: r.integer('tx_packets'),
});
const probeRow: Parse<ProbeRow> = (r, run) => ({ run, timeUs: r.number('time_us'), from: r.text('from'), to: r.text('to'), rttUs: r.optionalNumber('rtt_us') });
// Times count from the first message's post; a fault or a PAUSE may come before it (a packet
// event armed at 0 for a flow that starts at 10 µs is at -10 µs), so these two may be negative.
const eventRow: Parse<EventRow> = (r, run) => ({
  run, timeUs: r.number('time_us', -Infinity), node: r.text('node'), port: r.optionalText('port'), priority: r.optionalInteger('priority', 0, 7), event: r.text('event'), detail: r.optionalText('detail'),
});
const qpEventRow: Parse<QpEventRow> = (r, run) => ({
  run, timeUs: r.number('time_us'), node: r.text('node'), qp: r.integer('qp'), event: r.oneOf('event', QP_EVENT_KINDS),
  psn: r.optionalInteger('psn', 0, 0xffffff), bytes: r.optionalInteger('bytes'), detail: r.optionalText('detail'),
});
const packetEventRow: Parse<PacketEventRow> = (r, run) => ({
  run, timeUs: r.number('time_us'), node: r.text('node'), port: r.text('port'), qp: r.integer('qp'), index: r.integer('index'),
  psn: r.integer('psn', 0, 0xffffff), action: r.oneOf('action', ['drop', 'ecn', 'corrupt'] as const),
});
const pfcRow: Parse<PfcRow> = (r, run) => ({
  run, timeUs: r.number('time_us', -Infinity), node: r.text('node'), port: r.text('port'), priority: r.integer('priority', 0, 7),
  event: r.oneOf('event', ['pause', 'resume'] as const), quanta: r.integer('quanta', 0, 0xffff), pauseUs: r.number('pause_us'),
});
const fctRow: Parse<FctRow> = (r, run) => ({
  run, flow: r.text('flow'), from: r.text('from'), to: r.text('to'), sizeBytes: r.integer('size_bytes'), startUs: r.number('start_us'),
  completionUs: r.optionalNumber('completion_us'), fctUs: r.optionalNumber('fct_us'), idealFctUs: r.number('ideal_fct_us'),
  slowdown: r.optionalNumber('slowdown'), status: r.text('status'),
  ...(r.has('bucket') && r.optionalText('bucket') !== '' ? { bucket: r.optionalText('bucket') } : {}),
});

function rowsOf<T extends { run: string }>(table: CsvTable, columns: readonly string[], parse: Parse<T>): T[] {
  requireColumns(table, columns);
  const r = new FieldReader(table);
  const hasRun = r.has(RUN_COLUMN);
  return table.rows.map((row) => parse(r.at(row), hasRun ? r.text(RUN_COLUMN) : ''));
}

/** One file's text as typed rows; throws a `ResultsError` naming file, line and column. */
export function parseTraceFile<F extends TraceFileName>(file: TraceText<F>): { rows: Array<TraceRows[F]>; hasRunColumn: boolean };
export function parseTraceFile(file: TraceText): { rows: AnyRows; hasRunColumn: boolean } {
  const table = parseCsv(file.path, file.text);
  const hasRunColumn = table.header.includes(RUN_COLUMN);
  switch (file.name) {
    case 'rates.csv':
      return { rows: rowsOf(table, RATES_COLUMNS, rateRow), hasRunColumn };
    case 'queue.csv':
      return { rows: rowsOf(table, QUEUE_COLUMNS, queueRow), hasRunColumn };
    case 'pfc.csv':
      return { rows: rowsOf(table, PFC_COLUMNS, pfcRow), hasRunColumn };
    case 'probes.csv':
      return { rows: rowsOf(table, PROBES_COLUMNS, probeRow), hasRunColumn };
    case 'events.csv':
      return { rows: rowsOf(table, EVENTS_COLUMNS, eventRow), hasRunColumn };
    case 'qp-events.csv':
      return { rows: rowsOf(table, QP_EVENTS_COLUMNS, qpEventRow), hasRunColumn };
    case 'packet-events.csv':
      return { rows: rowsOf(table, PACKET_EVENTS_COLUMNS, packetEventRow), hasRunColumn };
    case 'fct.csv': {
      const rows = rowsOf(table, FCT_COLUMNS, fctRow);
      checkUniqueFlows(table, rows);
      return { rows, hasRunColumn };
    }
  }
}

/** FCT rows are per message: a flow id twice in one run is two messages with one name. */
function checkUniqueFlows(table: CsvTable, rows: readonly FctRow[]): void {
  const seen = new Map<string, number>();
  rows.forEach((row, i) => {
    const key = `${row.run}\0${row.flow}`;
    const line = table.rows[i]!.line;
    const before = seen.get(key);
    if (before !== undefined) {
      const r = new FieldReader(table).at(table.rows[i]!);
      throw new ResultsError('field', r.where('flow'), `a flow id not seen before in this run (one row per message)`, `"${row.flow}" again (line ${before})`);
    }
    seen.set(key, line);
  });
}

/** A directory of trace files: its tables and its runs, in order of first appearance. */
export interface TraceDir {
  tables: TraceTables;
  runs: string[];
}

/** Parses a directory's files; either every file has a `run` column or none does. */
export function parseTraceDir(files: readonly TraceText[]): TraceDir {
  const tables: TraceTables = {};
  const runs = new Set<string>();
  let first: { path: string; hasRunColumn: boolean } | null = null;
  for (const name of TRACE_FILE_NAMES) {
    const file = files.find((f) => f.name === name);
    if (file === undefined) continue;
    const { rows, hasRunColumn } = parseTraceFile(file);
    if (first === null) first = { path: file.path, hasRunColumn };
    if (hasRunColumn !== first.hasRunColumn) {
      const [withRun, without] = hasRunColumn ? [file.path, first.path] : [first.path, file.path];
      throw new ResultsError('runs', without, `a "${RUN_COLUMN}" column, as ${withRun} has (all files of a directory or none)`, 'none');
    }
    setRows(tables, name, rows);
    for (const row of rows) runs.add(row.run);
    if (!hasRunColumn) runs.add('');
  }
  return { tables, runs: [...runs] };
}

/** The tables of each run; every run has every file the directory has. */
export function splitRuns(dir: TraceDir): Map<string, TraceTables> {
  const byRun = new Map<string, Map<TraceFileName, AnyRows>>(dir.runs.map((run) => [run, new Map()]));
  for (const name of TRACE_FILE_NAMES) {
    const rows: AnyRows | undefined = dir.tables[name];
    if (rows === undefined) continue;
    for (const files of byRun.values()) files.set(name, []);
    for (const row of rows) byRun.get(row.run)!.get(name)!.push(row);
  }
  const out = new Map<string, TraceTables>();
  for (const [run, files] of byRun) {
    const tables: TraceTables = {};
    for (const [name, rows] of files) setRows(tables, name, rows);
    out.set(run, tables);
  }
  return out;
}
