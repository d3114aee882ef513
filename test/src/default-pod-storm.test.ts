/**
 * The README's account of the default pod's pause storm (in its guide docs/containers.md,
 * `readme-pages.ts`) is what the pod does: which nodes the
 * storm pauses, first, at what virtual time (to 0.1 ms), and which it never reaches before h16's
 * stall prevention silences it. The run is deterministic, so one inproc run stands for every mode.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseTraceFile } from '@rocelab/results';
import { cli } from './harness.js';
import { readmeText } from './readme-pages.js';

test("the default pod's storm pauses the nodes the README names, at the times it gives, and no others by 12.5 ms", { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-storm-'));
  const run = cli(['run', 'deploy/pods/default.yaml', '--duration', '12500us', '--trace', dir, '--json'], {}, 600_000);
  assert.equal(run.status, 0, run.stderr.slice(-2000));
  const path = join(dir, 'pfc.csv');
  const first = new Map<string, number>();
  for (const r of parseTraceFile({ name: 'pfc.csv', path, text: readFileSync(path, 'utf8') }).rows) {
    if (r.event === 'pause' && !first.has(r.node)) first.set(r.node, r.timeUs);
  }
  const order = [...first].sort(([, a], [, b]) => a - b);
  const hops = order.map(([node, us]) => `${node} ${(us / 1000).toFixed(1)} ms`);
  const readme = readmeText().replace(/\s+/g, ' ');
  const claim = /each node first paused at: (.*?), with "PFC pause frames/.exec(readme)?.[1];
  assert.ok(claim !== undefined, 'the README gives the hops');
  const claimed = [...claim.matchAll(/(\w+) (\d+\.\d) ms/g)].map((m) => `${m[1]} ${m[2]} ms`);
  assert.deepEqual(claimed, hops);
  for (const quiet of /(spine1, leaf1, leaf3 and tor2) are never paused/.exec(readme)![1]!.split(/, | and /)) assert.ok(!first.has(quiet), `${quiet} is paused`);
});
