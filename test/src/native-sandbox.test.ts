/**
 * What a topology's native program can reach (issue 25, docs/native-programs.md): a hostile
 * program of our own (packages/native/c/test/hostile-native.c) tries to read the pod token, find
 * it in other processes' environments, connect to a listener on 127.0.0.1, write into the
 * repository and kill its member. In bwrap every attempt fails while the pod runs on and
 * ibv_rc_pingpong completes beside it; run unsandboxed (the user's opt-out) the same attempts
 * succeed, which shows they are real.
 *
 * Skips without bwrap (or user namespaces), the device or ibv_rc_pingpong, unless
 * ROCELAB_REQUIRE_NATIVE=1 (CI) makes that a failure.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { nativeBuilt, nativeDist, programSandbox, UNSANDBOXED_ENV } from '@rocelab/native';
import type { ProgramReport } from '@rocelab/results';
import type { RunResult } from '@rocelab/runtime';
import { cliAsync, ROOT } from './harness.js';

const HOSTILE = join(nativeDist(), 'test', 'hostile-native');

function have(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const sandbox = programSandbox({ ...process.env, [UNSANDBOXED_ENV]: undefined });
const missing = [
  ...(nativeBuilt() && existsSync(HOSTILE) ? [] : ['the rocelab0 device and its test programs (npm run build with gcc, libibverbs-dev, librdmacm-dev, libcapstone-dev)']),
  ...(have('ibv_rc_pingpong') ? [] : ['ibv_rc_pingpong (ibverbs-utils)']),
  ...(sandbox.kind === 'bwrap' ? [] : [`bubblewrap (${sandbox.kind === 'unavailable' ? sandbox.why : 'none'})`]),
];
const skip = missing.length > 0 && process.env['ROCELAB_REQUIRE_NATIVE'] !== '1' ? `needs ${missing.join(', ')}` : false;
if (missing.length > 0 && !skip) test('bubblewrap, the rocelab0 device and ibv_rc_pingpong are installed (ROCELAB_REQUIRE_NATIVE=1)', () => assert.fail(`missing: ${missing.join(', ')}`));

/** A listener outside the pod that counts who connects. */
async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server, port: address.port, connections: () => n };
}

/** One ToR, three hosts: h1 and h2 run `pingpong` (when asked), h3 the hostile program. */
function pod(dir: string, hostile: string[], pingpong: boolean): string {
  const pp = (args: string[]) => (pingpong ? `, programs: [{run: ${JSON.stringify(['ibv_rc_pingpong', '-g', '0', '-n', '20', ...args])}}]` : '');
  const file = join(dir, 'pod.yaml');
  writeFileSync(
    file,
    `name: sandbox
seed: 1
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1${pp([])}}
  - {name: h2, role: host, ip: 10.0.1.2${pp(['{h1}'])}}
  - {name: h3, role: host, ip: 10.0.1.3, programs: [{run: ${JSON.stringify(hostile)}}]}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
  - {a: h3:p0, b: sw1:p3}
`,
  );
  return file;
}

const program = (r: RunResult, node: string): ProgramReport => r.programs.find((p) => p.node === node)!;

/** Each attempt's verdicts (`ATTEMPT: blocked|REACHED: …`), by attempt. */
function attempts(out: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of out.split('\n')) {
    const hit = /^([a-z0-9-]+): (blocked|REACHED): (.*)$/.exec(line);
    if (hit === null) continue;
    m.set(hit[1]!, [...(m.get(hit[1]!) ?? []), `${hit[2]}: ${hit[3]}`]);
  }
  return m;
}

