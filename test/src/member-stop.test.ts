/**
 * A member stopped with SIGSTOP (issue 22). Stopped for 30 s, or for 3 minutes, and continued,
 * it is simply waited for — no link is closed, nobody is declared lost — and the run's trace
 * hash is the undisturbed run's. Stopped for good, it is declared hung once it has answered no
 * ping for the hang timeout (here ROCELAB_HANG_TIMEOUT_MS=8000; by default 5 min), killed, and
 * the run goes on without it and exits 1 naming it, leaving no process behind. With nobody to
 * kill it (containers), the run still ends without it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller } from '@rocelab/controller';
import { PodProcesses } from '@rocelab/cli';
import { loadTopologyFile, parseDuration, planMembers } from '@rocelab/topology';
import { pino } from 'pino';
import { CLI, cli, fixture, ROOT } from './harness.js';
import { alive, collect, killLeft, membersOf, waitFor, type MemberProcessInfo } from './processes.js';

/** 6 ms of the tree pod at 2,000 wall s per virtual s: some 12 s of wall time to stop a member in. */
const RUN = ['run', fixture('tree.yaml'), '--duration', '6ms'];

const undisturbed = (() => {
  let hash: string | null = null;
  return (): string => {
    if (hash === null) {
      const r = cli([...RUN, '--json']);
      assert.equal(r.status, 0, r.stderr);
      hash = r.json!.traceHash;
    }
    return hash;
  };
})();

interface Stopped {
  status: number | null;
  stdout: string;
  stderr: string;
  members: MemberProcessInfo[];
  stoppedAtMs: number;
  /** When the CLI said the member hung (ms after the stop), or null. */
  hungAfterMs: number | null;
}

/** Runs the tree pod in procs and stops sw1 once it runs: for `stopMs`, or for good (null). */
async function runStopping(stopMs: number | null, env: Record<string, string> = {}): Promise<Stopped> {
  const child = spawn(process.execPath, [CLI, ...RUN, '--mode', 'procs', '--dilation', '2000', '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ROCELAB_LOG_LEVEL: 'info', ...env },
  });
  const io = collect(child);
  let members: MemberProcessInfo[] = [];
  try {
    assert.ok(await waitFor(() => io.err().includes('"msg":"pod running"'), 60_000), `the pod did not start:\n${io.err().slice(-2000)}`);
    members = membersOf(child.pid!);
    assert.equal(members.length, 6);
    await sleep(1_500); // traffic flows: sw1 holds frames and links carry batches
    const victim = members.find((m) => m.member === 'sw1')!;
    process.kill(victim.pid, 'SIGSTOP');
    const stoppedAtMs = performance.now();
    let hungAfterMs: number | null = null;
    const watchHung = setInterval(() => {
      if (hungAfterMs === null && /member sw1 \(sw1\) hung/.test(io.err())) hungAfterMs = performance.now() - stoppedAtMs;
    }, 100);
    if (stopMs !== null) {
      await sleep(stopMs);
      process.kill(victim.pid, 'SIGCONT');
    }
    const status = await io.exited;
    clearInterval(watchHung);
    return { status, stdout: io.out(), stderr: io.err(), members, stoppedAtMs, hungAfterMs };
  } finally {
    killLeft([child.pid!, ...members.map((m) => m.pid)]);
  }
}

for (const [label, stopMs] of [['30 s', 30_000], ['3 minutes', 180_000]] as const) {
  test(`a member stopped for ${label} and continued is waited for: nothing closes, nobody is lost, the same trace hash as undisturbed`, { timeout: stopMs + 180_000 }, async () => {
    const run = await runStopping(stopMs);
    assert.equal(run.status, 0, run.stderr.slice(-3000));
    const result = JSON.parse(run.stdout) as { traceHash: string; lostNodes: unknown[]; conservation: boolean };
    assert.deepEqual(result.lostNodes, []);
    assert.equal(result.conservation, true);
    for (const sign of ['link closed', 'closing misbehaving link', 'member lost', 'hung', 'is gone']) assert.ok(!run.stderr.includes(sign), `"${sign}" in:\n${run.stderr.slice(-3000)}`);
    assert.equal(result.traceHash, undisturbed(), 'the same run as without the stop');
  });
}

