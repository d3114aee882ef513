/**
 * `--mode inproc`: one process hosts every node; links are in-memory and there are no windows.
 */
import { performance } from 'node:perf_hooks';
import type { PodSpec } from '@rocelab/topology';
import { scheduleFault } from './faults.js';
import { buildEngine, podContext, type ModelFactory } from './models.js';
import { assembleResult, nodeFinal, type RunResult } from './result.js';

export interface RunOptions {
  seed: number;
  durationPs: number;
  /** Node whose model loses frames without counting them (audit self-test). */
  debugUncountedLoss?: string | null;
  models?: ModelFactory;
}

export function runInproc(pod: PodSpec, options: RunOptions): RunResult {
  const pc = podContext(pod, options.seed);
  const all = pod.nodes.map((n) => n.index);
  const engine = buildEngine(pc, all, options.debugUncountedLoss ?? null, options.models);
  const hosted = new Set(all);
  for (const fault of pod.faults) scheduleFault(engine, pod, fault, hosted);
  const start = performance.now();
  engine.runUntil(options.durationPs);
  const wallMs = performance.now() - start;
  const rss = process.memoryUsage().rss / pod.nodes.length;
  return assembleResult(
    all.map((i) => nodeFinal(engine, i, rss)),
    { seed: options.seed, profile: pod.profile, timing: pod.timing, mode: 'inproc', workers: 1, durationPs: options.durationPs, wallMs, windows: 0 },
  );
}
