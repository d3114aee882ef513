/**
 * The controller dies (`rocelab run --mode procs` hosts it: kill -9 of the CLI): every member
 * notices at once (its control connection closes; a heartbeat covers a peer gone silent),
 * stops its engine, says so in one line and exits non-zero — no orphan is left.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { CLI, ROOT, fixture } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function memberPids(parent: number): Map<number, string> {
  const out = new Map<number, string>();
  let pids: number[] = [];
  try {
    pids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0);
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const id = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith('ROCELAB_MEMBER='));
      if (id !== undefined) out.set(pid, id.slice('ROCELAB_MEMBER='.length));
    } catch {
      // gone
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('killing the controller ends every member within 10 s, each with one clear line', { timeout: 120_000 }, async () => {
  const cli = spawn(process.execPath, [CLI, 'run', fixture('tree.yaml'), '--mode', 'procs', '--duration', '50ms', '--dilation', '3000', '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ROCELAB_LOG_LEVEL: 'info' },
  });
  let stderr = '';
  cli.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  // Running: every member joined and the first lease went out.
  for (let i = 0; i < 600 && !stderr.includes('"msg":"pod running"'); i++) await sleep(100);
  const members = memberPids(cli.pid!);
  assert.equal(members.size, 6, `six members run:\n${stderr.slice(-2000)}`);
  await sleep(1_000);
  const killedAt = performance.now();
  cli.kill('SIGKILL');
  for (let i = 0; i < 100 && [...members.keys()].some(alive); i++) await sleep(100);
  const tookMs = performance.now() - killedAt;
  const left = [...members].filter(([pid]) => alive(pid));
  for (const [pid] of left) process.kill(pid, 'SIGKILL');
  assert.deepEqual(left.map(([, id]) => id), [], `members still running ${Math.round(tookMs)} ms after the controller died`);
  assert.ok(tookMs < 10_000, `ended within 10 s (${Math.round(tookMs)} ms)`);
  await sleep(200);
  for (const id of members.values()) {
    assert.match(stderr, new RegExp(`^rocelab member ${id}: the controller at ws://127\\.0\\.0\\.1:\\d+/control is gone \\(\\d+: .*\\); without it the pod cannot go on; stopping$`, 'm'), `${id}'s line in:\n${stderr}`);
  }
});
