/**
 * `rocelab down [--pid PID] [--timeout S]`: stop the pod this user's `rocelab up` runs (the one
 * `rocelab status` finds: `pod-record.ts`; with several, the one started last, or `--pid`'s). It sends that process SIGTERM — what Ctrl-C does: the pod ends
 * at the current lease, members send their final reports, `up` prints its audit (in its own
 * terminal) and removes its files — and waits until the process is gone. A process that is still
 * there after the timeout (stopped, or hung) is killed; its members then lose their controller
 * and stop, and the janitor removes the files.
 *
 * The record is trusted only while its process is a `rocelab up`: the controller it names must
 * answer `/status` for the recorded pod, or the process's command line must read `rocelab … up`
 * (a PID the system gave to another program since is never signalled).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { choosePod, livePodRecords, podRecordDir, podRecordPath, type PodRecord } from './pod-record.js';

export interface DownOptions {
  timeoutMs: number;
  /** The `rocelab up` to stop, when several run; null: the one started last. */
  pid: number | null;
}

export async function downCommand(options: DownOptions): Promise<number> {
  const records = livePodRecords();
  let record: PodRecord | undefined;
  if (options.pid !== null) {
    record = records.find((r) => r.pid === options.pid);
    if (record === undefined) {
      process.stderr.write(`rocelab down: --pid ${options.pid}: expected the process of a running rocelab up of this user (${records.length === 0 ? 'none runs' : `they are ${records.map((r) => `${r.pid} (${r.pod})`).join(', ')}`})\n`);
      return 2;
    }
  } else {
    const choice = choosePod(records);
    if (choice === null) {
      process.stdout.write(`no pod of this user's rocelab up is running (no live record in ${podRecordDir()})\n`);
      return 0;
    }
    record = choice.chosen;
    if (choice.note !== null) process.stderr.write(choice.note.replace(/^rocelab status:/, 'rocelab down:').replace(/choose one with --controller URL \(or ROCELAB_CONTROLLER=URL\)\n$/, 'stopping that one; rocelab down --pid PID stops another\n'));
  }
  if (!(await isRocelabUp(record))) {
    process.stderr.write(`rocelab down: ${podRecordPath(record.pid)} names process ${record.pid} for pod ${record.pod}, but neither does its controller ${record.controller} answer for that pod nor does the process run rocelab up: nothing was signalled\n`);
    return 1;
  }
  const startedMs = performance.now();
  process.stdout.write(`stopping pod ${record.pod} (rocelab up, pid ${record.pid}) at the end of its current lease…\n`);
  signal(record.pid, 'SIGTERM');
  while (alive(record.pid) && performance.now() - startedMs < options.timeoutMs) await sleep(200);
  const seconds = ((performance.now() - startedMs) / 1000).toFixed(1);
  if (!alive(record.pid)) {
    process.stdout.write(`pod ${record.pod} stopped in ${seconds} s (its audit is in the terminal of rocelab up)\n`);
    return 0;
  }
  signal(record.pid, 'SIGKILL');
  process.stderr.write(`rocelab down: rocelab up (pid ${record.pid}) did not stop within ${seconds} s: killed (SIGKILL); its members stop when they lose their controller, and its files are removed\n`);
  return 1;
}

async function isRocelabUp(record: PodRecord): Promise<boolean> {
  try {
    const res = await fetch(`${record.controller}/status`, { signal: AbortSignal.timeout(5_000) });
    const status = (await res.json()) as { pod?: unknown };
    if (status.pod === record.pod) return true;
  } catch {
    // not answering (stopped, hung, busy): look at the process itself
  }
  try {
    const args = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0');
    return args.includes('up') && args.some((a) => /(^|\/)(rocelab(\.mjs)?|main\.js)$/.test(a));
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}

/** Running (a zombie — exited, not yet reaped by its parent — is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat: "pid (comm) S …"; comm may hold spaces and parentheses, the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: kill(0) is all there is
  }
}
