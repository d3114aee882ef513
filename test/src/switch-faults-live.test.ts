/**
 * The switch-side faults of issue 24 live, on a running pod (`rocelab up`): injected through
 * `rocelab fault inject` and the fault API, one cleared, each visible in its switch's metrics, and
 * the fault log replays the run to the same trace hash in one process and in procs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, cli, cliAsync, ROOT } from './harness.js';

const TOKEN = 'switch-faults-live-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('egressStuck, egressSlow and switchPauseStorm live: injected, shown in the metrics, one cleared, and replayed to the same hash', { timeout: 240_000 }, async () => {
  const log = join(mkdtempSync(join(tmpdir(), 'rocelab-swfaults-')), 'faults.json');
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
  const base = /^controller\s+(http:\/\/127\.0\.0\.1:\d+)\/status/m.exec(out)![1]!;
  const inject = async (args: string[]) => {
    const r = await cliAsync(['fault', 'inject', '--controller', base, '--json', ...args], { ROCELAB_POD_TOKEN: TOKEN });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { id: number; target: string; state: string };
  };

  // A bad one is refused with what is wrong, and nothing is logged.
  const bad = await cliAsync(['fault', 'inject', '--controller', base, '--kind', 'egressSlow', '--target', 'sw1', '--set', 'port=p9', '--set', 'rate=100G'], { ROCELAB_POD_TOKEN: TOKEN });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /fault\.rate: expected a rate below sw1:p9's link rate \(40 Gb\/s\): a slower drain, got "100G"/);

  // One through the CLI, two through the API (a CLI call can take seconds on a busy machine, and
  // the pod lives 30 s of wall time).
  const stuck = await inject(['--kind', 'egressStuck', '--target', 'sw1', '--set', 'port=p9', '--set', 'priority=3']);
  const post = async (body: Record<string, unknown>) => {
    const res = await fetch(`${base}/faults`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as { id: number; target: string };
    assert.equal(res.status, 201, JSON.stringify(json));
    return json;
  };
  const slow = await post({ kind: 'egressSlow', node: 'sw2', port: 'p9', rate: '10G', at: '+100us' });
  const storm = await post({ kind: 'switchPauseStorm', node: 'sw2', port: 'p1', at: '+200us', for: '2ms' });
  assert.deepEqual([stuck.target, slow.target, storm.target], ['sw1:p9', 'sw2:p9', 'sw2:p1']);

  // Each shows in its switch's metrics once it applied.
  const metricsOf = (node: string) => new RegExp(`^${node}\\s+(?:tor|switch)\\s+(\\S+)$`, 'm').exec(out)![1]!;
  const sample = async (node: string, line: RegExp) => {
    for (let i = 0; i < 150; i++) {
      const m = line.exec(await (await fetch(metricsOf(node))).text());
      if (m !== null && Number(m[1]) > 0) return Number(m[1]);
      await sleep(100);
    }
    return 0;
  };
  assert.equal(await sample('sw1', /^rocelab_egress_stuck\{port="p9",priority="3",node="sw1",role="tor"\} (\d+)$/m), 1);
  assert.equal(await sample('sw2', /^rocelab_egress_slow_rate_bytes_per_second\{port="p9",priority="0",node="sw2",role="tor"\} (\S+)$/m), 1.25e9);
  assert.ok((await sample('sw2', /^rocelab_switch_pause_storm_seconds_total\{port="p1",priority="3",node="sw2",role="tor"\} (\S+)$/m)) > 0);

  const cleared = await fetch(`${base}/faults/${stuck.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(cleared.status, 200, await cleared.text());

  assert.equal(await exited, 0, `${out}\n${err}`);
  const written = JSON.parse(readFileSync(log, 'utf8')) as { traceHash: string; seed: number; faults: Array<{ kind: string; target: string; source: string }> };
  assert.deepEqual(
    written.faults.map((f) => [f.kind, f.target]),
    [
      ['egressStuck', 'sw1:p9'],
      ['egressSlow', 'sw2:p9'],
      ['switchPauseStorm', 'sw2:p1'],
      ['clear', 'sw1:p9'],
    ],
  );
  for (const mode of ['inproc', 'procs']) {
    const replay = cli(['run', 'test/fixtures/tree.yaml', '--duration', '10ms', '--seed', String(written.seed), '--faults', log, '--mode', mode, '--json']);
    assert.equal(replay.status, 0, replay.stderr);
    assert.equal(replay.json!.traceHash, written.traceHash, `${mode} replay`);
  }
});
