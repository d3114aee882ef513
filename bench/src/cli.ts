/**
 * `wallPerVirtualSecond`, `rssMiBPerNode` and `pssMiBPerNode`: the fixture run through the `rocelab` command
 * exactly as a user runs it, one child process per run, reading the one JSON line it prints.
 * In the distributed modes `wallMs` includes starting the member processes, which a user
 * waits for too; `msPerWindow` divides it by the windows the run took.
 */
import { spawn } from 'node:child_process';

/** The fields of `rocelab run --json` (DESIGN §8) the bench reads. */
export interface CliRun {
  mode: string;
  wallMs: number;
  startupMs: number;
  virtualNs: number;
  windows: number;
  /** Batch messages and bytes shipped between members (0 in one process). */
  linkMessages: number;
  linkBytes: number;
  events: number;
  traceHash: string;
  rssMiBPerNode: number;
  /** Proportional set size per node (shared pages divided among the processes sharing them); null where not measured. */
  pssMiBPerNode: number | null;
}

export interface CliFigures extends CliRun {
  wallPerVirtualSecond: number;
  /** null in inproc: there are no windows. */
  msPerWindow: number | null;
}

/**
 * Runs `node main.js run FILE ...args --json`. A run that exits non-zero (a conservation or
 * causality failure, a crash) has no figures worth reporting: it throws, with its stderr.
 */
export async function runCli(main: string, file: string, args: readonly string[]): Promise<CliFigures> {
  const argv = [main, 'run', file, ...args, '--json'];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  if (stderr !== '') process.stderr.write(stderr); // its logs are ours: stderr
  const command = `rocelab ${argv.slice(1).join(' ')}`;
  if (code !== 0) throw new Error(`${command} exited with ${code}`);
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`${command} printed ${lines.length} lines on stdout, expected one JSON line`);
  const run = JSON.parse(lines[0]!) as CliRun;
  for (const field of ['wallMs', 'startupMs', 'virtualNs', 'windows', 'linkMessages', 'linkBytes', 'events', 'rssMiBPerNode'] as const) {
    if (typeof run[field] !== 'number') throw new Error(`${command}: field ${field} is not a number`);
  }
  if (run.pssMiBPerNode !== null && typeof run.pssMiBPerNode !== 'number') throw new Error(`${command}: field pssMiBPerNode is neither a number nor null`);
  return {
    ...run,
    wallPerVirtualSecond: run.wallMs / 1000 / (run.virtualNs / 1e9),
    msPerWindow: run.windows > 0 ? run.wallMs / run.windows : null,
  };
}
