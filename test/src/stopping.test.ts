/**
 * Every way a local pod ends removes its private directory (the pod token, pod.json, the link
 * sockets) and leaves no process behind (issue 22): `rocelab run --mode procs` interrupted by
 * SIGINT (to the whole process group, as a terminal's Ctrl-C) or SIGTERM (to the CLI alone);
 * the CLI killed outright, a member stopped with SIGSTOP meanwhile (the janitor); `rocelab down`
 * stopping `rocelab up`; and SIGTERM to a real `npx rocelab up`, which npm does not pass on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, cliAsync, fixture, ROOT } from './harness.js';
import { alive, collect, killLeft, membersAmong, membersOf, processGroup, waitFor, type MemberProcessInfo } from './processes.js';

/** `rocelab run` of the tree pod in procs, long enough to be interrupted; resolves once the pod runs. */
async function runningPod(): Promise<{ cli: ReturnType<typeof spawn>; io: ReturnType<typeof collect>; members: MemberProcessInfo[]; dir: string }> {
  const cli = spawn(process.execPath, [CLI, 'run', fixture('tree.yaml'), '--mode', 'procs', '--duration', '50ms', '--dilation', '3000', '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ROCELAB_LOG_LEVEL: 'info' },
    detached: true, // its own process group, as a terminal's foreground job
  });
  const io = collect(cli);
  assert.ok(await waitFor(() => io.err().includes('"msg":"pod running"'), 60_000), `the pod did not start:\n${io.err().slice(-2000)}`);
  const members = membersOf(cli.pid!);
  assert.equal(members.length, 6, 'one process per node');
  const dir = members[0]!.dir!;
  assert.ok(existsSync(join(dir, 'pod-token')), 'the private directory holds the token');
  return { cli, io, members, dir };
}

for (const [signal, to] of [['SIGINT', 'the whole process group'], ['SIGTERM', 'the CLI alone']] as const) {
  test(`rocelab run --mode procs: ${signal} to ${to} stops every member, removes the private directory, and exits 1`, { timeout: 120_000 }, async () => {
    const { cli, io, members, dir } = await runningPod();
    try {
      process.kill(signal === 'SIGINT' ? -cli.pid! : cli.pid!, signal);
      assert.equal(await io.exited, 1, io.err().slice(-2000));
      assert.match(io.err(), new RegExp(`rocelab run: interrupted by ${signal}: the pod's processes were stopped and its private files removed`));
      assert.equal(existsSync(dir), false, `${dir} is removed`);
      assert.ok(await waitFor(() => !members.some((m) => alive(m.pid)), 10_000), 'no member is left');
    } finally {
      killLeft([cli.pid!, ...members.map((m) => m.pid)]);
    }
  });
}

test('the CLI (and the controller in it) killed outright: the members stop, a stopped one is killed, and the janitor removes the private directory', { timeout: 120_000 }, async () => {
  const { cli, io, members, dir } = await runningPod();
  const stopped = members.find((m) => m.member === 'sw1')!;
  try {
    process.kill(stopped.pid, 'SIGSTOP');
    await sleep(500);
    cli.kill('SIGKILL');
    assert.ok(await waitFor(() => !members.some((m) => alive(m.pid)), 20_000), `members left: ${members.filter((m) => alive(m.pid)).map((m) => m.member).join(', ')}`);
    assert.ok(await waitFor(() => !existsSync(dir), 10_000), `${dir} is removed`);
    await sleep(200);
    for (const m of members.filter((x) => x !== stopped)) assert.match(io.err(), new RegExp(`^rocelab member ${m.member}: the controller at \\S+ is gone`, 'm'), `${m.member} says why it stops`);
  } finally {
    killLeft([cli.pid!, ...members.map((m) => m.pid)]);
  }
});

