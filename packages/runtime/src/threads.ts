/**
 * `--threads K`: one process, K worker threads, each hosting a part of the pod
 * (`partitionPod`) and exchanging frames through `SharedArrayBuffer` rings once per window
 * (`thread-member.ts`). The same trace hash as one thread; the parts run at once on as many
 * cores. This thread only starts them, relays progress, and assembles the result.
 */
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { partitionPod, type PodSpec } from '@rocelab/topology';
import { faultToWire } from './fault-wire.js';
import { idealFctLookup } from './ideal-paths.js';
import type { RunOptions } from './inproc.js';
import { PROGRESS_STEP_PS } from './inproc.js';
import { torsOfHosts } from './node-report.js';
import { podContext } from './pod-context.js';
import { NO_RECORDING } from './recording.js';
import { assembleResult, type RunResult } from './result.js';
import { partsByName, type ThreadMessage, type ThreadOutcome, type ThreadPlan } from './thread-member.js';
import { ThreadRing, type RingMemory } from './thread-ring.js';
import { placementWindow } from './window.js';

/**
 * Bytes of each ring: a window's message must fit whole (a thread writes before it reads).
 * 16 MiB holds ≈ 150 k frames, far above what one lookahead of a 100 Gb/s link carries.
 */
export const RING_BYTES = 16 * 2 ** 20;

/**
 * Pods of at least this many nodes run in threads by default (`defaultThreads`). Measured on the
 * 2-core machine of CI, 2 threads against one, Clos pods with 1 µs links (docs/architecture/sync.md):
 * 26 nodes 1.04, 88 nodes 1.5–1.7, 152 nodes 1.25, 284 nodes 0.7–0.95, 1,112 nodes 0.89–0.96.
 * Below a few hundred nodes a window's work is too small for two threads to gain what their
 * exchange costs.
 */
export const THREADS_MIN_NODES = 500;

/** How many threads `rocelab run` uses when not told: one per core, for pods large enough to gain (`THREADS_MIN_NODES`). */
export function defaultThreads(pod: PodSpec, cores: number): number {
  return cores > 1 && pod.nodes.length >= THREADS_MIN_NODES ? cores : 1;
}

/** How long a thread that failed leaves the others to stop by themselves before they are terminated. */
const ABORT_GRACE_MS = 1000;

/** A thread failed: the run is given up, and this says which part and why. */
export class ThreadRunError extends Error {}

/**
 * What each worker thread runs: a module file (default: `thread-main.js` beside this one), or
 * code to evaluate (the CLI's, which calls `threadMain` from its one-file bundle).
 */
export type ThreadEntry = { file: URL } | { code: string };

