/**
 * The waits the README promises a newcomer, measured the way the newcomer meets them (issue 22:
 * "start-up takes some 4 s" was a figure nobody had measured): `npm start`'s `rocelab up` of the
 * default pod from launch to its "Ctrl-C stops the pod." line, and `rocelab drill run` of the two
 * drills the README times, each the median of RUNS runs, with the machine they ran on. The
 * README quotes these fields; `npm run -s bench -- --readme` prints them alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { note, sig } from './util.js';

/** Runs per figure; the median is reported, and every run beside it. */
export const RUNS = 3;
/** The drills the README gives a duration for. */
export const README_DRILLS = ['nic-pause-storm', 'is-lossless-mandatory'] as const;
/** How long one `rocelab up` may take to start before the bench gives up on it. */
const UP_TIMEOUT_MS = 120_000;

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  /** The 1-minute load average when the bench began: near 0 on an idle machine. */
  loadAverage1m: number;
}

export function machine(): Machine {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', memoryGiB: sig(totalmem() / 2 ** 30, 3), loadAverage1m: sig(loadavg()[0]!, 2) };
}

/**
 * Each figure carries the 1-minute load average when its runs began (`loadAverage1m`): a figure
 * quoted as from an idle machine must have had the machine to itself, and on a shared one other
 * work comes and goes within a bench run.
 */
export interface ReadmeTimings {
  /** `rocelab up deploy/pods/default.yaml` (what `npm start` runs after its build): launch to "Ctrl-C stops the pod.". */
  startupSeconds: { up: number; runs: number[]; loadAverage1m: number };
  /** `rocelab drill run drills/NAME.yaml` (inproc, the default): launch to exit. */
  drillSeconds: Record<(typeof README_DRILLS)[number], { median: number; runs: number[]; loadAverage1m: number }>;
}

const load = (): number => sig(loadavg()[0]!, 2);

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export async function readmeTimings(cli: string, root: string): Promise<ReadmeTimings> {
  const up: number[] = [];
  const upLoad = load();
  for (let i = 0; i < RUNS; i++) up.push(await upStartup(cli, root));
  note(`readme: rocelab up of the default pod started in ${up.map((s) => s.toFixed(2)).join(', ')} s`);
  const drills = {} as ReadmeTimings['drillSeconds'];
  for (const name of README_DRILLS) {
    const runs: number[] = [];
    const before = load();
    for (let i = 0; i < RUNS; i++) runs.push(drillRun(cli, root, name));
    note(`readme: drill ${name} ran in ${runs.map((s) => s.toFixed(2)).join(', ')} s`);
    drills[name] = { median: sig(median(runs), 2), runs: runs.map((s) => sig(s, 3)), loadAverage1m: before };
  }
  return { startupSeconds: { up: sig(median(up), 2), runs: up.map((s) => sig(s, 3)), loadAverage1m: upLoad }, drillSeconds: drills };
}

/** One `rocelab up` of the default pod: seconds to its ready line; then Ctrl-C to its process group, and its exit awaited. */
async function upStartup(cli: string, root: string): Promise<number> {
  const state = mkdtempSync(join(tmpdir(), 'rocelab-bench-up-'));
  const start = performance.now();
  const child = spawn(process.execPath, [cli, 'up', 'deploy/pods/default.yaml'], {
    cwd: root,
    detached: true, // its own process group, as a terminal's foreground job: Ctrl-C reaches every member
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ROCELAB_STATE_DIR: state, ROCELAB_LOG_LEVEL: 'error' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const seconds = await new Promise<number>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`rocelab up did not start within ${UP_TIMEOUT_MS / 1000} s`)), UP_TIMEOUT_MS);
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Ctrl-C stops the pod.')) {
          clearTimeout(timer);
          resolve((performance.now() - start) / 1000);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`rocelab up exited (${code}) before it started`));
      });
    });
    process.kill(-child.pid!, 'SIGINT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
    return seconds;
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    await exited;
    rmSync(state, { recursive: true, force: true });
  }
}

/** One `rocelab drill run` of a built-in drill into a fresh directory: its wall seconds; it must pass. */
function drillRun(cli: string, root: string, name: string): number {
  const out = mkdtempSync(join(tmpdir(), `rocelab-bench-${name}-`));
  try {
    const start = performance.now();
    const r = spawnSync(process.execPath, [cli, 'drill', 'run', `drills/${name}.yaml`, '--out', out, '--json'], { cwd: root, encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 2 ** 20 });
    const seconds = (performance.now() - start) / 1000;
    if (r.status !== 0) throw new Error(`drill ${name} exited ${r.status}: ${r.stderr.slice(-2000)}`);
    return seconds;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
