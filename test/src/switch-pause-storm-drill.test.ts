/**
 * drills/switch-pause-storm.yaml's central bounds are not true by construction: made false — the
 * victim back above its own pace, the storm declared sooner than the watchdog's detection time —
 * the drill fails (exit 1) on exactly those two, with the margin each misses by. (That it passes
 * inproc and in procs with the same numbers is the drills tier, builtin-drills.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, ROOT } from './harness.js';

test('switch-pause-storm fails with its margins when its containment bounds are made false', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-swstorm-'));
  let text = readFileSync(join(ROOT, 'drills', 'switch-pause-storm.yaml'), 'utf8');
  for (const [from, to] of [
    ['during: 6ms-8ms, min: 9G,', 'during: 6ms-8ms, min: 9.5G,'],
    ['priority: 3, within: 3ms,', 'priority: 3, within: 1.5ms,'],
  ]) {
    assert.ok(text.includes(from!), `the drill holds ${from}`);
    text = text.replace(from!, to!);
  }
  const file = join(dir, 'drill.yaml');
  writeFileSync(file, text);
  const r = cli(['drill', 'run', file, '--variant', 'leaf-watchdog', '--out', join(dir, 'out')], {}, 300_000);
  assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^FAIL  expect\[4\] +leaf-watchdog: .*\n +measured 1\.999 ms \(detected at 4 ms, paused since 2\.001 ms\); expected ≤ 1\.5 ms; 499 µs over$/m);
  assert.match(r.stdout, /^FAIL  expect\[5\] +leaf-watchdog: the victim is back at its pace once leaf2 contains the storm\n +measured 9\.257 Gb\/s \(1 flow\); expected ≥ 9\.5 Gb\/s; 0\.243 Gb\/s short$/m);
  assert.match(r.stdout, /^pass  expect\[6\] +leaf-watchdog: no PAUSE reaches the spines in 6ms-8ms$/m);
  assert.match(r.stdout, /^FAIL: 1 of 3 expectations hold; failing: expect\[4\] \(leaf-watchdog\), expect\[5\] \(leaf-watchdog\)$/m);
});
