import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const JANITOR = new URL('./pod-janitor.js', import.meta.url).href;

const running = (p: ChildProcess) => p.exitCode === null && p.signalCode === null;
const exited = (p: ChildProcess) => (running(p) ? new Promise<void>((r) => p.once('exit', () => r())) : Promise.resolve());

/** A stand-in for rocelab: starts a janitor for `dir`, tells it `pids`, then waits (or says done). */
function owner(dir: string, pids: number[], sayDone: boolean): ChildProcess {
  const code = `const { startJanitor } = await import(${JSON.stringify(JANITOR)});
const j = startJanitor(${JSON.stringify(dir)});
for (const pid of ${JSON.stringify(pids)}) j.watch(pid);
${sayDone ? 'j.done();' : ''}
process.stdout.write('ready\\n');
setInterval(() => undefined, 1000);`;
  return spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
}

const ready = (p: ChildProcess) => new Promise<void>((resolve) => p.stdout!.once('data', () => resolve()));

test('rocelab killed outright: the janitor kills the members it was told of (a stopped one too) and removes the private directory; another process is left alone', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-janitor-test-'));
  writeFileSync(join(dir, 'pod-token'), 'secret\n');
  const member = (env: Record<string, string>) => spawn('sleep', ['60'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const running1 = member({ ROCELAB_LINK_SOCKET_DIR: dir });
  const stopped = member({ ROCELAB_LINK_SOCKET_DIR: dir });
  const stranger = member({ ROCELAB_LINK_SOCKET_DIR: `${dir}-other` });
  stopped.kill('SIGSTOP');
  const rocelab = owner(dir, [running1.pid!, stopped.pid!, stranger.pid!], false);
  await ready(rocelab);
  await sleep(1_000);
  assert.ok(existsSync(dir) && running(running1) && running(stopped), 'nothing happens while rocelab lives');
  rocelab.kill('SIGKILL');
  await Promise.race([Promise.all([exited(running1), exited(stopped)]), sleep(15_000)]);
  for (let i = 0; i < 50 && existsSync(dir); i++) await sleep(100);
  try {
    assert.equal(running(running1), false, 'a running member is killed');
    assert.equal(running(stopped), false, 'a stopped member is killed');
    assert.equal(existsSync(dir), false, 'the private directory is removed');
    assert.equal(running(stranger), true, 'a process of another pod (or a PID used again) is not touched');
  } finally {
    for (const p of [running1, stopped, stranger]) p.kill('SIGKILL');
  }
});

test('rocelab cleaned up itself (done): the janitor leaves at once and touches nothing', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-janitor-test-'));
  const member = spawn('sleep', ['60'], { env: { ...process.env, ROCELAB_LINK_SOCKET_DIR: dir }, stdio: 'ignore' });
  const rocelab = owner(dir, [member.pid!], true);
  await ready(rocelab);
  rocelab.kill('SIGKILL');
  await sleep(1_500);
  try {
    assert.equal(running(member), true);
    assert.equal(existsSync(dir), true);
  } finally {
    member.kill('SIGKILL');
  }
});