test('rocelab down stops the pod rocelab up runs, in order: up prints its audit and exits 0, the record, the files and every process are gone', { timeout: 120_000 }, async () => {
  const env = { ...process.env, ROCELAB_STATE_DIR: mkdtempSync(join(tmpdir(), 'rocelab-state-')), ROCELAB_CONTROLLER: '' };
  const up = spawn(process.execPath, [CLI, 'up', 'test/fixtures/tree.yaml', '--dilation', '3000'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const io = collect(up);
  let members: MemberProcessInfo[] = [];
  try {
    assert.ok(await waitFor(() => io.out().includes('Ctrl-C stops the pod.'), 60_000), `rocelab up did not start:\n${io.out()}\n${io.err()}`);
    members = membersOf(up.pid!);
    assert.equal(members.length, 6);
    const dir = members[0]!.dir!;
    assert.ok(existsSync(join(env.ROCELAB_STATE_DIR, `up-${up.pid}.json`)), 'up recorded its pod');
    const down = await cliAsync(['down'], env);
    assert.equal(down.status, 0, down.stderr);
    assert.match(down.stdout, new RegExp(`^stopping pod tree \\(rocelab up, pid ${up.pid}\\) at the end of its current lease…\\npod tree stopped in [\\d.]+ s`, 'm'));
    assert.equal(await io.exited, 0, io.err().slice(-2000));
    assert.match(io.out(), /stopped at [\d.]+ ms virtual; conservation holds; 0 causality violations/);
    assert.match(io.err(), /SIGTERM: stopping the pod at the end of the current lease/);
    assert.equal(existsSync(join(env.ROCELAB_STATE_DIR, `up-${up.pid}.json`)), false, 'the record goes with the pod');
    assert.equal(existsSync(dir), false, 'the private directory goes with the pod');
    assert.ok(await waitFor(() => !members.some((m) => alive(m.pid)), 10_000), 'no member is left');
    const again = await cliAsync(['down'], env);
    assert.equal(again.status, 0);
    assert.match(again.stdout, /^no pod of this user's rocelab up is running \(no live record in \S+\)$/m);
    const wrong = await cliAsync(['down', '--pid', String(up.pid)], env);
    assert.equal(wrong.status, 2, 'a --pid that runs no rocelab up is bad input');
    assert.match(wrong.stderr, /--pid \d+: expected the process of a running rocelab up of this user \(none runs\)/);
  } finally {
    killLeft([up.pid!, ...members.map((m) => m.pid)]);
  }
});

for (const [what, stop] of [
  ['SIGTERM to the npx process (npm signals only its shell)', (pid: number) => process.kill(pid, 'SIGTERM')],
  ["Ctrl-C to its process group (npm's shell may die before the pod has stopped: not a second signal)", (pid: number) => process.kill(-pid, 'SIGINT')],
] as const) {
  test(`a real \`npx rocelab up\`, ${what}: the pod stops in order, every process of it ends, its files and record are gone`, { timeout: 180_000 }, async () => {
    const env = { ...process.env, ROCELAB_STATE_DIR: mkdtempSync(join(tmpdir(), 'rocelab-state-')), ROCELAB_CONTROLLER: '', npm_config_yes: 'true' };
    const npx = spawn('npx', ['rocelab', 'up', 'test/fixtures/tree.yaml', '--dilation', '3000'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const io = collect(npx);
    let group: number[] = [];
    try {
      assert.ok(await waitFor(() => io.out().includes('Ctrl-C stops the pod.'), 120_000), `npx rocelab up did not start:\n${io.out()}\n${io.err()}`);
      group = processGroup(npx.pid!);
      const members = membersAmong(group);
      assert.equal(members.length, 6, 'npm, its shell, rocelab and six members');
      const dir = members[0]!.dir!;
      stop(npx.pid!);
      assert.ok(await waitFor(() => processGroup(npx.pid!).length === 0, 60_000), `still running: ${processGroup(npx.pid!).join(', ')}\n${io.err().slice(-2000)}`);
      assert.match(io.out(), /stopped at [\d.]+ ms virtual; conservation holds/, `the audit, after an orderly stop:\n${io.err().slice(-2000)}`);
      assert.doesNotMatch(io.err(), /again to kill\)\n[\s\S]*again to kill\)/, 'one stop, not two');
      assert.equal(existsSync(dir), false, 'the private directory is removed');
      assert.deepEqual(readdirSync(env.ROCELAB_STATE_DIR).filter((n) => /^up-\d+\.json$/.test(n)), [], 'the record is removed');
    } finally {
      killLeft(group);
    }
  });
}
