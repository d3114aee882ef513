/**
 * Where `rocelab up` leaves the address of the pod it runs, so that `rocelab status` (and a
 * newcomer's `npx rocelab status` after `npm start`) finds the controller without options:
 * the local pod's controller listens on a port the system picks. One record per user, in a
 * private directory ($XDG_RUNTIME_DIR/rocelab, else the temp directory's rocelab-UID), holding
 * the controller URL and the process that serves it; a record whose process is gone is stale.
 * The pod token is not in it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PodRecord {
  pod: string;
  controller: string;
  pid: number;
  startedAt: string;
}

/** The record's path; ROCELAB_STATE_DIR overrides the directory (tests). */
export function podRecordPath(): string {
  const dir = process.env.ROCELAB_STATE_DIR ?? (process.env.XDG_RUNTIME_DIR ? join(process.env.XDG_RUNTIME_DIR, 'rocelab') : join(tmpdir(), `rocelab-${process.getuid?.() ?? 'user'}`));
  return join(dir, 'up.json');
}

export function writePodRecord(record: PodRecord): void {
  const path = podRecordPath();
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** The record of a pod whose `rocelab up` still runs, or null. */
export function livePodRecord(): PodRecord | null {
  let record: PodRecord;
  try {
    record = JSON.parse(readFileSync(podRecordPath(), 'utf8')) as PodRecord;
  } catch {
    return null;
  }
  return typeof record.controller === 'string' && Number.isInteger(record.pid) && alive(record.pid) ? record : null;
}

/** Removes the record if it is this process's (another `rocelab up` may have replaced it). */
export function clearPodRecord(pid = process.pid): void {
  try {
    const record = JSON.parse(readFileSync(podRecordPath(), 'utf8')) as PodRecord;
    if (record.pid === pid) rmSync(podRecordPath(), { force: true });
  } catch {
    // no record, or not a readable one: nothing of ours to remove
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
