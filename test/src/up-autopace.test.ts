/**
 * `rocelab up` without --dilation: the first windows run unpaced, then the pod keeps the pace
 * it chose from them (`auto-pace.ts` of @rocelab/sync), and `rocelab status` and /metrics say
 * which. The wall clock only decides when grants go out: the trace hash is a fixed pace's.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT, cliAsync } from './harness.js';

const hashOf = (out: string): string => /^stopped at 1\.000 ms virtual; conservation holds; 0 causality violations; trace hash ([0-9a-f]{64})$/m.exec(out)?.[1] ?? `no result in:\n${out}`;

test('rocelab up without --dilation measures its first windows, keeps the pace it chose (rocelab status, /metrics) and gives a fixed pace\'s trace hash', { timeout: 120_000 }, async () => {
  const env = { ...process.env, ROCELAB_STATE_DIR: mkdtempSync(join(tmpdir(), 'rocelab-state-')), ROCELAB_CONTROLLER: '' };
  const child = spawn(process.execPath, [CLI, 'up', 'test/fixtures/tree.yaml', '--duration', '1ms'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (let i = 0; i < 300 && !out.includes('Ctrl-C stops the pod.'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /^pod tree: 6 nodes as local processes, its pace measured unpaced over the first windows, then kept \(rocelab status shows it\)$/m);
    const controller = /^controller +(http:\/\/\S+)\/status/m.exec(out)![1]!;
    // Measuring takes ≈ 1 s here, then 0.74 ms of virtual time at the pace chosen (thousands of wall s per virtual s): seconds.
    const seen = new Set<string>();
    let chosen = '';
    for (let i = 0; i < 200 && chosen === ''; i++) {
      const status = spawnSync(process.execPath, [CLI, 'status'], { cwd: ROOT, env, encoding: 'utf8', timeout: 10_000 });
      const line = /^dilation +(.*)$/m.exec(status.stdout)?.[1] ?? '';
      if (line.startsWith('none yet')) {
        seen.add('measuring');
        assert.match(line, /^none yet: running unpaced to measure the pace \(the first 200 windows or 3 s of wall time; \d+ run\)$/);
      } else if (/the pace chosen/.test(line)) {
        chosen = status.stdout;
      } else if (status.status !== 0) {
        break; // the pod is over
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const m = /^dilation +(\d+(?:\.\d+)?) wall s per virtual s, the pace chosen from the first windows \((\d+) windows took (\S+) wall s per virtual s over \S+ s; ×1\.5 headroom\)$/m.exec(chosen);
    assert.ok(m, `rocelab status never showed the pace chosen (saw ${[...seen].join(', ') || 'nothing'}; up printed:\n${out})`);
    const dilation = Number(m[1]);
    const view = ((await (await fetch(`${controller}/status`)).json()) as { autoPace: { state: string; dilation: number; atPs: number } }).autoPace;
    assert.deepEqual([view.state, view.dilation], ['chosen', dilation]);
    assert.ok(dilation >= Number(m[3]) * 1.5 && dilation <= Number(m[3]) * 1.5 * 1.1, `${dilation}: 1.5 times ${m[3]}, rounded up to two digits`);
    assert.ok(Number(m[2]) >= 200 - 31, 'the measure ends after 200 windows (31 of warm-up left out) or 3 s');
    const metrics = await (await fetch(`${controller}/metrics`)).text();
    assert.match(metrics, new RegExp(`^rocelab_pace_wall_seconds_per_virtual_second\\{source="chosen",node="controller",role="controller"\\} ${dilation}$`, 'm'));
    assert.match(metrics, new RegExp(`^rocelab_dilation_ratio\\{[^}]*\\} ${dilation}$`, 'm'));
    if (spawnSync('promtool', ['--version']).status === 0) {
      const check = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
      assert.equal(`${check.status} ${check.stdout}${check.stderr}`.trim(), '0', 'promtool check metrics');
    }
    assert.equal(await exited, 0);
    assert.match(out, new RegExp(`^pace +${dilation} wall s per virtual s, the pace chosen from the first windows`, 'm'), 'up prints the pace under its banner');
    // Paced from the choice on: the rest of the millisecond took at least the pace's wall time.
    const wallMs = Number(/^procs: 1\.000 ms virtual in (\d+) ms wall/m.exec(out)![1]);
    assert.ok(wallMs >= dilation * (1e-3 - view.atPs / 1e12) * 1000, `${wallMs} ms of wall time: paced at ${dilation} from ${view.atPs} ps on`);
    const fixed = await cliAsync(['up', 'test/fixtures/tree.yaml', '--duration', '1ms', '--dilation', '2000'], { ROCELAB_STATE_DIR: env.ROCELAB_STATE_DIR, ROCELAB_CONTROLLER: '' }, 60_000);
    assert.equal(fixed.status, 0, fixed.stderr);
    assert.match(fixed.stdout, /^pod tree: 6 nodes as local processes, dilation 2000 \(wall s per virtual s\)$/m);
    assert.equal(hashOf(out), hashOf(fixed.stdout), 'the pace decides when, never what');
  } finally {
    child.kill('SIGKILL');
  }
});
