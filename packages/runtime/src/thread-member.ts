/**
 * One thread of `--threads K`: it hosts a part of the pod (`partitionPod`) in its own engine
 * and runs the windows of the conservative protocol with every other thread through
 * `SharedArrayBuffer` rings (`thread-ring.ts`): no controller, no leases, no sockets.
 *
 * Every window [start, end) is at most the smallest lookahead of a link between two threads
 * wide, so nothing a thread sends in it is due before its end. After running it, each thread
 * writes one message to every other thread: the frames of each link between the two that
 * carried any, and the earliest time anything can happen next on its side (its next event, or
 * a frame it just sent). Every thread reads every other's, so all of them compute the same
 * next start: the end, or the earliest such time when every engine is idle until later (the
 * coordinator's jump over idle time, without a coordinator). The trace hash does not depend on
 * where windows fall (`run-slices.ts`), so it is inproc's.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { PodSpec } from '@rocelab/topology';
import type { Outbox } from '@rocelab/sim';
import { RecordReader, RecordWriter, type Fault, type Frame } from '@rocelab/wire';
import { scheduleFault } from './faults.js';
import { scheduleWireFault } from './fault-wire.js';
import { nodeMemory } from './memory.js';
import { buildEngine, type ModelFactory } from './models.js';
import { packPair, RemoteLinks, type RemoteLink } from './member-links.js';
import { podContext, prepareApps } from './pod-context.js';
import type { PodEngine } from './pod-model.js';
import { attachRecording, NO_RECORDING, type RecordingOptions } from './recording.js';
import { nodeFinal, type NodeFinal } from './result.js';
import { ThreadRing, type RingMemory } from './thread-ring.js';

/** What a thread is given: the pod, its part, and the rings (`rings[from][to]`, null on the diagonal). */
export interface ThreadPlan {
  pod: PodSpec;
  seed: number;
  durationPs: number;
  windowPs: number;
  /** This thread's number, and every thread's nodes (ascending indices). */
  self: number;
  parts: number[][];
  rings: (RingMemory | null)[][];
  /** Int32 slot 0: set when the run is given up (a thread failed); everyone stops waiting. */
  abort: SharedArrayBuffer;
  faults: readonly Fault[];
  recording: RecordingOptions;
  debugUncountedLoss: string | null;
  /** Report the virtual time reached every this many ps (null: never). */
  progressStepPs: number | null;
}

/** What a thread hands back at the end. */
export interface ThreadOutcome {
  finals: NodeFinal[];
  windows: number;
  messages: number;
  bytes: number;
  /** Wall clock (ms since the epoch) when the windows started and ended: the run's wall time is the slowest thread's. */
  startedAtMs: number;
  endedAtMs: number;
  /** Wall ms this thread spent running its engine, and waiting for the others' messages (where a run's time goes). */
  runMs: number;
  waitMs: number;
}

export class ThreadAborted extends Error {}

/** What a thread posts to the thread that started it (`threads.ts`). */
export type ThreadMessage =
  | { type: 'progress'; virtualPs: number }
  | { type: 'done'; outcome: ThreadOutcome }
  | { type: 'failed'; stack: string; aborted: boolean };

/**
 * The program of each worker thread (`thread-main.ts`, or the CLI's bundle): it runs its part
 * and posts the outcome, or the error, to the thread that started it.
 */
export async function threadMain(): Promise<void> {
  const plan = workerData as ThreadPlan;
  const post = (m: ThreadMessage) => parentPort!.postMessage(m);
  try {
    const outcome = await runThread(plan, plan.progressStepPs === null ? {} : { onProgress: (virtualPs) => post({ type: 'progress', virtualPs }) });
    post({ type: 'done', outcome });
  } catch (err) {
    // Everyone else stops waiting for this thread's next message.
    Atomics.store(new Int32Array(plan.abort), 0, 1);
    const e = err instanceof Error ? err : new Error(String(err));
    post({ type: 'failed', stack: e.stack ?? e.message, aborted: err instanceof ThreadAborted });
  }
}

/**
 * How long a thread spins for the others' message before it sleeps: longer than a window's
 * usual imbalance between two threads, short enough not to starve a third process of a core.
 */
const SPIN_MS = 0.5;
/** How long one wait on a ring lasts before the abort flag is looked at again. */
const WAIT_SLICE_MS = 100;
/** Our own threads' messages are bounded by their ring, not by a per-link count as a peer over a socket is. */
const MAX_FRAMES_PER_LINK = 2 ** 30;

export async function runThread(plan: ThreadPlan, options: { models?: ModelFactory; onProgress?: (virtualPs: number) => void } = {}): Promise<ThreadOutcome> {
  const { pod, self } = plan;
  const hosted = plan.parts[self]!;
  const pc = podContext(pod, plan.seed);
  await prepareApps(pc, hosted);
  const engine = buildEngine(pc, hosted, plan.debugUncountedLoss, options.models);
  const hostedSet = new Set(hosted);
  for (const fault of pod.faults) scheduleFault(engine, pc, fault, hostedSet);
  for (const fault of plan.faults) scheduleWireFault(engine, pc, fault, hostedSet);
  const recording = attachRecording(engine, pc, hosted, plan.recording ?? NO_RECORDING);
  const links = partLinks(pod, plan.parts, self);
  const abort = new Int32Array(plan.abort);
  const out = plan.rings[self]!.map((m) => (m === null ? null : new ThreadRing(m)));
  const inbound = plan.rings.map((row) => (row[self] === null ? null : new ThreadRing(row[self]!)));
  const exchange = new Exchange(engine, links, out, inbound, abort, SPIN_MS);

  // Everyone built: the windows start together, so no thread's wall time counts another's start-up.
  exchange.swap(0, Infinity);
  exchange.messages = exchange.bytes = 0;
  const startedAtMs = performance.timeOrigin + performance.now();
  let windows = 0;
  let runMs = 0;
  let nextProgress = plan.progressStepPs ?? Infinity;
  for (let start = 0; ; ) {
    const end = Math.min(start + plan.windowPs, plan.durationPs);
    const t0 = performance.now();
    engine.runUntil(end);
    runMs += performance.now() - t0;
    windows++;
    const next = exchange.swap(windows, engine.nextEventPs() ?? Infinity);
    while (end >= nextProgress) {
      options.onProgress?.(nextProgress);
      nextProgress += plan.progressStepPs!;
    }
    if (end === plan.durationPs) break;
    start = Math.min(Math.max(end, next), plan.durationPs);
  }
  recording?.finish();
  const endedAtMs = performance.timeOrigin + performance.now();
  const memory = nodeMemory(pod.nodes.length, true);
  return {
    finals: hosted.map((i) => nodeFinal(engine, i, pod.nodes[i]!.role, memory)),
    windows,
    messages: exchange.messages,
    bytes: exchange.bytes,
    startedAtMs,
    endedAtMs,
    runMs,
    waitMs: exchange.waitMs,
  };
}

