/**
 * `rocelab fault export LOG --topology FILE > drill.yaml` (issue 24): a live session's fault log
 * as a drill. The drill's faults and header come from the log alone (`drill-draft.ts`); to draft
 * expectations the session is run again, in this process, from the log's seed with its faults and
 * traces in a temporary directory — deterministic, so it is the session: its trace hash must be
 * the log's (checked; a different one fails the export). Each draft is then checked against that
 * run, and one that does not hold there is named on stderr.
 */
import { mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { DrillError, evaluateVariant, loadDrill } from '@rocelab/drill';
import { parseTraceFile, type EventRow, type PfcRow, type RateRow, type TraceTables } from '@rocelab/results';
import { DEFAULT_TRACE_SETTINGS, podContext, prepareRunFiles } from '@rocelab/runtime';
import { declareAppRegions, InputFileError, loadTopologyFile, MAX_TRACE_FILE_BYTES, readInputFile } from '@rocelab/topology';
import { draftDrill, type SessionLog } from './drill-draft.js';
import { executeRun, readFaultLog, RunOptionError } from './run.js';

export interface ExportOptions {
  topology: string;
}

export async function faultExportCommand(logPath: string, options: ExportOptions): Promise<number> {
  const pod = loadTopologyFile(options.topology);
  await declareAppRegions(pod);
  let log: SessionLog;
  try {
    log = sessionLog(logPath, pod.name);
    // The live records checked against the pod and the seed, as `rocelab run --faults` checks them.
    log = { ...log, faults: readFaultLog(logPath, pod, log.seed) };
  } catch (err) {
    if (err instanceof RunOptionError) return refuse(err.message.replace(/^--faults /, ''));
    throw err;
  }
  const live = log.faults.filter((e) => e.source === 'live');
  const durationPs = Math.round(log.virtualNs * 1000);
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-export-'));
  try {
    const recording = { trace: { dir, ...DEFAULT_TRACE_SETTINGS }, pcap: null };
    prepareRunFiles(recording);
    process.stderr.write(`rocelab fault export: running pod ${pod.name} again for ${log.virtualNs / 1e6} ms (seed ${log.seed}, ${live.length} live records) to draft the expectations\n`);
    const result = await executeRun(pod, options.topology, { seed: log.seed, durationPs, mode: 'inproc', workers: null, image: '', dilation: 0, json: true, debugUncountedLoss: null, recording, detail: true, replayFaults: live });
    const tables: TraceTables = {};
    for (const name of ['pfc.csv', 'events.csv', 'rates.csv', 'queue.csv', 'fct.csv', 'probes.csv'] as const) {
      const path = join(dir, name);
      (tables as Record<string, unknown>)[name] = parseTraceFile({ name, path, text: readInputFile(path, 'trace file', MAX_TRACE_FILE_BYTES) }).rows;
    }
    const originPs = podContext(pod, log.seed).startPs;
    const drillPath = outputFile();
    const topology = relative(dirname(drillPath), resolve(options.topology)) || options.topology;
    const draft = draftDrill({
      log,
      logName: logPath,
      pod,
      topology,
      observed: { originPs, pfc: (tables['pfc.csv'] ?? []) as PfcRow[], events: (tables['events.csv'] ?? []) as EventRow[], rates: (tables['rates.csv'] ?? []) as RateRow[] },
    });
    process.stdout.write(draft.text);
    for (const w of draft.warnings) process.stderr.write(`rocelab fault export: ${w}\n`);
    // Each draft against the run it was drafted from: one that fails there is named.
    try {
      const drill = loadDrill(draft.text, drillPath, { readText: (path) => readInputFile(path, 'topology file') });
      const outcomes = evaluateVariant(drill.expectations, { name: 'default', pod: drill.variants[0]!.pod, result, tables, traceOriginPs: originPs, durationPs });
      for (const o of outcomes.filter((x) => !x.pass)) process.stderr.write(`rocelab fault export: draft ${o.id} does not hold on the session's own run: measured ${o.measured}; expected ${o.expected}\n`);
    } catch (err) {
      if (!(err instanceof DrillError)) throw err;
      process.stderr.write(`rocelab fault export: the drill does not load where it is written (${err.message.split('\n')[0]}); give --topology as the drill will find it\n`);
      return 1;
    }
    if (log.traceHash !== null && result.traceHash !== log.traceHash) {
      process.stderr.write(`rocelab fault export: the run again gave trace hash ${result.traceHash}, the session's was ${log.traceHash}: the log, the topology or the build is not the session's\n`);
      return 1;
    }
    process.stderr.write(`rocelab fault export: the run again has the session's trace hash${log.traceHash === null ? '' : ` ${log.traceHash}`}; rocelab drill run of this drill gives it too\n`);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function refuse(message: string): number {
  process.stderr.write(`rocelab fault export: ${message}\n`);
  return 2;
}

/**
 * Where the drill goes: the file stdout is redirected to (`> drill.yaml`), so the topology is
 * named relative to it; otherwise a drill in the current directory.
 */
function outputFile(): string {
  try {
    const path = readlinkSync('/proc/self/fd/1');
    if (statSync(path).isFile()) return path;
  } catch {
    // Not Linux, or not a file: the current directory.
  }
  return resolve('drill.yaml');
}

/** The log's pod, seed, end and trace hash: what `rocelab up --fault-log` writes beside the records. */
function sessionLog(path: string, podName: string): SessionLog {
  let data: unknown;
  try {
    data = JSON.parse(readInputFile(path, 'fault log')) as unknown;
  } catch (err) {
    const why = err instanceof InputFileError ? `${err.actual}` : err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new RunOptionError(`${path}: expected a fault log (JSON, as rocelab up --fault-log writes it), got ${why}`);
  }
  const log = (typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {}) as Record<string, unknown>;
  const bad = (key: string, expected: string) => new RunOptionError(`${path}: ${key}: expected ${expected} (rocelab up --fault-log writes it), got ${JSON.stringify(log[key]) ?? 'nothing'}`);
  if (typeof log.pod !== 'string') throw bad('pod', "the session's pod name");
  if (log.pod !== podName) throw new RunOptionError(`${path}: a log of pod ${log.pod}; --topology is pod ${podName}`);
  if (!Number.isSafeInteger(log.seed)) throw bad('seed', "the session's seed");
  if (typeof log.virtualNs !== 'number' || !(log.virtualNs > 0)) throw bad('virtualNs', 'the virtual time the session stopped at, in ns (above 0)');
  if (log.traceHash !== undefined && typeof log.traceHash !== 'string') throw bad('traceHash', "the session's trace hash");
  if (!Array.isArray(log.faults)) throw bad('faults', 'the list of fault records');
  return { pod: log.pod, seed: log.seed as number, virtualNs: log.virtualNs, traceHash: (log.traceHash as string | undefined) ?? null, faults: [] };
}
