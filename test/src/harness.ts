import assert from 'node:assert/strict';
/**
 * Test support: a whole pod in this process — the real controller and real member processes
 * talking over real WebSockets on loopback — and helpers to run the built CLI.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Controller } from '@rocelab/controller';
import { MemberProcess, type ModelFactory, type RunResult } from '@rocelab/runtime';
import type { PodSpec } from '@rocelab/topology';
import { pino, type Logger } from 'pino';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixture = (name: string): string => join(ROOT, 'test', 'fixtures', name);
export const CLI = join(ROOT, 'services', 'cli', 'dist', 'main.js');

/** A logger that keeps its lines for assertions. */
export function captureLog(level = 'info'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level }, { write: (line: string) => lines.push(line) }), lines };
}

export interface PodRun {
  result: RunResult;
  members: MemberProcess[];
  controller: Controller;
}

export interface InProcessOptions {
  seed?: number;
  durationPs: number;
  dilation?: number;
  members: Array<{ id: string; nodes: string[] }>;
  models?: ModelFactory;
  log?: Logger;
  maxWindowsPerLease?: number;
  /** Called once every member runs (e.g. to misbehave on a link). */
  whileRunning?: (members: MemberProcess[]) => void | Promise<void>;
}

export async function runInProcess(pod: PodSpec, o: InProcessOptions): Promise<PodRun> {
  const log = o.log ?? pino({ level: 'silent' });
  const token = randomBytes(16).toString('hex');
  const controller = new Controller({
    pod,
    seed: o.seed ?? pod.seed,
    durationPs: o.durationPs,
    dilation: o.dilation ?? 0,
    token,
    expected: o.members,
    mode: 'workers',
    log,
    ...(o.maxWindowsPerLease === undefined ? {} : { maxWindowsPerLease: o.maxWindowsPerLease }),
  });
  const { url } = await controller.listen();
  const members = o.members.map(
    (m) => new MemberProcess({ pod, id: m.id, nodes: m.nodes, controllerUrl: url, token, metrics: null, log, ...(o.models ? { models: o.models } : {}) }),
  );
  try {
    await Promise.all(members.map((m) => m.start()));
    await controller.running;
    await o.whileRunning?.(members);
    const result = await controller.result;
    await Promise.all(members.map((m) => m.done));
    return { result, members, controller };
  } finally {
    await Promise.all(members.map((m) => m.stop()));
    await controller.close();
  }
}

/** Split the pod's sorted nodes into `k` members. */
export function split(pod: PodSpec, k: number): Array<{ id: string; nodes: string[] }> {
  const n = pod.nodes.length;
  return Array.from({ length: k }, (_, w) => ({
    id: `m${w + 1}`,
    nodes: pod.nodes.slice(Math.floor((w * n) / k), Math.floor(((w + 1) * n) / k)).map((x) => x.name),
  }));
}

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
  json: RunResult | null;
}

/** Run the built `rocelab` CLI and parse its JSON line when there is one. */
export function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 2 ** 20 });
  return cliRun(args, r.status ?? -1, r.stdout, r.stderr);
}

/**
 * `cli` without blocking this process: a test that also talks HTTP to a pod keeps serving its
 * sockets meanwhile (a blocked client misses the server closing an idle keep-alive connection).
 */
export function cliAsync(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('close', (status) => resolve(cliRun(args, status ?? -1, stdout, stderr))));
}

function cliRun(args: string[], status: number, stdout: string, stderr: string): CliRun {
  const lines = stdout.split('\n').filter(Boolean);
  let json: RunResult | null = null;
  if (args.includes('--json') && lines.length === 1) json = JSON.parse(lines[0]!) as RunResult;
  return { status, stdout, stderr, json };
}

/**
 * Whether a test's outside tool (Docker, tshark, Chromium, a cluster) is here. If not (`missing`
 * says why), the test is skipped, or fails when `variable`=1 requires the tool, as CI does.
 */
export function toolReady(t: TestContext, missing: string | null, variable: string): boolean {
  if (missing === null) return true;
  if (process.env[variable] === '1') assert.fail(`${missing}, and ${variable}=1`);
  t.skip(missing);
  return false;
}