test('a member stopped for good is declared hung after the hang timeout, killed, and the run ends without it: exit 1 naming it, no process left', { timeout: 240_000 }, async () => {
  const HANG_MS = 8_000;
  const run = await runStopping(null, { ROCELAB_HANG_TIMEOUT_MS: String(HANG_MS) });
  assert.equal(run.status, 1, run.stderr.slice(-3000));
  assert.match(run.stderr, /^rocelab: member sw1 \(sw1\) hung: no answer to pings for \d+ s while this end ran on time \(hang timeout 8000 ms\); it is declared lost and its process \d+ is killed \(SIGKILL\)$/m);
  assert.match(run.stderr, /^rocelab run: sw1 was lost at [\d.]+ ms \(its process died\): no fault asked for it, so the run exits 1$/m);
  const result = JSON.parse(run.stdout) as { lostNodes: Array<{ node: string; cause: string }>; conservation: boolean };
  assert.deepEqual(result.lostNodes.map((n) => [n.node, n.cause]), [['sw1', 'lost']]);
  assert.equal(result.conservation, true);
  // Silence is counted from the last answer, at most one 2 s ping before the stop; never early.
  assert.ok(run.hungAfterMs !== null && run.hungAfterMs >= HANG_MS - 2_000, `declared after ${run.hungAfterMs} ms`);
  assert.ok(run.hungAfterMs <= 60_000, `declared within a minute (${run.hungAfterMs} ms)`);
  process.stderr.write(`# hang declared ${Math.round(run.hungAfterMs)} ms after the SIGSTOP (hang timeout ${HANG_MS} ms)\n`);
  assert.deepEqual(run.members.filter((m) => alive(m.pid)).map((m) => m.member), [], 'no member outlives the run');
  // Only sw1's links go down: h3 and h4, which waited on sw2 while sw2 waited on sw1, kept theirs.
  const closed = [...run.stderr.matchAll(/"link":"([^"]+)"[^\n]*"msg":"link closed/g)].map((m) => m[1]!);
  assert.ok(closed.every((link) => link.includes('sw1:')), `links closed: ${closed.join(', ')}`);
});

test('with nobody to kill it (a container), a member stopped for good is still declared lost, and the run ends without it', { timeout: 240_000 }, async () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  const plans = planMembers(pod, null);
  const token = 'member-stop-test-token';
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-member-stop-'));
  writeFileSync(join(dir, 'pod-token'), `${token}\n`, { mode: 0o600 });
  // No onMemberHung: nobody kills the stopped process; neighbours and the controller give up on it.
  const controller = new Controller({ pod, seed: pod.seed, durationPs: parseDuration('6ms'), dilation: 2000, token, expected: plans, mode: 'procs', log: pino({ level: 'silent' }), hangTimeoutMs: 8_000 });
  const { url } = await controller.listen();
  const children = new PodProcesses();
  const saved = process.env.ROCELAB_HANG_TIMEOUT_MS;
  process.env.ROCELAB_HANG_TIMEOUT_MS = '8000'; // the members' own give up on the link and the controller
  let members: MemberProcessInfo[] = [];
  try {
    await children.start(plans, { topologyFile: fixture('tree.yaml'), linkSocketDir: dir, controllerUrl: url, tokenFile: join(dir, 'pod-token'), metricsHost: 'off', logLevel: 'warn' });
    await Promise.race([controller.running, children.failure]);
    children.survive();
    members = membersOf(process.pid);
    assert.equal(members.length, 6);
    await sleep(1_500);
    process.kill(members.find((m) => m.member === 'sw1')!.pid, 'SIGSTOP');
    const result = await controller.result;
    assert.deepEqual(result.lostNodes.map((n) => [n.node, n.cause]), [['sw1', 'lost']]);
    assert.equal(result.conservation, true);
  } finally {
    if (saved === undefined) delete process.env.ROCELAB_HANG_TIMEOUT_MS;
    else process.env.ROCELAB_HANG_TIMEOUT_MS = saved;
    await children.finish(5_000); // the stopped one is killed here, as a container engine would
    await controller.close();
    killLeft(members.map((m) => m.pid));
  }
});

test('a bad ROCELAB_HANG_TIMEOUT_MS is bad input: rocelab run and up exit 2 before anything starts', () => {
  for (const args of [[...RUN, '--mode', 'procs'], ['up', fixture('tree.yaml'), '--duration', '1ms']]) {
    const r = cli(args, { ROCELAB_HANG_TIMEOUT_MS: 'soon' });
    assert.equal(r.status, 2, `${args[0]}: ${r.stderr}`);
    assert.match(r.stderr, /^ROCELAB_HANG_TIMEOUT_MS="soon": expected a whole number of milliseconds, at least 4000 \(default 300000: 5 min\)$/m);
  }
});