/** A pod run as local processes (the token lives in a file there), its temporary directory ours: where the hostile program looks for it. */
async function run(hostileArgs: (tmp: string) => string[], pingpong: boolean, env: Record<string, string> = {}): Promise<{ result: RunResult; status: number; stderr: string; connections: number; tmp: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-sandbox-'));
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const l = await listener();
  try {
    const file = pod(dir, [HOSTILE, ...hostileArgs(tmp), '--port', String(l.port), '--write', ROOT], pingpong);
    const r = await cliAsync(['run', file, '--duration', '20ms', '--mode', 'procs', '--json'], { TMPDIR: tmp, ...env }, 300_000);
    assert.ok(r.json !== null, `${r.stdout}\n${r.stderr}`);
    return { result: r.json, status: r.status, stderr: r.stderr, connections: l.connections(), tmp };
  } finally {
    l.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const WAS_HERE = join(ROOT, 'hostile-native-was-here');

test('in its sandbox a hostile program reaches no token, no outside socket, no repository file and no member, while the pod and ibv_rc_pingpong run on', { skip }, async () => {
  rmSync(WAS_HERE, { force: true });
  const { result, status, stderr, connections } = await run((tmp) => ['--tmp', tmp], true);
  assert.equal(status, 0, stderr);
  const hostile = program(result, 'h3');
  assert.equal(hostile.status, 'exited', `${hostile.stdout}\n${hostile.stderr}\n${hostile.error}`);
  assert.equal(hostile.exitCode, 0, hostile.stderr);
  const seen = attempts(hostile.stdout);
  for (const attempt of ['token', 'own-environ', 'proc1-environ', 'procs-environ', 'connect', 'write', 'kill']) {
    const verdicts = seen.get(attempt) ?? [];
    assert.ok(verdicts.length > 0, `${attempt}: expected an attempt, got none in:\n${hostile.stdout}`);
    for (const v of verdicts) assert.match(v, /^blocked: /, `${attempt}: ${v}`);
  }
  assert.match(hostile.stdout, /^reached 0$/m);
  assert.match(seen.get('token')!.join('\n'), /no rocelab-token-\* in /, 'the member\'s temporary directory is empty inside, though the pod\'s directory holding it is its cwd');
  assert.match(seen.get('connect')![0]!, /Connection refused|Network is unreachable/, 'no network but its own loopback');
  assert.match(seen.get('write')![0]!, /Read-only file system/);
  assert.match(seen.get('kill')![0]!, /no ancestor of it but launchers and bwrap is visible/);
  const env = /^env:(.*)$/m.exec(hostile.stdout)?.[1]?.trim().split(' ').sort();
  assert.deepEqual(env, ['LD_LIBRARY_PATH', 'LD_PRELOAD', 'ROCELAB_PID', 'ROCELAB_RANDOM_SEED'], "the device's variables (librocelab takes ROCELAB_CHANNEL_FD out once it holds the channel) and nothing of the member's");
  if (process.env['ROCELAB_SHOW_HOSTILE'] === '1') console.log(hostile.stdout);
  assert.equal(connections, 0, 'nothing connected to the listener outside the pod');
  assert.equal(existsSync(WAS_HERE), false, 'no file written into the repository');
  // The pod ran on: every member to the end, the audit held, ibv_rc_pingpong completed in its own sandboxes.
  assert.equal(result.conservation, true);
  assert.deepEqual(result.lostNodes ?? [], []);
  for (const node of ['h1', 'h2']) {
    const p = program(result, node);
    assert.equal(p.exitCode, 0, `${node}: ${p.stderr}`);
    assert.match(p.stdout, /20 iters in [\d.]+ seconds = [\d.]+ usec\/iter/);
  }
  assert.doesNotMatch(stderr, /warning/);
});

test('unsandboxed (ROCELAB_PROGRAMS_UNSANDBOXED=1, with a warning) the same attempts reach the token, the listener, the repository and the member: they are real', { skip }, async () => {
  rmSync(WAS_HERE, { force: true });
  try {
    const { result, stderr, connections } = await run((tmp) => ['--tmp', tmp, '--signal', '0'], false, { [UNSANDBOXED_ENV]: '1' });
    const hostile = program(result, 'h3');
    assert.equal(hostile.exitCode, 0, hostile.stderr);
    const seen = attempts(hostile.stdout);
    const reached = (attempt: string) => (seen.get(attempt) ?? []).some((v) => v.startsWith('REACHED'));
    for (const attempt of ['token', 'procs-environ', 'connect', 'write', 'kill']) assert.ok(reached(attempt), `${attempt}: expected it to succeed unsandboxed, got:\n${hostile.stdout}`);
    // The environment stays the program's own even then: the member's is never handed down.
    assert.ok(!reached('own-environ'), hostile.stdout);
    assert.equal(connections, 1);
    assert.equal(existsSync(WAS_HERE), true);
    assert.equal(stderr.split(`${UNSANDBOXED_ENV}=1: native programs run without the sandbox`).length - 1, 1, `the warning once:\n${stderr}`);
  } finally {
    rmSync(WAS_HERE, { force: true });
  }
});

test('without a working bwrap, a pod with programs is refused before it starts: what is missing, how to install it, the opt-out; exit 2', { skip: skip === false ? false : skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-sandbox-'));
  try {
    const file = pod(dir, ['ibv_devinfo'], false);
    const r = await cliAsync(['run', file, '--duration', '1ms', '--json'], { ROCELAB_BWRAP: join(dir, 'no-bwrap') }, 60_000);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /rocelab run: native programs run inside a bubblewrap sandbox, but bwrap is not installed \(not on PATH, nor at \/usr\/bin\/bwrap, nor ROCELAB_BWRAP=.*no-bwrap\): install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap\).*ROCELAB_PROGRAMS_UNSANDBOXED=1/);
    assert.equal(readdirSync(dir).length, 1, 'nothing ran');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
