/**
 * From a live session to a drill (issue 24): `rocelab up` (the default pod, one process per
 * node) takes two faults through the fault API, both cleared through it; `rocelab status` lists
 * them while they are in force; the pod is stopped (`rocelab down`), its fault log exported as a
 * drill, and `rocelab drill run` of that drill gives the live session's trace hash — a live clear
 * and a drill's `for` are one fault to the engine.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
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

test('a fault log exported and replayed into a drill (rocelab drill run --faults): the session’s hash; a log of another seed refused', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-replay-drill-'));
  const raw = (kind: string, key: string, target: string, extra: Record<string, unknown> = {}) => ({ kind, [key]: target, ...extra });
  const storm = raw('nicPauseStorm', 'node', 'h4');
  const loss = raw('loss', 'link', 'h1:p0', { rate: 0.5 });
  const log = {
    pod: 'tree',
    seed: 7,
    virtualNs: 1_000_000,
    faults: [
      { id: 0, atPs: 100e6, kind: 'nicPauseStorm', target: 'h4', spec: JSON.stringify(storm), source: 'live' },
      { id: 1, atPs: 150e6, kind: 'loss', target: 'h1:p0', spec: JSON.stringify(loss), source: 'live' },
      { id: 0, atPs: 300e6, kind: 'clear', target: 'h4', spec: JSON.stringify({ clears: 0, at: 100e6, raw: storm }), source: 'live' },
      { id: 1, atPs: 400e6, kind: 'clear', target: 'h1:p0', spec: JSON.stringify({ clears: 1, at: 150e6, raw: loss }), source: 'live' },
    ],
  };
  const logFile = join(dir, 'faults.json');
  writeFileSync(logFile, JSON.stringify(log));
  const replay = cli(['run', 'test/fixtures/tree.yaml', '--duration', '1ms', '--faults', logFile, '--json']);
  assert.equal(replay.status, 0, replay.stderr);
  const hash = replay.json!.traceHash as string;

  // Exported (no trace hash in this log: nothing to check it against) and run as a drill.
  const drillFile = join(dir, 'session.yaml');
  const fd = openSync(drillFile, 'w');
  const exported = spawnSync(process.execPath, [CLI, 'fault', 'export', logFile, '--topology', 'test/fixtures/tree.yaml'], { cwd: ROOT, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 300_000 });
  closeSync(fd);
  assert.equal(exported.status, 0, exported.stderr);
  assert.match(readFileSync(drillFile, 'utf8'), /^ {2}- \{at: "100us", kind: "nicPauseStorm", node: "h4", for: "200us"\}$/m);
  const asDrill = cli(['drill', 'run', drillFile, '--out', join(dir, 'a'), '--json']);
  assert.equal(asDrill.status, 0, asDrill.stdout.slice(0, 2000));
  assert.equal((JSON.parse(asDrill.stdout) as { variants: Array<{ run: { traceHash: string } }> }).variants[0]!.run.traceHash, hash);

  // The same log replayed into a drill of the same pod without faults of its own.
  const plain = join(dir, 'plain.yaml');
  writeFileSync(plain, `title: replay\ntopology: ${join(ROOT, 'test/fixtures/tree.yaml')}\nsource: a test\nduration: 1ms\nexpect:\n  - {kind: deadlock, expected: false}\n`);
  const replayed = cli(['drill', 'run', plain, '--faults', logFile, '--out', join(dir, 'b'), '--json']);
  assert.equal(replayed.status, 0, replayed.stderr);
  const variant = (JSON.parse(replayed.stdout) as { variants: Array<{ run: { traceHash: string }; faults: Array<{ id: number; source: string; untilNs: number | null }> }> }).variants[0]!;
  assert.equal(variant.run.traceHash, hash);
  assert.deepEqual(variant.faults.map((f) => [f.id, f.source, f.untilNs]), [[0, 'live', 300_000], [1, 'live', 400_000]]);

  writeFileSync(logFile, JSON.stringify({ ...log, seed: 3 }));
  const refused = cli(['drill', 'run', plain, '--faults', logFile, '--out', join(dir, 'c')]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /^rocelab drill: --faults \S+: a log of seed 3; this run has seed 7 \(seed: 3 in the drill replays it\) \(variant default\)$/m);
});
