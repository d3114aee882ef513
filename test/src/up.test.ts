/**
 * `npm start` runs `rocelab up` on the tree fixture: one process per node, each printing a
 * /metrics URL that serves the emulator's counters; Ctrl-C stops every child.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT } from './harness.js';

test('rocelab up prints a live /metrics URL per node (promtool-clean), rocelab status finds it with no options, and Ctrl-C to the whole process group stops the pod in order', { timeout: 60_000 }, async () => {
  // This user's pod record lives in a directory of the test's own, not the machine's.
  const env = { ...process.env, ROCELAB_STATE_DIR: mkdtempSync(join(tmpdir(), 'rocelab-state-')), ROCELAB_CONTROLLER: '' };
  const status = () => spawnSync(process.execPath, [CLI, 'status'], { cwd: ROOT, env, encoding: 'utf8' });
  // Its own process group, like a terminal's foreground job: Ctrl-C reaches every process in it.
  const child = spawn(process.execPath, [CLI, 'up', 'test/fixtures/tree.yaml', '--dilation', '1000'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('Ctrl-C stops the pod.')) resolve();
    });
    child.once('exit', () => reject(new Error(`rocelab up exited early:\n${out}`)));
  });
  const urls = new Map([...out.matchAll(/^(\S+)\s+(host|tor)\s+(http:\/\/127\.0\.0\.1:\d+\/metrics)$/gm)].map((m) => [m[1]!, m[3]!]));
  assert.deepEqual([...urls.keys()].sort(), ['h1', 'h2', 'h3', 'h4', 'sw1', 'sw2']);
  assert.equal(new Set([...urls.values()].map((u) => new URL(u).port)).size, 6, 'one port per node');
  await new Promise((r) => setTimeout(r, 1000)); // let some virtual time pass
  for (const [node, url] of urls) {
    const text = await (await fetch(url)).text();
    for (const name of ['rocelab_transmitted_packets_total', 'rocelab_received_packets_total', 'rocelab_virtual_seconds_total']) {
      assert.match(text, new RegExp(`^${name}\\{[^}]*node="${node}"`, 'm'), `${node} lacks ${name}`);
    }
    assert.match(text, new RegExp(`^rocelab_dropped_packets_total\\{port="\\w+",reason="link_down",node="${node}"`, 'm'));
    const virtual = Number(/^rocelab_virtual_seconds_total\{[^}]*\} (\S+)$/m.exec(text)![1]);
    assert.ok(virtual > 0, `${node} has run some virtual time`);
    assert.match(text, /^rocelab_causality_violations_total\{[^}]*\} 0$/m, `${node}: a run without end keeps every frame inside its window`);
  }
  const controllerMetrics = /(http:\/\/\S+\/metrics)/.exec(out.split('\n').find((l) => l.startsWith('controller'))!)![1]!;
  const promtool = spawnSync('promtool', ['--version']).status === 0;
  for (const url of [controllerMetrics, ...urls.values()]) {
    const text = await (await fetch(url)).text();
    if (!promtool) continue; // the telemetry unit test reports the skip; CI installs promtool
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${url}: ${check.stdout}${check.stderr}`);
    assert.equal(`${check.stdout}${check.stderr}`.trim(), '', `${url}: promtool findings`);
  }
  const live = (await (await fetch(/(http:\/\/\S+\/status)/.exec(out)![1]!)).json()) as { state: string; nodesUp: number };
  assert.deepEqual([live.state, live.nodesUp], ['running', 6]);
  // `npx rocelab status` after `npm start`: no options, the controller on a port the system picked.
  const found = status();
  assert.equal(found.status, 0, found.stderr);
  assert.match(found.stdout, /^pod +tree: running$/m);
  assert.match(found.stdout, /^nodes up +6 of 6$/m);
  // The pace the pod keeps (virtual time completed per wall second), once 2 s of leases are behind it.
  let paced = found.stdout;
  for (let i = 0; i < 20 && !/^pace /m.test(paced); i++) {
    await new Promise((r) => setTimeout(r, 500));
    paced = status().stdout;
  }
  assert.match(paced, /^pace +[\d.]+ ms virtual per wall s over the last \d+ s \(dilation 1000 asks 1\.000\)$/m);
  const record = join(env.ROCELAB_STATE_DIR, `up-${child.pid}.json`);
  assert.ok(existsSync(record), 'rocelab up records its pod');
  process.kill(-child.pid!, 'SIGINT');
  assert.equal(await exited, 0);
  assert.equal(existsSync(record), false, 'the record goes with the pod');
  assert.match(out, /stopped at [\d.]+ ms virtual; conservation holds; 0 causality violations/);
  for (const url of urls.values()) {
    await assert.rejects(fetch(url), 'every node process is gone');
  }
});
