/**
 * Test support for pods of local processes: find a CLI's member processes and the pod's private
 * directory from /proc, wait for processes to end, and collect a child's output as it comes.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface MemberProcessInfo {
  pid: number;
  member: string;
  /** The pod's private directory (ROCELAB_LINK_SOCKET_DIR: token, pod.json, link sockets). */
  dir: string | null;
}

function environ(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return null;
  }
}

/** The member processes among `pids` (those with ROCELAB_MEMBER in their environment). */
export function membersAmong(pids: readonly number[]): MemberProcessInfo[] {
  const out: MemberProcessInfo[] = [];
  for (const pid of pids) {
    const env = environ(pid);
    const member = env?.find((e) => e.startsWith('ROCELAB_MEMBER='));
    if (member === undefined) continue;
    const dir = env!.find((e) => e.startsWith('ROCELAB_LINK_SOCKET_DIR='));
    out.push({ pid, member: member.slice('ROCELAB_MEMBER='.length), dir: dir === undefined ? null : dir.slice('ROCELAB_LINK_SOCKET_DIR='.length) });
  }
  return out;
}

function ps(args: string[]): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', ...args], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0);
  } catch {
    return []; // none
  }
}

/** The member processes `parent` started. */
export const membersOf = (parent: number): MemberProcessInfo[] => membersAmong(ps(['--ppid', String(parent)]));

/** Every process of a process group. */
export const processGroup = (pgid: number): number[] => ps(['-g', String(pgid)]);

/** Running (a zombie, exited but not yet reaped, is not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `done` every 100 ms for at most `timeoutMs`; returns whether it came true. */
export async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > end) return false;
    await sleep(100);
  }
  return true;
}

/** A child's stdout and stderr as they arrive, and its exit code. */
export function collect(child: ChildProcess): { out: () => string; err: () => string; exited: Promise<number | null> } {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { out: () => out, err: () => err, exited };
}

/** SIGKILL whatever of `pids` still runs (a test's last resort: nothing may be left behind). */
export function killLeft(pids: readonly number[]): number[] {
  const left = pids.filter(alive);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return left;
}
