/**
 * The waits the README's guides (docs/local-pod.md, docs/drills.md) promise a newcomer, measured
 * the way the newcomer meets them (issue 22: "start-up takes some 4 s" was a figure nobody had
 * measured): `npm start`'s `rocelab up` of the default pod from launch to its "Ctrl-C stops the
 * pod." line, and `rocelab drill run` of the two drills the guides time, each the median of RUNS
 * runs, with the machine they ran on. The guides quote these fields (test/src/readme-claims.test.ts
 * holds them to it); `npm run -s bench -- --readme` prints them alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { note, sig } from './util.js';

/** Runs per figure; the median is reported, and every run beside it. */
export const RUNS = 3;
/** The drills the README's guides give a duration for. */
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
 * Each figure carries `othersCpuSeconds`: the CPU time the machine spent, while its runs lasted,
 * on anything but this bench and the processes it started (from /proc/stat, less this process's
 * own and its reaped children's times). A figure quoted as from an idle machine must show about
 * 0 there; on a shared machine other work comes and goes within a bench run, and the load
 * average cannot tell it from the bench's own runs.
 */
export interface ReadmeTimings {
  /** `rocelab up deploy/pods/default.yaml` (what `npm start` runs after its build): launch to "Ctrl-C stops the pod.". */
  startupSeconds: { up: number; runs: number[]; othersCpuSeconds: number };
  /** `rocelab drill run drills/NAME.yaml` (inproc, the default): launch to exit. */
  drillSeconds: Record<(typeof README_DRILLS)[number], { median: number; runs: number[]; othersCpuSeconds: number }>;
}

/** Jiffies the machine spent busy, and those of this process and its reaped descendants (Linux; USER_HZ = 100). */
function cpuJiffies(): { busy: number; ours: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: everything but idle and iowait is busy.
  const busy = cpu[0]! + cpu[1]! + cpu[2]! + cpu[5]! + cpu[6]! + cpu[7]!;
  const self = readFileSync('/proc/self/stat', 'utf8');
  const f = self.slice(self.lastIndexOf(')') + 2).split(' ');
  // From the state field on: utime, stime, cutime, cstime are fields 14–17 of the whole line, 12–15 here (0-based 11–14).
  const ours = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return { busy, ours };
}

/** Runs `work` and says how much CPU others used meanwhile, in seconds. */
export async function othersCpu<T>(work: () => Promise<T> | T): Promise<{ value: T; othersCpuSeconds: number }> {
  const a = cpuJiffies();
  const value = await work();
  const b = cpuJiffies();
  return { value, othersCpuSeconds: sig(Math.max(0, b.busy - a.busy - (b.ours - a.ours)) / 100, 2) };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export async function readmeTimings(cli: string, root: string): Promise<ReadmeTimings> {
  const { value: up, othersCpuSeconds: upOthers } = await othersCpu(async () => {
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await upStartup(cli, root));
    return runs;
  });
  note(`readme: rocelab up of the default pod started in ${up.map((s) => s.toFixed(2)).join(', ')} s (others used ${upOthers} s of CPU meanwhile)`);
  const drills = {} as ReadmeTimings['drillSeconds'];
  for (const name of README_DRILLS) {
    const { value: runs, othersCpuSeconds } = await othersCpu(() => Array.from({ length: RUNS }, () => drillRun(cli, root, name)));
    note(`readme: drill ${name} ran in ${runs.map((s) => s.toFixed(2)).join(', ')} s (others used ${othersCpuSeconds} s of CPU meanwhile)`);
    drills[name] = { median: sig(median(runs), 2), runs: runs.map((s) => sig(s, 3)), othersCpuSeconds };
  }
  return { startupSeconds: { up: sig(median(up), 2), runs: up.map((s) => sig(s, 3)), othersCpuSeconds: upOthers }, drillSeconds: drills };
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
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
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
