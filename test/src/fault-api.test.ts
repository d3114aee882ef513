/**
 * The fault API on a running pod (`rocelab up`): every call needs the pod token; a live
 * nicPauseStorm is stamped, shows in the metrics and the fault log; a bad one is refused with
 * what is wrong; clearing undoes it; and the fault log replays the run to the same trace hash.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, cli, cliAsync, ROOT } from './harness.js';

const TOKEN = 'fault-api-test-token';

async function call(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the fault API on rocelab up: token required, live faults stamped, in the metrics and the log, cleared, and replayed to the same hash', { timeout: 180_000 }, async () => {
  const log = join(mkdtempSync(join(tmpdir(), 'rocelab-faults-')), 'faults.json');
  // 10 ms at dilation 3,000 is 30 s of wall time: the pod must outlive every call below, and on a
  // busy machine (CI runs two test files at once) a CLI call alone can take seconds to start.
  const child = spawn(process.execPath, [CLI, 'up', 'test/fixtures/tree.yaml', '--dilation', '3000', '--duration', '10ms', '--fault-log', log], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ROCELAB_POD_TOKEN: TOKEN },
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 600 && !out.includes('Ctrl-C stops the pod.'); i++) await sleep(100);
  assert.ok(out.includes('Ctrl-C stops the pod.'), `rocelab up did not start:\n${out}\n${err}`);
  assert.match(out, /^faults +the token in ROCELAB_POD_TOKEN rocelab fault inject --controller http:\/\/127\.0\.0\.1:\d+/m);
  const base = /^controller\s+(http:\/\/127\.0\.0\.1:\d+)\/status/m.exec(out)![1]!;

  // No token, a wrong one: 401 for every method, and nothing changes.
  for (const [method, path] of [['GET', '/faults'], ['POST', '/faults'], ['DELETE', '/faults'], ['DELETE', '/faults/0']] as const) {
    for (const token of [null, 'wrong']) {
      const r = await call(base, method, path, token, method === 'POST' ? { kind: 'nicPauseStorm', node: 'h4' } : undefined);
      assert.equal(r.status, 401, `${method} ${path} with ${token ?? 'no token'}`);
      assert.match(String(r.json.error), /pod token/);
    }
  }
  assert.equal((await call(base, 'GET', '/faults', TOKEN)).json.faults instanceof Array, true);

  // Bad faults: 400 with what is wrong; a time already granted: 409.
  const bad = await call(base, 'POST', '/faults', TOKEN, { kind: 'nicPauseStorm', node: 'sw1' });
  assert.equal(bad.status, 400);
  assert.match(String(bad.json.error), /fault\.node: expected the name of a host \(a nicPauseStorm fault acts on one\), got "sw1" \(a tor\)/);
  const meteor = await call(base, 'POST', '/faults', TOKEN, { kind: 'meteor', node: 'h1' });
  assert.equal(meteor.status, 400);
  assert.match(String(meteor.json.error), /fault\.kind: expected one of "linkDown", .*got "meteor"/);
  assert.equal((await call(base, 'POST', '/faults', TOKEN, { kind: 'nicPauseStorm', node: 'h4', at: '0ns' })).status, 409);

  // The storm, through the CLI: stamped with the next lease's start.
  const inject = await cliAsync(['fault', 'inject', '--controller', base, '--kind', 'nicPauseStorm', '--target', 'h4', '--json'], { ROCELAB_POD_TOKEN: TOKEN });
  assert.equal(inject.status, 0, inject.stderr);
  const storm = JSON.parse(inject.stdout) as { id: number; atNs: number; state: string };
  assert.ok(storm.atNs > 0, 'stamped after the pod started');
  // A loss fault later on, without an end (a bounded one may be over before a slow machine
  // clears it), then cleared.
  const loss = await call(base, 'POST', '/faults', TOKEN, { kind: 'loss', link: 'h1:p0', rate: 0.5, at: '+200us' });
  assert.equal(loss.status, 201, JSON.stringify(loss.json));
  for (let i = 0; i < 200; i++) {
    const list = await call(base, 'GET', '/faults', TOKEN);
    const faults = list.json.faults as Array<{ id: number; state: string }>;
    if (faults.find((f) => f.id === loss.json.id)?.state === 'active') break;
    await sleep(100);
  }
  const listed = await cliAsync(['fault', 'list', '--controller', base], { ROCELAB_POD_TOKEN: TOKEN });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`^ +${storm.id}  nicPauseStorm +h4 +[\\d.]+ µs +– +active +live$`, 'm'));
  assert.match(listed.stdout, new RegExp(`^ +${String(loss.json.id)}  loss +h1:p0 +[\\d.]+ µs +– +active +live$`, 'm'));
  const cleared = await cliAsync(['fault', 'clear', String(loss.json.id), '--controller', base], { ROCELAB_POD_TOKEN: TOKEN });
  assert.equal(cleared.status, 0, cleared.stderr);
  assert.match(cleared.stdout, new RegExp(`^fault ${String(loss.json.id)}: undone at [\\d.]+ µs$`, 'm'));
  assert.equal((await call(base, 'DELETE', `/faults/${String(loss.json.id)}`, TOKEN)).status, 409, 'cleared twice');

  // The storm shows: h4's NIC pauses its ToR, and the controller marks the fault active.
  const controllerMetrics = await (await fetch(`${base}/metrics`)).text();
  assert.match(controllerMetrics, /^rocelab_fault_active\{fault="nicPauseStorm",target="h4",node="controller",role="controller"\} 1$/m);
  const h4 = /^h4\s+host\s+(\S+)$/m.exec(out)![1]!;
  let pauses = 0;
  for (let i = 0; i < 100 && pauses === 0; i++) {
    const m = /^rocelab_pfc_pause_frames_sent_total\{port="p0",priority="3",node="h4",role="host"\} (\d+)$/m.exec(await (await fetch(h4)).text());
    pauses = Number(m?.[1] ?? 0);
    if (pauses === 0) await sleep(100);
  }
  assert.ok(pauses > 0, 'h4 pauses its ToR');

  assert.equal(await exited, 0, `${out}\n${err}`);
  const written = JSON.parse(readFileSync(log, 'utf8')) as { traceHash: string; virtualNs: number; seed: number; faults: Array<{ id: number; kind: string; source: string }> };
  assert.deepEqual(written.faults.map((f) => [f.kind, f.source]), [['nicPauseStorm', 'live'], ['loss', 'live'], ['clear', 'live']]);
  assert.equal(written.virtualNs, 10_000_000);

  // Replay: seed + topology + fault log give the same trace hash, in one process and in procs.
  for (const mode of ['inproc', 'procs']) {
    const replay = cli(['run', 'test/fixtures/tree.yaml', '--duration', '10ms', '--seed', String(written.seed), '--faults', log, '--mode', mode, '--json']);
    assert.equal(replay.status, 0, replay.stderr);
    assert.equal(replay.json!.traceHash, written.traceHash, `${mode} replay`);
  }
  const without = cli(['run', 'test/fixtures/tree.yaml', '--duration', '10ms', '--seed', String(written.seed), '--json']);
  assert.notEqual(without.json!.traceHash, written.traceHash, 'the faults changed the run');
});

test('rocelab fault refuses without a token and names a kind it does not know', () => {
  const noToken = cli(['fault', 'list', '--controller', 'http://127.0.0.1:9'], { ROCELAB_POD_TOKEN: '' });
  assert.equal(noToken.status, 2);
  assert.match(noToken.stderr, /no pod token: pass --token or set ROCELAB_POD_TOKEN/);
  const kind = cli(['fault', 'inject', '--kind', 'meteor', '--target', 'h1', '--token', 'x']);
  assert.equal(kind.status, 2);
  assert.match(kind.stderr, /--kind meteor: expected one of linkDown, linkUp, linkFlap/);
  const flow = cli(['fault', 'inject', '--kind', 'packetEvent', '--target', 'h1', '--token', 'x']);
  assert.match(flow.stderr, /expected FROM>TO, e\.g\. h1>h2/);
});

test('rocelab run --faults refuses a log that is not one, of another seed, or with a fault the pod cannot take: exit 2 before the run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-faultlog-'));
  const storm = (node: string) => ({ id: 0, atPs: 5, kind: 'nicPauseStorm', target: node, spec: JSON.stringify({ kind: 'nicPauseStorm', node }), source: 'live' });
  const cases: Array<[unknown, RegExp]> = [
    ['nope', /--faults \S+: expected a fault log \(JSON: rocelab up --fault-log, or a result's faults\), got Unexpected token/],
    [{ pod: 'tree', seed: 3, faults: [] }, /a log of seed 3; this run has seed 7 \(give --seed 3 to replay it\)/],
    [{ pod: 'line', faults: [] }, /a log of pod line; this is pod tree/],
    [{ pod: 'tree', faults: [{ id: 0 }] }, /faults\[0\]\.atPs: expected a virtual time in ps \(an integer ≥ 0\), got nothing/],
    [{ pod: 'tree', faults: [storm('sw1')] }, /fault 0 \(nicPauseStorm\) does not fit pod tree: fault 0\.node: expected the name of a host/],
  ];
  for (const [i, [content, message]] of cases.entries()) {
    const file = join(dir, `log${i}.json`);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    const r = cli(['run', 'test/fixtures/tree.yaml', '--duration', '100us', '--faults', file]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stdout, /trace hash/, 'nothing ran');
  }
});
