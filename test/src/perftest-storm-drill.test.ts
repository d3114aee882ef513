/**
 * drills/perftest-under-storm.yaml (issue 25): Debian's ib_write_bw behind another host's pause
 * storm. Run as written (by a path relative to the working directory, as the guide shows it), it
 * passes with the numbers its header gives, and its throughput plot has the victim's native QP;
 * with its central bound made false — perftest's average bandwidth *above* the watchdog's — it
 * fails on exactly that one, with the margin. (That it passes inproc and in procs with the same
 * numbers is the drills tier, builtin-drills.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseTraceFile } from '@rocelab/results';
import { cli, ROOT } from './harness.js';

const DRILL = 'drills/perftest-under-storm.yaml';
const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-perftest-drill-'));

test('perftest-under-storm passes: ib_write_bw averages 1246.97 MB/s without the watchdog and 1758.99 with it, and its QP is on the throughput plot', { timeout: 300_000 }, () => {
  const out = tmp();
  const r = cli(['drill', 'run', DRILL, '--out', out], {}, 300_000);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^pass  expect\[4\] +across variants: perftest's average bandwidth is lower without the watchdog\n +measured 1247 in no-watchdog vs 1759 in watchdog; expected < 1759 \(watchdog\); 512 \(29\.109 %\) to spare$/m);
  assert.match(r.stdout, /^pass  expect\[5\] +no-watchdog: the victim QP stops while h4 storms\n +measured 0 Gb\/s \(1 flow\);/m);
  assert.match(r.stdout, /^pass  expect\[7\] +watchdog: .*\n +measured 20 µs \(from its containment at 1004 ms;/m);
  assert.match(r.stdout, /^PASS: 8 of 8 expectations hold$/m);
  for (const [variant, average] of [
    ['no-watchdog', '1246.97'],
    ['watchdog', '1758.99'],
  ] as const) {
    const result = JSON.parse(readFileSync(join(out, variant, 'result.json'), 'utf8')) as { nodes: Array<{ node: string; programs?: Array<{ stdout: string }> }> };
    for (const node of ['h2', 'h3']) {
      const stdout = result.nodes.find((n) => n.node === node)!.programs![0]!.stdout;
      assert.match(stdout, new RegExp(`^ 65536 +200 +3258\\.35 +${average.replace('.', '\\.')}\\s+0\\.0\\d+$`, 'm'), `${variant} ${node}:\n${stdout}`);
    }
    // The native QP (no workload flow) is in rates.csv under its key, and what it acknowledged never goes back.
    const path = join(out, variant, 'trace', 'rates.csv');
    const rows = parseTraceFile({ name: 'rates.csv', path, text: readFileSync(path, 'utf8') }).rows;
    const victim = rows.filter((row) => row.node === 'h2' && row.dst === 'h3');
    assert.ok(victim.length > 100 && victim.every((row) => /^native:\d+$/.test(row.flow)), `${variant}: ${victim.length} rows of h2 → h3`);
    assert.equal(victim.at(-1)!.ackedBytes, 200 * 65536);
    const svg = readFileSync(join(out, `rates-${variant}.svg`), 'utf8');
    assert.match(svg, new RegExp(`h2 qp${victim[0]!.qp} → h3`), `${variant}: the victim on the throughput plot`);
    assert.match(svg, />14,000</, `${variant}: the plot ends at plots.until (1013 ms, 14 ms after the trace's origin)`);
  }
});

test('perftest-under-storm fails with its margin when perftest is held to a higher average without the watchdog', { timeout: 300_000 }, () => {
  const dir = tmp();
  const text = readFileSync(join(ROOT, DRILL), 'utf8');
  const from = "op: '<', value: 'variant:watchdog'";
  assert.ok(text.includes(from), `the drill holds ${from}`);
  const file = join(dir, 'drill.yaml');
  writeFileSync(file, text.replace(from, "op: '>', value: 'variant:watchdog'"));
  const r = cli(['drill', 'run', file, '--out', join(dir, 'out')], {}, 300_000);
  assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^FAIL  expect\[4\] +across variants: perftest's average bandwidth is lower without the watchdog\n +measured 1247 in no-watchdog vs 1759 in watchdog; expected > 1759 \(watchdog\); 512 \(29\.109 %\) the wrong side$/m);
  assert.match(r.stdout, /^FAIL: 7 of 8 expectations hold; failing: expect\[4\]/m);
});
