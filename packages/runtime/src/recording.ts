/**
 * What a run records besides its result: trace rows (`--trace`) and packet captures (`--pcap`).
 * `attachRecording` puts both on an engine as one observer; `prepareRunFiles` and
 * `mergeRunFiles` own the directories: each process appends its nodes' trace rows and captures
 * to files in `DIR/.parts`, and once the run is over the rows are merged into the final CSVs
 * and the captures moved beside them. Every process writes only its own
 * nodes' files, so the same code serves inproc, procs, workers and containers (which get the
 * directories bind-mounted).
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineObserver, NodeNote, PacketAction } from '@rocelab/sim';
import { mergeParts, TRACE_FILE_NAMES, TRACE_FILES, withBucketColumn, type TraceFileName } from '@rocelab/results';
import type { PodSpec } from '@rocelab/topology';
import type { Frame } from '@rocelab/wire';
import type { PodContext } from './pod-context.js';
import type { PodEngine } from './pod-model.js';
import { PcapRecorder, type PcapSettings } from './pcap-recorder.js';
import { TraceRecorder, type TraceSettings } from './trace-recorder.js';

export interface RecordingOptions {
  trace: (TraceSettings & { dir: string }) | null;
  pcap: (PcapSettings & { dir: string }) | null;
}

export const NO_RECORDING: RecordingOptions = { trace: null, pcap: null };

/** Where members put their rows before the merge (inside the trace directory). */
export const PARTS_DIR = '.parts';

export interface Recording {
  /** Hand buffered rows and records to the files (e.g. at every lease end). */
  flush(): void;
  /** The run is over: the last rows (fct.csv) and a final flush. */
  finish(): void;
}

export function attachRecording(engine: PodEngine, pc: PodContext, hosted: readonly number[], options: RecordingOptions): Recording | null {
  const { trace, pcap } = options;
  if (trace === null && pcap === null) return null;
  const traceRecorder = trace === null ? null : new TraceRecorder(engine, pc, hosted, trace, { append: (node, file, text) => appendFileSync(partFile(trace.dir, node, file), text) });
  const pcapRecorder = pcap === null ? null : new PcapRecorder(pc.pod, hosted, pcap, { append: (node, port, bytes) => appendFileSync(join(pcap.dir, PARTS_DIR, pcapFileName(node, port)), bytes) });
  const nodes = pc.pod.nodes;
  const observer: EngineObserver = {
    ...(traceRecorder === null ? {} : { onNote: (node: number, timePs: number, note: NodeNote) => traceRecorder.onNote(node, timePs, note) }),
    onArrive: (node, port, timePs, frame) => {
      traceRecorder?.onArrive(node, port, timePs, frame);
      pcapRecorder?.onArrive(node, port, timePs, frame, nodes[nodes[node]!.ports[port]!.peerNode]!.mac);
    },
    onTransmit: (node: number, port: number, timePs: number, frame: Frame) => {
      traceRecorder?.onTransmit(node, port, timePs, frame);
      pcapRecorder?.onTransmit(node, port, timePs, frame, nodes[node]!.mac);
    },
    ...(traceRecorder === null ? {} : { onPacketEvent: (node: number, port: number, timePs: number, frame: Frame, index: number, action: PacketAction) => traceRecorder.onPacketEvent(node, port, timePs, frame, index, action) }),
  };
  engine.observe(observer);
  return {
    flush: () => {
      traceRecorder?.flush();
      pcapRecorder?.flush();
    },
    finish: () => {
      traceRecorder?.finish();
      pcapRecorder?.flush();
    },
  };
}

/**
 * The options as the environment of a member process (and back): how `rocelab run` tells its
 * children — local processes or containers, with the directories at their own paths — what to record.
 */
export function recordingToEnv(options: RecordingOptions, dirs: { trace?: string; pcap?: string } = {}): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.trace !== null) {
    env.ROCELAB_TRACE_DIR = dirs.trace ?? options.trace.dir;
    env.ROCELAB_TRACE_RATES_INTERVAL_PS = String(options.trace.ratesIntervalPs);
    env.ROCELAB_TRACE_QUEUE_INTERVAL_PS = String(options.trace.queueIntervalPs);
  }
  if (options.pcap !== null) {
    env.ROCELAB_PCAP_DIR = dirs.pcap ?? options.pcap.dir;
    env.ROCELAB_PCAP_PORTS = options.pcap.ports === null ? '' : options.pcap.ports.join(',');
    env.ROCELAB_PCAP_SNAPLEN = String(options.pcap.snaplen);
  }
  return env;
}

