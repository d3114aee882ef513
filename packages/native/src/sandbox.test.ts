import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { nativeBuilt, nativeDist } from './index.js';
import { ProgramChannel } from './channel.js';
import { RL } from './proto.js';
import { programEnvironment, programSandbox, reservedEnvName, sandboxArgs, sandboxHidden, UNSANDBOXED_ENV } from './sandbox.js';

const plan = { argv: ['/d/bin/rocelab-launch', 'prog'], cwd: '/tmp/pods/a', cover: ['/tmp', '/run'], home: '/home/u', hide: ['/srv/rocelab-token-x'], reveal: ['/d', '/tmp/pods/a'], env: { PATH: '/usr/bin', HOME: '/home/u' } };

test('bwrap arguments: covers holding a reveal before it, the others after, the pod secrets last; every namespace, no capability, no inherited environment', () => {
  const args = sandboxArgs(plan);
  const at = (...xs: string[]) => args.findIndex((_, i) => xs.every((x, k) => args[i + k] === x));
  assert.deepEqual(args.slice(0, 7), ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
  assert.ok(at('--tmpfs', '/tmp') < at('--ro-bind', '/tmp/pods/a', '/tmp/pods/a'), '/tmp covered, then the cwd inside it revealed');
  assert.ok(at('--ro-bind', '/tmp/pods/a', '/tmp/pods/a') < at('--tmpfs', '/run'), '/run holds no reveal: covered after them');
  assert.ok(at('--ro-bind', '/d', '/d') < at('--tmpfs', '/home/u'));
  assert.equal(at('--tmpfs', '/srv/rocelab-token-x'), args.indexOf('--unshare-user') - 2, 'the secrets last of the mounts');
  for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv']) assert.ok(args.includes(flag), flag);
  assert.ok(at('--cap-drop', 'ALL') >= 0);
  assert.ok(at('--chdir', '/tmp/pods/a') >= 0);
  assert.ok(at('--setenv', 'HOME', '/home/u') > args.indexOf('--clearenv'));
  assert.deepEqual(args.slice(-3), ['--', '/d/bin/rocelab-launch', 'prog']);
});

test('a program environment: fixed locale, zone and terminal, the topology, the channel; nothing else of the member', () => {
  const env = programEnvironment({ memberEnv: { PATH: '/p', HOME: '/root', ROCELAB_POD_TOKEN_FILE: '/tmp/t/pod-token', SECRET: 'x' }, home: '/root', env: { FOO: 'bar', TZ: 'Europe/Paris', ROCELAB_PID: '1000' }, channel: { ROCELAB_CHANNEL_FD: '3' } });
  assert.deepEqual(env, { PATH: '/p', HOME: '/root', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'dumb', TZ: 'Europe/Paris', FOO: 'bar', ROCELAB_PID: '1000', ROCELAB_CHANNEL_FD: '3' });
  assert.equal(programEnvironment({ memberEnv: {}, home: '/h', env: {}, channel: {} })['PATH'], '/usr/local/bin:/usr/bin:/bin');
  assert.throws(() => programEnvironment({ memberEnv: {}, home: '/h', env: { LD_PRELOAD: 'x' }, channel: {} }), /LD_PRELOAD is reserved/);
  for (const name of ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'ROCELAB_X']) assert.ok(reservedEnvName(name), name);
  assert.ok(!reservedEnvName('LD_BIND_NOW'));
});

test("the pod's private directories from a member's environment", () => {
  assert.deepEqual(sandboxHidden({ ROCELAB_POD_TOKEN_FILE: '/tmp/rocelab-token-a/pod-token', ROCELAB_LINK_SOCKET_DIR: '/tmp/rocelab-token-a', ROCELAB_POD_JSON: '/var/x/pod.json' }), ['/tmp/rocelab-token-a', '/var/x']);
  assert.deepEqual(sandboxHidden({}), []);
});

test('without a sandbox a program never starts: it fails with what is missing and the way out', { skip: nativeBuilt() ? false : 'the device is not built' }, async () => {
  const ch = new ProgramChannel({ argv: ['/bin/true'], sandbox: { kind: 'unavailable', why: 'bwrap is not installed' } });
  assert.equal(ch.pid, undefined);
  assert.equal(ch.next(1000), null);
  assert.match(ch.exitStatus()?.error ?? '', /^native programs run inside a bubblewrap sandbox, but bwrap is not installed: install bubblewrap .* set ROCELAB_PROGRAMS_UNSANDBOXED=1/);
  assert.match((await ch.exited).error ?? '', /bubblewrap/);
  ch.kill();
});

const sandbox = programSandbox({ ...process.env, [UNSANDBOXED_ENV]: undefined });
const PROBE = join(nativeDist(), 'test', 'channel-probe');

/** Wall time from start to the program's first request (its HELLO), the median of `n`. */
function startMs(kind: 'bwrap' | 'none', n: number): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const ch = new ProgramChannel({ argv: [PROBE, 'basic'], sandbox: kind === 'bwrap' ? sandbox : { kind: 'none' } });
    const r = ch.next(10_000);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    assert.equal(r?.type, RL.HELLO);
    ch.kill();
    ch.close();
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

test('what the sandbox costs at a program start (a diagnostic: wall time decides nothing)', { skip: nativeBuilt() && sandbox.kind === 'bwrap' ? false : 'needs the device and bwrap' }, (t) => {
  const bare = startMs('none', 15);
  const boxed = startMs('bwrap', 15);
  t.diagnostic(`start to HELLO, median of 15: ${bare.toFixed(1)} ms unsandboxed, ${boxed.toFixed(1)} ms in bwrap (+${(boxed - bare).toFixed(1)} ms)`);
});

test('a secret under a cover nothing uncovers gets no mount of its own; one a reveal could expose does', () => {
  const args = sandboxArgs({ ...plan, cover: ['/tmp', '/tmp/pods/a/tmp'], hide: ['/tmp/pods/a/tmp/rocelab-token-y', '/tmp/rocelab-token-z', '/tmp/pods/a/rocelab-token-w', '/var/secret'] });
  const tmpfs = args.flatMap((a, i) => (a === '--tmpfs' ? [args[i + 1]] : []));
  assert.deepEqual(tmpfs, ['/tmp', '/home/u', '/tmp/pods/a/tmp', '/tmp/pods/a/rocelab-token-w', '/var/secret']);
});