/** Each node's part, by node name. */
export function partsByName(pod: PodSpec, parts: readonly (readonly number[])[]): Map<string, number> {
  const partOf = new Map<string, number>();
  parts.forEach((part, p) => part.forEach((i) => partOf.set(pod.nodes[i]!.name, p)));
  return partOf;
}

/**
 * `self`'s links to each other part, grouped, sorted and numbered as a member's are (`RemoteLinks`,
 * the part's number as its member id): empty for itself and for a part it shares no link with.
 */
export function partLinks(pod: PodSpec, parts: readonly (readonly number[])[], self: number): RemoteLink[][] {
  const partOf = partsByName(pod, parts);
  const links = new RemoteLinks(pod, new Set(parts[self]!), String(self), (node) => String(partOf.get(node)));
  return parts.map((_, p) => links.pair(String(p))?.links ?? []);
}

/**
 * One message to and from every other thread per window: the earliest time anything can happen
 * next on the sender's side (−1: nothing ever), then, for each link that carried frames, its
 * number among the pair's links and its frame count, and per frame its arrival time, origin
 * sequence, bad-FCS flag and the frame's record (`@rocelab/wire` frame-record.ts).
 */
class Exchange {
  messages = 0;
  bytes = 0;
  waitMs = 0;

  constructor(
    private readonly engine: PodEngine,
    private readonly links: readonly (readonly RemoteLink[])[],
    private readonly out: (ThreadRing | null)[],
    private readonly inbound: (ThreadRing | null)[],
    private readonly abort: Int32Array,
    private readonly spinMs: number,
  ) {}

  /** Reused for every message: a window's records are copied into the ring as they are. */
  private readonly writer = new RecordWriter();

  /**
   * Ships this window's frames with `nextPs` (this side's next event), takes in every other
   * thread's, and returns the earliest time anything can happen next anywhere.
   */
  swap(window: number, nextPs: number): number {
    let earliest = nextPs;
    const payloads = this.links.map((links, peer) => {
      if (this.out[peer] === null) return null;
      // Rings do not break: every link carries. A thread has no leases (0).
      const carried = packPair(this.engine, links, true, 0, window, MAX_FRAMES_PER_LINK);
      for (const frames of carried) for (const t of frames.arrivalPs) if (t < earliest) earliest = t;
      return carried;
    });
    const w = this.writer;
    payloads.forEach((carried, peer) => {
      if (carried === null) return;
      w.reset();
      w.f64(Number.isFinite(earliest) ? earliest : -1);
      for (const link of carried) {
        w.u32(link.link);
        w.u32(link.frames.length);
        for (let i = 0; i < link.frames.length; i++) {
          w.f64(link.arrivalPs[i]!);
          w.f64(link.originSeq[i]!);
          w.u32(link.fcsBad[i]! ? 1 : 0);
          w.frame(link.frames[i]!);
        }
      }
      this.out[peer]!.write(w.written);
      this.messages++;
      this.bytes += w.length;
    });
    let next = earliest;
    this.inbound.forEach((ring, peer) => {
      if (ring === null) return;
      const r = new RecordReader(this.receive(ring, peer));
      const theirs = r.f64();
      if (theirs >= 0 && theirs < next) next = theirs;
      while (!r.done) {
        const link = this.links[peer]![r.u32()]!;
        const n = r.u32();
        const batch: Outbox = { frames: new Array<Frame>(n), arrivalPs: new Array<number>(n), originSeq: new Array<number>(n), fcsBad: new Array<boolean>(n) };
        for (let i = 0; i < n; i++) {
          batch.arrivalPs[i] = r.f64();
          batch.originSeq[i] = r.f64();
          batch.fcsBad[i] = r.u32() === 1;
          batch.frames[i] = r.frame();
        }
        this.engine.deliverRemote(link.localNode, link.localPort, batch);
      }
    });
    return next;
  }

  private receive(ring: ThreadRing, peer: number): Uint8Array {
    const first = ring.read();
    if (first !== null) return first;
    const t0 = performance.now();
    try {
      return this.await(ring, peer);
    } finally {
      this.waitMs += performance.now() - t0;
    }
  }

  private await(ring: ThreadRing, peer: number): Uint8Array {
    for (;;) {
      const mark = ring.writtenMark;
      const message = ring.read();
      if (message !== null) return message;
      if (Atomics.load(this.abort, 0) !== 0) throw new ThreadAborted(`stopped waiting for thread ${peer}: another thread failed`);
      ring.waitForData(mark, WAIT_SLICE_MS, this.spinMs);
    }
  }
}
