import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { choosePod, clearPodRecord, livePodRecords, podRecordPath, writePodRecord, type PodRecord } from './pod-record.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-records-'));
process.env.ROCELAB_STATE_DIR = dir;
after(() => rmSync(dir, { recursive: true, force: true }));

/** A process id that is certainly gone: a child that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid;

test('each rocelab up keeps its own record; the live ones are listed oldest first, stale ones removed, foreign files left alone', () => {
  const mine: PodRecord = { pod: 'tree', controller: 'http://127.0.0.1:40001', pid: process.pid, startedAt: '2026-01-01T10:00:05.000Z' };
  const parent: PodRecord = { pod: 'default', controller: 'http://127.0.0.1:40002', pid: process.ppid, startedAt: '2026-01-01T10:00:01.000Z' };
  const gone: PodRecord = { pod: 'old', controller: 'http://127.0.0.1:40003', pid: deadPid(), startedAt: '2026-01-01T09:00:00.000Z' };
  for (const r of [mine, parent, gone]) writePodRecord(r);
  writeFileSync(join(dir, 'up-1.json'), 'not json');
  writeFileSync(join(dir, 'notes.txt'), 'not a record');
  assert.deepEqual(livePodRecords(), [parent, mine]);
  assert.equal(existsSync(podRecordPath(gone.pid)), false, 'a stale record is removed when seen');
  assert.ok(existsSync(join(dir, 'up-1.json')) && existsSync(join(dir, 'notes.txt')), 'what is not a record of a live pod is left alone');
  clearPodRecord();
  assert.deepEqual(livePodRecords(), [parent], 'a pod that stops removes its own record only');
  clearPodRecord(process.ppid);
  assert.deepEqual(readdirSync(dir).sort(), ['notes.txt', 'up-1.json']);
});

test('with several pods, status shows the one started last and says which it found and how to choose (pure)', () => {
  const a: PodRecord = { pod: 'default', controller: 'http://127.0.0.1:40002', pid: 101, startedAt: '2026-01-01T10:00:01.000Z' };
  const b: PodRecord = { pod: 'tree', controller: 'http://127.0.0.1:40001', pid: 202, startedAt: '2026-01-01T10:00:05.000Z' };
  assert.equal(choosePod([]), null);
  assert.deepEqual(choosePod([a]), { chosen: a, note: null }, 'one pod: as before, no note');
  const two = choosePod([a, b])!;
  assert.equal(two.chosen, b);
  assert.equal(
    two.note,
    [
      'rocelab status: 2 pods run under rocelab up for this user; this is tree, the one started last (*):',
      '    default  http://127.0.0.1:40002  (rocelab up, process 101, since 2026-01-01T10:00:01.000Z)',
      '  * tree  http://127.0.0.1:40001  (rocelab up, process 202, since 2026-01-01T10:00:05.000Z)',
      'choose one with --controller URL (or ROCELAB_CONTROLLER=URL)',
      '',
    ].join('\n'),
  );
});
