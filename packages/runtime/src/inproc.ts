/**
 * `--mode inproc`: one process hosts every node; links are in-memory and there are no windows.
 */
import { performance } from 'node:perf_hooks';
import type { PodSpec } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';
import { faultToWire, scheduleWireFault } from './fault-wire.js';
import { scheduleFault } from './faults.js';
import { nodeMemory } from './memory.js';
import { idealFctLookup } from './ideal-paths.js';
import { buildEngine, type ModelFactory } from './models.js';
import { podContext, prepareApps } from './pod-context.js';
import { nodeFinal, assembleResult, type RunResult } from './result.js';
import { torsOfHosts } from './node-report.js';
import { attachRecording, NO_RECORDING, type RecordingOptions } from './recording.js';

export interface RunOptions {
  seed: number;
  durationPs: number;
  /** Node whose model loses frames without counting them (audit self-test). */
  debugUncountedLoss?: string | null;
  models?: ModelFactory;
  /** Called with the virtual time reached, every `PROGRESS_STEP_PS` (a progress bar; display only). */
  onProgress?: (virtualPs: number) => void;
  /** Traces and captures (directories prepared by the caller). */
  recording?: RecordingOptions;
  /** Faults beside the topology's own, as they travel (a replayed fault log's live faults and clears). */
  faults?: readonly Fault[];
  /** Every node's report in the result (`RunResult.nodes`). */
  detail?: boolean;
}

/** Slices of virtual time between progress calls: running in slices is what members do every window, so results are the same. */
export const PROGRESS_STEP_PS = 50_000_000;

export async function runInproc(pod: PodSpec, options: RunOptions): Promise<RunResult> {
  const building = performance.now();
  const pc = podContext(pod, options.seed);
  const all = pod.nodes.map((n) => n.index);
  await prepareApps(pc, all);
  const engine = buildEngine(pc, all, options.debugUncountedLoss ?? null, options.models);
  const hosted = new Set(all);
  for (const fault of pod.faults) scheduleFault(engine, pc, fault, hosted);
  for (const fault of options.faults ?? []) scheduleWireFault(engine, pc, fault, hosted);
  const recording = attachRecording(engine, pc, all, options.recording ?? NO_RECORDING);
  const start = performance.now();
  if (options.onProgress === undefined) {
    engine.runUntil(options.durationPs);
  } else {
    for (let t = Math.min(PROGRESS_STEP_PS, options.durationPs); ; t = Math.min(t + PROGRESS_STEP_PS, options.durationPs)) {
      engine.runUntil(t);
      options.onProgress(t);
      if (t === options.durationPs) break;
    }
  }
  recording?.finish();
  const wallMs = performance.now() - start;
  const memory = nodeMemory(pod.nodes.length, true);
  return assembleResult(
    all.map((i) => nodeFinal(engine, i, pod.nodes[i]!.role, memory)),
    { seed: options.seed, profile: pod.profile, timing: pod.timing, mode: 'inproc', workers: 1, durationPs: options.durationPs, wallMs, startupMs: start - building, windows: 0, torOf: torsOfHosts(pod), idealFctPs: idealFctLookup(pc), detail: options.detail === true, faultLog: [...pod.faults.map((f) => ({ ...faultToWire(f), source: 'topology' as const })), ...(options.faults ?? []).map((f) => ({ ...f, source: 'live' as const }))] },
  );
}
