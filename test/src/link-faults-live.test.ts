/**
 * Issue 24's link and configuration faults in a live pod: injected through `rocelab fault
 * inject` and the fault API while `rocelab up` runs, visible in the node's metrics while they
 * hold, one cleared, a bad one refused with what is wrong, and the fault log replays the run to
 * the same trace hash.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, cli, cliAsync, ROOT } from './harness.js';

const TOKEN = 'link-faults-live-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(base: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}/faults`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test('linkRate, dscpMisconfig and ecmpMisconfig live: stamped, in the metrics, cleared, refused when bad, and replayed to the same hash', { timeout: 240_000 }, async () => {
  const log = join(mkdtempSync(join(tmpdir(), 'rocelab-link-live-')), 'faults.json');
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

  const bad = await post(base, { kind: 'linkRate', link: 'sw1:p9', rate: '100G' });
  assert.equal(bad.status, 400);
  assert.match(String(bad.json.error), /fault\.rate: expected a rate below the link's configured 40 Gb\/s \(sw1:p9 transmits at it; a link trains down, never up\), got "100G"/);

  const inject = await cliAsync(['fault', 'inject', '--controller', base, '--kind', 'linkRate', '--target', 'sw1:p9', '--set', 'rate=10G', '--json'], { ROCELAB_POD_TOKEN: TOKEN });
  assert.equal(inject.status, 0, inject.stderr);
  const rate = JSON.parse(inject.stdout) as { id: number };
  const dscp = await post(base, { kind: 'dscpMisconfig', node: 'sw2', dscp: 26, priority: 0, at: '+100us' });
  assert.equal(dscp.status, 201, JSON.stringify(dscp.json));
  const ecmp = await post(base, { kind: 'ecmpMisconfig', node: 'sw1', seed: 99 });
  assert.equal(ecmp.status, 201, JSON.stringify(ecmp.json));

  // sw1's metrics show the trained rate on p9 (10 Gb/s = 1.25e9 B/s) and the new seed.
  const sw1 = /^sw1\s+tor\s+(\S+)$/m.exec(out)![1]!;
  let text = '';
  for (let i = 0; i < 150; i++) {
    text = await (await fetch(sw1)).text();
    if (/^rocelab_link_rate_bytes_per_second\{port="p9",node="sw1",role="tor"\} 1250000000$/m.test(text) && /^rocelab_ecmp_seed\{node="sw1",role="tor"\} 99$/m.test(text)) break;
    await sleep(100);
  }
  assert.match(text, /^rocelab_link_rate_bytes_per_second\{port="p9",node="sw1",role="tor"\} 1250000000$/m);
  assert.match(text, /^rocelab_link_rate_bytes_per_second\{port="p1",node="sw1",role="tor"\} 5000000000$/m);
  assert.match(text, /^rocelab_ecmp_seed\{node="sw1",role="tor"\} 99$/m);

  const cleared = await cliAsync(['fault', 'clear', String(rate.id), '--controller', base], { ROCELAB_POD_TOKEN: TOKEN });
  assert.equal(cleared.status, 0, cleared.stderr);
  assert.match(cleared.stdout, new RegExp(`^fault ${rate.id}: undone at [\\d.]+ µs$`, 'm'));

  assert.equal(await exited, 0, `${out}\n${err}`);
  const written = JSON.parse(readFileSync(log, 'utf8')) as { traceHash: string; seed: number; faults: Array<{ kind: string; source: string }> };
  assert.deepEqual(written.faults.map((f) => f.kind), ['linkRate', 'dscpMisconfig', 'ecmpMisconfig', 'clear']);
  for (const mode of ['inproc', 'procs']) {
    const replay = cli(['run', 'test/fixtures/tree.yaml', '--duration', '10ms', '--seed', String(written.seed), '--faults', log, '--mode', mode, '--json'], {}, 180_000);
    assert.equal(replay.status, 0, replay.stderr);
    assert.equal(replay.json!.traceHash, written.traceHash, `${mode} replay`);
  }
});