export function recordingFromEnv(env: NodeJS.ProcessEnv): RecordingOptions {
  const int = (name: string): number => {
    const n = Number(env[name]);
    if (!Number.isSafeInteger(n) || n <= 0) throw new RunFilesError(`${name}=${JSON.stringify(env[name])}: expected a positive integer`);
    return n;
  };
  const traceDir = env.ROCELAB_TRACE_DIR;
  const pcapDir = env.ROCELAB_PCAP_DIR;
  return {
    trace: traceDir ? { dir: traceDir, ratesIntervalPs: int('ROCELAB_TRACE_RATES_INTERVAL_PS'), queueIntervalPs: int('ROCELAB_TRACE_QUEUE_INTERVAL_PS') } : null,
    pcap: pcapDir ? { dir: pcapDir, ports: env.ROCELAB_PCAP_PORTS ? env.ROCELAB_PCAP_PORTS.split(',') : null, snaplen: int('ROCELAB_PCAP_SNAPLEN') } : null,
  };
}

export function pcapFileName(node: string, port: string): string {
  return `${node}-${port}.pcap`;
}

function partFile(dir: string, node: string, file: TraceFileName): string {
  return join(dir, PARTS_DIR, `${node}.${file}`);
}

/**
 * Make the directories ready before the run starts, or throw with what is wrong: created if
 * missing, writable, earlier trace or capture files removed (a trace directory is the run's,
 * not a log to append to). Every process writes into `DIR/.parts`, world-writable so that
 * containers (uid 10001) can; the user's directory itself keeps its mode. With `forContainers`
 * the directory must at least be searchable by others, or the containers cannot reach `.parts`.
 */
export function prepareRunFiles(options: RecordingOptions, forContainers = false): void {
  const dirs: Array<[string, string]> = [];
  if (options.trace !== null) dirs.push([options.trace.dir, '--trace']);
  if (options.pcap !== null && options.pcap.dir !== options.trace?.dir) dirs.push([options.pcap.dir, '--pcap']);
  for (const [dir, flag] of dirs) {
    ensureWritableDir(dir, flag);
    if (forContainers && (statSync(dir).mode & 0o001) === 0) {
      throw new RunFilesError(`${flag} ${dir} (mode ${(statSync(dir).mode & 0o777).toString(8)}): expected a directory others may search (chmod o+x): the containers run as uid 10001 and write into ${join(dir, PARTS_DIR)}`);
    }
    rmSync(join(dir, PARTS_DIR), { recursive: true, force: true });
    for (const name of readdirSync(dir)) if (name.endsWith('.pcap') || (TRACE_FILE_NAMES as string[]).includes(name)) rmSync(join(dir, name), { force: true });
    mkdirSync(join(dir, PARTS_DIR));
    chmodSync(join(dir, PARTS_DIR), 0o777);
  }
}

/** After the run: the final CSVs from every node's parts, in node order; the captures moved out of the parts; the parts gone. */
export function mergeRunFiles(pod: PodSpec, options: RecordingOptions): void {
  if (options.trace !== null) {
    const { dir } = options.trace;
    for (const file of TRACE_FILE_NAMES) {
      const parts = pod.nodes.map((n) => {
        const path = partFile(dir, n.name, file);
        return existsSync(path) ? readFileSync(path, 'utf8') : '';
      });
      const text = mergeParts(TRACE_FILES[file], parts);
      // The size group of each message needs all of them: added once merged.
      writeFileSync(join(dir, file), file === 'fct.csv' ? withBucketColumn(text) : text);
    }
  }
  if (options.pcap !== null) {
    const parts = join(options.pcap.dir, PARTS_DIR);
    for (const name of readdirSync(parts)) if (name.endsWith('.pcap')) renameSync(join(parts, name), join(options.pcap.dir, name));
  }
  for (const dir of [options.trace?.dir, options.pcap?.dir]) if (dir !== undefined) rmSync(join(dir, PARTS_DIR), { recursive: true, force: true });
}

export class RunFilesError extends Error {}

function ensureWritableDir(dir: string, flag: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.rocelab-write-test-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? `${(err as NodeJS.ErrnoException).code}: ${err.message}` : String(err);
    throw new RunFilesError(`${flag} ${dir}: expected a directory rocelab can create and write (${reason})`);
  }
}
