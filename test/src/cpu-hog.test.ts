/**
 * A loaded machine slows the pod; it never kills it (issue 22). The default pod runs as one
 * process per node (`rocelab up`) while an artificial CPU hog — `stress-ng --cpu 24` (Debian's
 * stress-ng; .ci/run installs it), else 24 busy Node processes, bounded in time either way —
 * keeps the two cores' run queue some 40 deep, as on the machine of the report, and live faults
 * are injected through the fault API. The first live fault once compiled the fault schema on
 * the controller's event loop (0.6 s of CPU: seconds of wall time here), every member's pings to
 * it went unanswered for 6 s, and the whole pod died. Now nobody dies, nothing closes, the run
 * ends and its fault log, replayed on an unloaded machine (one process), gives the same trace
 * hash.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, cli, ROOT } from './harness.js';
import { collect, killLeft, membersOf, waitFor } from './processes.js';

const TOKEN = 'cpu-hog-test-token';
const HOGS = 24;
/** The hog's bound, whatever happens to this test. */
const HOG_SECONDS = 240;

/** Starts the hog: stress-ng when installed, else busy Node processes. */
function startHog(): { kind: string; procs: ChildProcess[] } {
  if (spawnSync('stress-ng', ['--version']).status === 0) {
    return { kind: `stress-ng --cpu ${HOGS}`, procs: [spawn('stress-ng', ['--cpu', String(HOGS), '--timeout', `${HOG_SECONDS}s`, '--quiet'], { stdio: 'ignore' })] };
  }
  const busy = `const end = Date.now() + ${HOG_SECONDS * 1000}; while (Date.now() < end);`;
  return { kind: `${HOGS} busy Node processes`, procs: Array.from({ length: HOGS }, () => spawn(process.execPath, ['-e', busy], { stdio: 'ignore' })) };
}

async function inject(base: string, body: Record<string, unknown>): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${base}/faults`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
  return { status: res.status, ms: Math.round(performance.now() - t0) };
}

test('the default pod in procs under a CPU hog takes live faults and survives, with the trace hash of its unloaded replay', { timeout: 600_000 }, async () => {
  const log = join(mkdtempSync(join(tmpdir(), 'rocelab-hog-')), 'faults.json');
  const env = { ...process.env, ROCELAB_POD_TOKEN: TOKEN, ROCELAB_STATE_DIR: mkdtempSync(join(tmpdir(), 'rocelab-state-')), ROCELAB_CONTROLLER: '' };
  // The pace of the report (fixed): a pace `up` measured under the hog would hide what the hog does to it.
  const up = spawn(process.execPath, [CLI, 'up', 'deploy/pods/default.yaml', '--duration', '0.5ms', '--dilation', '10000', '--fault-log', log], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const io = collect(up);
  let hog: { kind: string; procs: ChildProcess[] } | null = null;
  const pids: number[] = [];
  try {
    assert.ok(await waitFor(() => io.out().includes('Ctrl-C stops the pod.'), 120_000), `rocelab up did not start:\n${io.out()}\n${io.err()}`);
    pids.push(...membersOf(up.pid!).map((m) => m.pid));
    assert.equal(pids.length, 26);
    const base = /^controller\s+(http:\/\/127\.0\.0\.1:\d+)\/status/m.exec(io.out())![1]!;
    hog = startHog();
    const loadedAt = performance.now();
    await sleep(3_000);
    const faults = [
      { kind: 'nicPauseStorm', node: 'h4' },
      { kind: 'loss', link: 'h1:p0', rate: 0.05, at: '+50us' },
      { kind: 'linkDown', link: 'tor3:p1', at: '+100us', for: '200us' },
    ];
    const calls: Array<{ status: number; ms: number }> = [];
    for (const f of faults) calls.push(await inject(base, f));
    assert.deepEqual(calls.map((c) => c.status), [201, 201, 201], JSON.stringify(calls));
    const code = await io.exited;
    const loadedS = ((performance.now() - loadedAt) / 1000).toFixed(1);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    for (const p of hog.procs) p.kill('SIGKILL');
    process.stderr.write(`# ${hog.kind}: ${loadedS} s of the run under it (load average ${load} at the end); fault API calls took ${calls.map((c) => `${c.ms} ms`).join(', ')}\n`);
    assert.equal(code, 0, `${io.out().slice(-2000)}\n${io.err().slice(-4000)}`);
    for (const sign of ['died', 'hung', 'is gone', 'link closed', 'member lost']) assert.ok(!io.err().includes(sign), `"${sign}" in:\n${io.err().slice(-4000)}`);
    assert.match(io.out(), /stopped at 0\.500 ms virtual; conservation holds; 0 causality violations/);
    const written = JSON.parse(readFileSync(log, 'utf8')) as { seed: number; traceHash: string; faults: Array<{ kind: string; source: string }> };
    assert.deepEqual(written.faults.filter((f) => f.source === 'live').map((f) => f.kind), ['nicPauseStorm', 'loss', 'linkDown']);
    // The same run, unloaded, in one process.
    const replay = cli(['run', 'deploy/pods/default.yaml', '--duration', '0.5ms', '--seed', String(written.seed), '--faults', log, '--json'], {}, 300_000);
    assert.equal(replay.status, 0, replay.stderr);
    assert.equal(replay.json!.traceHash, written.traceHash, 'the loaded live run and its unloaded replay are one run');
  } finally {
    for (const p of hog?.procs ?? []) p.kill('SIGKILL');
    killLeft([up.pid!, ...pids]);
  }
});
