/**
 * Where `rocelab up` leaves the address of the pod it runs, so that `rocelab status` (and a
 * newcomer's `npx rocelab status` after `npm start`) finds the controller without options:
 * the local pod's controller listens on a port the system picks. One record per `rocelab up`
 * process (`up-PID.json`: two pods of one user each keep theirs), in a private directory
 * ($XDG_RUNTIME_DIR/rocelab, else the temp directory's rocelab-UID), holding the controller URL
 * and the process that serves it; a record whose process is gone is stale, and removed when
 * seen. The pod token is not in it.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputFileError, readInputFile } from '@rocelab/topology';

export interface PodRecord {
  pod: string;
  controller: string;
  pid: number;
  startedAt: string;
}

/** A record is a line of JSON; anything bigger in that directory is not one. */
const MAX_RECORD_BYTES = 64 * 1024;
const RECORD = /^up-(\d+)\.json$/;

/** The records' directory; ROCELAB_STATE_DIR overrides it (tests). */
export function podRecordDir(): string {
  return process.env.ROCELAB_STATE_DIR ?? (process.env.XDG_RUNTIME_DIR ? join(process.env.XDG_RUNTIME_DIR, 'rocelab') : join(tmpdir(), `rocelab-${process.getuid?.() ?? 'user'}`));
}

/** The record of the `rocelab up` of process `pid`. */
export function podRecordPath(pid = process.pid): string {
  return join(podRecordDir(), `up-${pid}.json`);
}

export function writePodRecord(record: PodRecord): void {
  mkdirSync(podRecordDir(), { recursive: true, mode: 0o700 });
  writeFileSync(podRecordPath(record.pid), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** The records of pods whose `rocelab up` still runs, oldest first; stale ones are removed. */
export function livePodRecords(): PodRecord[] {
  let names: string[];
  try {
    names = readdirSync(podRecordDir());
  } catch {
    return [];
  }
  const live: PodRecord[] = [];
  for (const name of names) {
    const m = RECORD.exec(name);
    if (m === null) continue;
    const record = readRecord(join(podRecordDir(), name));
    if (record === null || record.pid !== Number(m[1])) continue;
    if (alive(record.pid)) live.push(record);
    else rmSync(join(podRecordDir(), name), { force: true });
  }
  return live.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.pid - b.pid);
}

/** Removes this process's record. */
export function clearPodRecord(pid = process.pid): void {
  rmSync(podRecordPath(pid), { force: true });
}

/**
 * Which of several live pods `rocelab status` shows without options — the one started last —
 * and, when there are several, the note that lists them all and says how to choose (stderr,
 * so the status itself reads the same). Pure.
 */
export function choosePod(records: readonly PodRecord[]): { chosen: PodRecord; note: string | null } | null {
  const chosen = records[records.length - 1];
  if (chosen === undefined) return null;
  if (records.length === 1) return { chosen, note: null };
  const lines = records.map((r) => `  ${r === chosen ? '*' : ' '} ${r.pod}  ${r.controller}  (rocelab up, process ${r.pid}, since ${r.startedAt})`);
  return {
    chosen,
    note: `rocelab status: ${records.length} pods run under rocelab up for this user; this is ${chosen.pod}, the one started last (*):\n${lines.join('\n')}\nchoose one with --controller URL (or ROCELAB_CONTROLLER=URL)\n`,
  };
}

function readRecord(path: string): PodRecord | null {
  try {
    const record = JSON.parse(readInputFile(path, 'pod record', MAX_RECORD_BYTES)) as Partial<PodRecord> | null;
    if (record === null || typeof record !== 'object' || typeof record.controller !== 'string' || typeof record.pod !== 'string' || !Number.isInteger(record.pid)) return null;
    return { pod: record.pod, controller: record.controller, pid: record.pid!, startedAt: typeof record.startedAt === 'string' ? record.startedAt : '' };
  } catch (err) {
    if (err instanceof InputFileError || err instanceof SyntaxError) return null; // not a record of ours: left alone
    throw err;
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
