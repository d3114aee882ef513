/**
 * The perf pods of issue 12: the default Clos (16 hosts, 10 switches, 40 Gb/s, 1 µs, profile
 * hpcc-ns3) under a permutation and under an incast, 10 ms each, in every mode; and two larger
 * Clos pods generated with `rocelab topology clos`, for start-up and cost per virtual second.
 * Every figure comes from `rocelab run --json` as a user runs it (`cli.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClosShape } from '@rocelab/topology';
import { runCli, type CliFigures } from './cli.js';
import { note, sig } from './util.js';

export interface PerfFigures {
  /** Wall seconds per virtual second once running (start-up excluded). */
  wallPerVirtualSecond: number;
  /** From the runner's start to the first event (inproc: building the engine). */
  startupSeconds: number;
  eventsPerSec: number;
  windowsPerSec: number;
  msPerWindow: number | null;
  /** Batch messages between members per window, and their bytes (null in inproc). */
  messagesPerWindow: number | null;
  bytesPerWindow: number | null;
  rssMiBPerNode: number;
  pssMiBPerNode: number | null;
  events: number;
  traceHash: string;
}

/** One thread is asked for by name: a large pod would otherwise run in one thread per core (`defaultThreads`). */
export const PERF_MODES = { inproc: ['--threads', '1'], threads2: ['--threads', '2'], workers2: ['--workers', '2'], procs: ['--mode', 'procs'] } as const satisfies Record<string, readonly string[]>;
export type PerfMode = keyof typeof PERF_MODES;

/** One run's figures: what a run costs once its first event can run, and what it took to get there. */
export function perfFigures(run: CliFigures): PerfFigures {
  // One process's wall time counts from its first event already; members' includes starting them.
  const steadyMs = run.mode === 'inproc' || run.mode === 'threads' ? run.wallMs : run.wallMs - run.startupMs;
  const steadyS = Math.max(steadyMs, 1) / 1000;
  return {
    wallPerVirtualSecond: sig(steadyS / (run.virtualNs / 1e9)),
    startupSeconds: sig(run.startupMs / 1000),
    eventsPerSec: sig(run.events / steadyS),
    windowsPerSec: sig(run.windows / steadyS),
    msPerWindow: run.windows > 0 ? sig(steadyMs / run.windows) : null,
    messagesPerWindow: run.windows > 0 ? sig(run.linkMessages / run.windows) : null,
    bytesPerWindow: run.windows > 0 ? sig(run.linkBytes / run.windows) : null,
    rssMiBPerNode: run.rssMiBPerNode,
    pssMiBPerNode: run.pssMiBPerNode,
    events: run.events,
    traceHash: run.traceHash,
  };
}

/**
 * A fixture in every mode, each run `runs` times: the figures of the run with the median wall time
 * per virtual second, beside every run's (`runsWallPerVirtualSecond`). A mode whose hash differs
 * from inproc's, or a run whose hash differs from the mode's first, is flagged (figures of a wrong
 * run mislead).
 */
export async function measureFixture(cli: string, file: string, duration: string, modes: readonly PerfMode[] = ['inproc', 'threads2', 'workers2', 'procs'], runs = 1): Promise<Partial<Record<PerfMode, PerfFigures & { runsWallPerVirtualSecond: number[] }>>> {
  const out: Partial<Record<PerfMode, PerfFigures & { runsWallPerVirtualSecond: number[] }>> = {};
  for (const mode of modes) {
    const all: PerfFigures[] = [];
    for (let i = 0; i < runs; i++) {
      const figures = perfFigures(await runCli(cli, file, ['--duration', duration, ...PERF_MODES[mode]]));
      note(`${file} ${mode}: ${figures.wallPerVirtualSecond} wall s per virtual s, start-up ${figures.startupSeconds} s, ${figures.events} events, hash ${figures.traceHash.slice(0, 12)}`);
      if (all.length > 0 && figures.traceHash !== all[0]!.traceHash) note(`WARNING: ${file} ${mode} run ${i + 1}: trace hash differs from run 1`);
      all.push(figures);
    }
    const sorted = [...all].sort((a, b) => a.wallPerVirtualSecond - b.wallPerVirtualSecond);
    const chosen = sorted[(sorted.length - 1) >> 1]!;
    if (out.inproc !== undefined && chosen.traceHash !== out.inproc.traceHash) note(`WARNING: ${file} ${mode} trace hash differs from inproc`);
    out[mode] = { ...chosen, runsWallPerVirtualSecond: all.map((f) => f.wallPerVirtualSecond) };
  }
  return out;
}

/** A Clos written by `rocelab topology clos` with a permutation of `flowSize` flows, in a temporary directory. */
export function generateClos(cli: string, shape: ClosShape, flowSize: string): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-bench-'));
  const args = ['topology', 'clos', '--spines', `${shape.spines}`, '--leaves-per-pod', `${shape.leavesPerPod}`, '--tors-per-pod', `${shape.torsPerPod}`, '--pods', `${shape.pods}`, '--hosts-per-tor', `${shape.hostsPerTor}`, '--seed', '1', '--permutation', flowSize];
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`rocelab ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  const file = join(dir, 'clos.yaml');
  writeFileSync(file, r.stdout);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const hostsOf = (s: ClosShape): number => s.pods * s.torsPerPod * s.hostsPerTor;
export const switchesOf = (s: ClosShape): number => s.spines + s.pods * (s.leavesPerPod + s.torsPerPod);
