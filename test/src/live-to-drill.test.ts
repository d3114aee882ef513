/**
 * From a live session to a drill (issue 24): `rocelab up` (the default pod, one process per
 * node) takes two faults through the fault API, both cleared through it; `rocelab status` lists
 * them while they are in force; the pod is stopped (`rocelab down`), its fault log exported as a
 * drill, and `rocelab drill run` of that drill gives the live session's trace hash — a live clear
 * and a drill's `for` are one fault to the engine.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, cli, cliAsync, ROOT } from './harness.js';
import { collect, killLeft, membersOf, waitFor } from './processes.js';

const TOKEN = 'live-to-drill-test-token';

interface FaultView {
  id: number;
  kind: string;
  state: string;
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** Polls GET /faults until every one of `ids` is in `state` (bounded: 300 polls of 200 ms). */
async function until(base: string, ids: number[], state: string): Promise<FaultView[]> {
  let faults: FaultView[] = [];
  for (let i = 0; i < 300; i++) {
    faults = (await api(base, 'GET', '/faults')).json.faults as FaultView[];
    if (ids.every((id) => faults.find((f) => f.id === id)?.state === state)) return faults;
    await sleep(200);
  }
  return assert.fail(`faults ${ids.join(', ')} never all ${state}: ${JSON.stringify(faults)}`);
}

test('a live session on rocelab up with two faults injected and cleared, exported as a drill, runs again with the session’s trace hash', { timeout: 1_800_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-live2drill-'));
  const log = join(dir, 'faults.json');
  const env = { ...process.env, ROCELAB_POD_TOKEN: TOKEN, ROCELAB_STATE_DIR: mkdtempSync(join(tmpdir(), 'rocelab-state-')), ROCELAB_CONTROLLER: '' };
  // The embedded default: `rocelab up` with no file runs deploy/pods/default.yaml, one process per node.
  const up = spawn(process.execPath, [CLI, 'up', '--fault-log', log], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const io = collect(up);
  const pids: number[] = [];
  try {
    assert.ok(await waitFor(() => io.out().includes('Ctrl-C stops the pod.'), 180_000), `rocelab up did not start:\n${io.out()}\n${io.err()}`);
    pids.push(...membersOf(up.pid!).map((m) => m.pid));
    assert.equal(pids.length, 26);
    const base = /^controller\s+(http:\/\/127\.0\.0\.1:\d+)\/status/m.exec(io.out())![1]!;
    const callEnv = { ROCELAB_POD_TOKEN: TOKEN, ROCELAB_STATE_DIR: env.ROCELAB_STATE_DIR, ROCELAB_CONTROLLER: '' };

    // Two faults through the API: a NIC pause storm now, and loss on a ToR's host port a little later.
    const storm = await cliAsync(['fault', 'inject', '--controller', base, '--kind', 'nicPauseStorm', '--target', 'h4', '--json'], callEnv);
    assert.equal(storm.status, 0, storm.stderr);
    const loss = await api(base, 'POST', '/faults', { kind: 'loss', link: 'tor3:p1', rate: 0.05, at: '+30us' });
    assert.equal(loss.status, 201, JSON.stringify(loss.json));
    const ids = [(JSON.parse(storm.stdout) as { id: number }).id, loss.json.id as number];
    assert.deepEqual(ids, [1, 2], 'numbered after the topology’s one fault');
    await until(base, ids, 'active');

    // rocelab status lists both as in force, with the topology's storm still to come.
    const status = await cliAsync(['status'], callEnv);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /^faults active +fault 1 nicPauseStorm on h4 since [\d.]+ ms virtual \(live\)$/m);
    assert.match(status.stdout, /^ +fault 2 loss on tor3:p1 since [\d.]+ ms virtual \(live\)$/m);
    assert.match(status.stdout, /^scheduled +fault 0 nicPauseStorm on h16 at 10\.000 ms virtual \(topology\)$/m);

    // Both cleared through the API, then the pod stopped as a user would.
    for (const id of ids) {
      const cleared = await cliAsync(['fault', 'clear', String(id), '--controller', base], callEnv);
      assert.equal(cleared.status, 0, cleared.stderr);
      assert.match(cleared.stdout, new RegExp(`^fault ${id}: undone at [\\d.]+ µs$`, 'm'));
    }
    await until(base, ids, 'cleared');
    const down = await cliAsync(['down'], callEnv, 120_000);
    assert.equal(down.status, 0, `${down.stdout}\n${down.stderr}`);
    assert.equal(await io.exited, 0, `${io.out().slice(-2000)}\n${io.err().slice(-3000)}`);
  } finally {
    killLeft([up.pid!, ...pids]);
  }

  const written = JSON.parse(readFileSync(log, 'utf8')) as { traceHash: string; virtualNs: number; seed: number; faults: Array<{ id: number; kind: string; source: string; spec: string }> };
  const live = written.faults.filter((f) => f.source === 'live');
  assert.deepEqual(live.map((f) => [f.id, f.kind]), [[1, 'nicPauseStorm'], [2, 'loss'], [1, 'clear'], [2, 'clear']], 'a clear carries its fault’s number');

  // Export: stdout to the drill file, which names the topology relative to itself.
  const drillFile = join(dir, 'session.yaml');
  const fd = openSync(drillFile, 'w');
  const exported = spawnSync(process.execPath, [CLI, 'fault', 'export', log, '--topology', 'deploy/pods/default.yaml'], { cwd: ROOT, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 300_000 });
  closeSync(fd);
  assert.equal(exported.status, 0, exported.stderr);
  assert.doesNotMatch(exported.stderr, /does not hold/, 'every draft holds on the session’s own run');
  const drill = readFileSync(drillFile, 'utf8');
  assert.match(drill, /^ {2}- \{at: "[\d.]+(ms|us|ns|ps)", kind: "nicPauseStorm", node: "h4", for: "[\d.]+(ms|us|ns|ps)"\}$/m);
  assert.match(drill, /^ {2}- \{at: "[\d.]+(ms|us|ns|ps)", kind: "loss", link: "tor3:p1", rate: 0\.05, for: "[\d.]+(ms|us|ns|ps)"\}$/m);
  assert.match(drill, /^ {2}# draft: /m);
  assert.match(drill, /^topology: "(\.\.\/)+.*deploy\/pods\/default\.yaml"$/m, 'relative to the drill file');

  // The drill runs the session again: the same trace hash.
  const run = cli(['drill', 'run', drillFile, '--out', join(dir, 'report'), '--json'], {}, 600_000);
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  const report = JSON.parse(run.stdout) as { variants: Array<{ run: { traceHash: string; virtualNs: number } }> };
  assert.equal(report.variants[0]!.run.virtualNs, written.virtualNs);
  assert.equal(report.variants[0]!.run.traceHash, written.traceHash, 'the drill is the live session');
  assert.equal(run.status, 0, `every draft holds:\n${run.stdout.slice(0, 3000)}`);
});
