/**
 * Chaos: a pod as local processes (`rocelab run --mode procs`), one member killed with SIGKILL
 * at a random wall time, as an operator's fat finger or the OOM killer would. Every run must
 * end with a result, hold conservation, name the lost node, and leave no process behind —
 * with the dead member started again (`--respawn`) or not. The schedule is drawn from a seeded
 * stream, so a failing run can be repeated; the kill itself is racy in wall time, as it is in
 * life. `chaos.test.ts` runs a few; `npm run chaos` runs 20 and prints one JSON line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Rng } from '@rocelab/sim';
import type { RunResult } from '@rocelab/runtime';
import { CLI, ROOT, fixture } from './harness.js';

export interface ChaosRun {
  run: number;
  respawn: boolean;
  /** Two worker processes hosting three nodes each, rather than one process per node. */
  workers: boolean;
  /** Member killed, and after how long (wall ms from its pod running); null when the run ended first. */
  victim: string | null;
  killAfterMs: number;
  exitCode: number | null;
  wallMs: number;
  conservation: boolean | null;
  lostNodes: RunResult['lostNodes'];
  nodeLostFrames: number;
  /** Member processes still alive 10 s after the run ended. */
  leftovers: number[];
  /** What went wrong, or null. */
  problem: string | null;
}

/** The pod: two ToRs, four hosts, three flows across them (6 member processes). */
const POD = fixture('tree.yaml');
/** 3 ms of virtual time at 3,000 wall s per virtual s: about 9 s of wall time to kill into. */
const DURATION = '3ms';
const DILATION = '3000';
/** Two workers run the same pod about 4× faster: slow them to about the same wall time. */
const WORKERS_DILATION = '12000';
const RUN_LIMIT_MS = 180_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Member processes of `parent`: member id and nodes (from their environment), by pid. */
function members(parent: number): Map<number, { id: string; nodes: string[] }> {
  const out = new Map<number, { id: string; nodes: string[] }>();
  let pids: number[] = [];
  try {
    pids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0);
  } catch {
    return out; // ps exits 1 when there are none
  }
  for (const pid of pids) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const value = (key: string) => env.find((e) => e.startsWith(`${key}=`))?.slice(key.length + 1);
      const id = value('ROCELAB_MEMBER');
      if (id !== undefined) out.set(pid, { id, nodes: (value('ROCELAB_NODES') ?? id).split(',') });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function chaosRun(run: number, rng: Rng): Promise<ChaosRun> {
  const respawn = run % 2 === 1;
  const workers = run % 4 === 3;
  const killAfterMs = Math.floor(rng.nextFloat() * 8_000);
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'run', POD, '--mode', 'procs', ...(workers ? ['--workers', '2'] : []), '--duration', DURATION, '--dilation', workers ? WORKERS_DILATION : DILATION, '--json', ...(respawn ? ['--respawn'] : [])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Info: the controller's "pod running" line says when the kill can land in a running pod.
    env: { ...process.env, ROCELAB_LOG_LEVEL: 'info' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', (code) => ((exitCode = code), resolve())));
  const seen = new Set<number>();
  const watch = setInterval(() => {
    for (const pid of members(child.pid!).keys()) seen.add(pid);
  }, 200);
  let victim: string | null = null;
  let victimNodes: string[] = [];
  let problem: string | null = null;
  try {
    // A member that dies before the pod runs fails the start (a separate matter): kill into a running pod.
    for (let i = 0; i < 600 && !stderr.includes('"msg":"pod running"') && exitCode === undefined; i++) await sleep(100);
    await Promise.race([sleep(killAfterMs), exited]);
    if (exitCode === undefined) {
      const now = [...members(child.pid!)];
      const [pid, member] = now[Math.floor(rng.nextFloat() * now.length)]!;
      victim = member.id;
      victimNodes = member.nodes;
      process.kill(pid, 'SIGKILL');
    }
    const limit = sleep(RUN_LIMIT_MS).then(() => 'timeout');
    if ((await Promise.race([exited.then(() => 'done'), limit])) === 'timeout') {
      problem = `the run did not end within ${RUN_LIMIT_MS} ms after the kill`;
      child.kill('SIGKILL');
      await exited;
    }
  } finally {
    clearInterval(watch);
  }
  const wallMs = Math.round(performance.now() - started);
  // Members leave on the controller's goodbye or, when it is gone, on their own: 10 s at most.
  for (let i = 0; i < 100 && [...seen].some(alive); i++) await sleep(100);
  const leftovers = [...seen].filter(alive);
  for (const pid of leftovers) process.kill(pid, 'SIGKILL');
  let result: RunResult | null = null;
  try {
    result = JSON.parse(stdout) as RunResult;
  } catch {
    problem ??= `no result (exit ${exitCode}): ${stderr.split('\n').filter((l) => !l.startsWith('{')).slice(-5).join(' | ')}`;
  }
  if (result !== null) {
    const lost = result.lostNodes.filter((n) => n.cause === 'lost').map((n) => n.node);
    if (!result.conservation) problem ??= 'conservation failed';
    else if (victim !== null && lost.length > 0 && lost.some((n) => !victimNodes.includes(n))) problem ??= `lost ${lost.join(',')}, but ${victim} (${victimNodes.join(',')}) was killed`;
    else if (lost.length > 0 && exitCode !== 1) problem ??= `a node was lost, yet the run exited ${exitCode}`;
    else if (lost.length === 0 && exitCode !== 0) problem ??= `nothing lost, yet the run exited ${exitCode}`;
  }
  if (leftovers.length > 0) problem ??= `${leftovers.length} member processes left behind`;
  return {
    run,
    respawn,
    workers,
    victim,
    killAfterMs,
    exitCode: exitCode ?? null,
    wallMs,
    conservation: result?.conservation ?? null,
    lostNodes: result?.lostNodes ?? [],
    nodeLostFrames: result?.droppedByReason.node_lost ?? 0,
    leftovers,
    problem,
  };
}

/** `runs` chaos runs with the schedule of `seed`. */
export async function chaos(runs: number, seed: number, onRun: (r: ChaosRun) => void = () => undefined): Promise<ChaosRun[]> {
  const rng = new Rng(seed, 'chaos', 'schedule');
  const out: ChaosRun[] = [];
  for (let run = 0; run < runs; run++) {
    const r = await chaosRun(run, rng);
    onRun(r);
    out.push(r);
  }
  return out;
}