export async function runThreads(pod: PodSpec, threads: number, options: RunOptions & { threadEntry?: ThreadEntry }): Promise<RunResult> {
  const building = performance.timeOrigin + performance.now();
  const parts = partitionPod(pod, threads);
  const { windowPs, crossLinks } = placementWindow(pod, partsByName(pod, parts));
  const rings: (RingMemory | null)[][] = parts.map((_, from) => parts.map((__, to) => (from === to ? null : ThreadRing.allocate(RING_BYTES))));
  const abort = new SharedArrayBuffer(4);
  const entry = options.threadEntry ?? { file: new URL('./thread-main.js', import.meta.url) };
  const pool: Pool = { running: new Set(), stopped: new Set() };
  const outcomes = await Promise.all(
    parts.map((_, self) => {
      const plan: ThreadPlan = {
        pod,
        seed: options.seed,
        durationPs: options.durationPs,
        windowPs,
        self,
        parts,
        rings,
        abort,
        faults: options.faults ?? [],
        recording: options.recording ?? NO_RECORDING,
        debugUncountedLoss: options.debugUncountedLoss ?? null,
        progressStepPs: self === 0 && options.onProgress !== undefined ? PROGRESS_STEP_PS : null,
      };
      return runWorker(entry, plan, abort, pool, options.onProgress);
    }),
  );
  const failures = outcomes.filter((o): o is { error: string; aborted: boolean } => 'error' in o);
  if (failures.length > 0) throw new ThreadRunError((failures.find((f) => !f.aborted) ?? failures[0]!).error);
  const done = outcomes as ThreadOutcome[];
  const startedAtMs = Math.max(...done.map((o) => o.startedAtMs));
  const endedAtMs = Math.max(...done.map((o) => o.endedAtMs));
  const pc = podContext(pod, options.seed);
  const finals = done.flatMap((o) => o.finals).sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const byName = new Map(finals.map((f) => [f.node, f]));
  return assembleResult(
    pod.nodes.map((n) => byName.get(n.name)!),
    {
      seed: options.seed,
      profile: pod.profile,
      timing: pod.timing,
      mode: 'threads',
      workers: parts.length,
      durationPs: options.durationPs,
      wallMs: endedAtMs - startedAtMs,
      startupMs: startedAtMs - building,
      windows: done[0]!.windows,
      torOf: torsOfHosts(pod),
      idealFctPs: idealFctLookup(pc),
      detail: options.detail === true,
      linkTraffic: { messages: sum(done.map((o) => o.messages)), bytes: sum(done.map((o) => o.bytes)) },
      placement: { members: parts.length, crossLinks, links: pod.links.length, windowNs: windowPs / 1000 },
      threadTimes: done.map((o) => ({ runMs: Math.round(o.runMs), waitMs: Math.round(o.waitMs) })),
      faultLog: [...pod.faults.map((f) => ({ ...faultToWire(f), source: 'topology' as const })), ...(options.faults ?? []).map((f) => ({ ...f, source: 'live' as const }))],
    },
  );
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/**
 * One thread to its end: its outcome, or `{ error }` when it failed. A thread that failed
 * sets the abort flag, so the others stop waiting for it and end with `ThreadAborted`; one
 * still computing (it looks at the flag only while it waits) is terminated after
 * `ABORT_GRACE_MS`. The error reported is the first thread's own, not those.
 */
function runWorker(entry: ThreadEntry, plan: ThreadPlan, abort: SharedArrayBuffer, pool: Pool, onProgress?: (virtualPs: number) => void): Promise<ThreadOutcome | { error: string; aborted: boolean }> {
  return new Promise((resolveOutcome) => {
    const worker = 'file' in entry ? new Worker(entry.file, { workerData: plan }) : new Worker(entry.code, { eval: true, workerData: plan });
    pool.running.add(worker);
    let settled = false;
    const settle = (o: ThreadOutcome | { error: string; aborted: boolean }) => {
      if (settled) return;
      settled = true;
      pool.running.delete(worker);
      if ('error' in o && !o.aborted) {
        Atomics.store(new Int32Array(abort), 0, 1);
        setTimeout(() => {
          for (const other of pool.running) {
            pool.stopped.add(other);
            void other.terminate();
          }
        }, ABORT_GRACE_MS).unref();
      }
      resolveOutcome(o);
    };
    const name = `thread ${plan.self + 1} of ${plan.parts.length}`;
    worker.on('message', (m: ThreadMessage) => {
      if (m.type === 'progress') onProgress?.(m.virtualPs);
      else if (m.type === 'done') settle(m.outcome);
      else settle({ error: `${name} failed: ${m.stack}`, aborted: m.aborted });
    });
    worker.on('error', (err) => settle({ error: `${name} failed: ${err.stack ?? err.message}`, aborted: false }));
    worker.on('exit', (code) => {
      const stopped = pool.stopped.has(worker);
      settle({ error: stopped ? `${name} was stopped: another thread failed` : `${name} exited (code ${code}) before it finished`, aborted: stopped });
    });
  });
}

/** The threads still running, and those terminated because another failed. */
interface Pool {
  running: Set<Worker>;
  stopped: Set<Worker>;
}
