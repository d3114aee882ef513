/**
 * `rocelab up` survives its members: a node's process killed with SIGKILL is started again and
 * rejoins the running pod; the audit at the end names the node, when it was lost and when it
 * came back, and conservation holds.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CLI, ROOT } from './harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function memberPid(parent: number, member: string): number | null {
  let pids: number[] = [];
  try {
    pids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0);
  } catch {
    return null;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`ROCELAB_MEMBER=${member}`)) return pid;
    } catch {
      // gone
    }
  }
  return null;
}

test('rocelab up: a member killed with SIGKILL is started again, rejoins, and the audit says so', { timeout: 240_000 }, async () => {
  const up = spawn(process.execPath, [CLI, 'up', 'test/fixtures/tree.yaml', '--dilation', '3000', '--duration', '6ms'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  up.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  up.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 600 && !out.includes('Ctrl-C stops the pod.'); i++) await sleep(100);
  assert.ok(out.includes('Ctrl-C stops the pod.'), `rocelab up did not start:\n${out}\n${err}`);
  await sleep(2_000);
  const pid = memberPid(up.pid!, 'sw2');
  assert.ok(pid !== null, 'sw2 runs as a process of its own');
  process.kill(pid, 'SIGKILL');
  const code = await exited;
  assert.match(err, /rocelab: member sw2 \(sw2\) died \(SIGKILL\); the pod carries on without it, and it is started again to rejoin/);
  assert.match(out, /^node sw2 lost at [\d.]+ ms, restarted at [\d.]+ ms$/m, `${out}\n${err}`);
  assert.match(out, /conservation holds/);
  assert.equal(code, 1, 'a loss no fault asked for');
});
