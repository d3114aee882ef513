/**
 * `--workers K` reports its placement: how many links cross between members, and the window
 * the crossing links allow (the smallest lookahead); inproc has none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunResult } from '@rocelab/runtime';
import { cli } from './harness.js';

test('a run with workers says how many links cross between them and the window that allows; one process says nothing', { timeout: 120_000 }, () => {
  // tree: sw1 with h1, h2; sw2 with h3, h4; sw1–sw2. Two workers keep each switch with its hosts: only sw1–sw2 crosses.
  const run = (args: string[]) => {
    const r = cli(['run', 'test/fixtures/tree.yaml', '--duration', '20us', '--json', ...args]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as RunResult;
  };
  const workers = run(['--workers', '2']);
  assert.deepEqual({ ...workers.placement, windowNs: Math.round(workers.placement!.windowNs) }, { members: 2, crossLinks: 1, links: 5, windowNs: 1017 });
  assert.equal(run([]).placement, undefined);
  const text = cli(['run', 'test/fixtures/tree.yaml', '--duration', '20us', '--workers', '2']);
  assert.match(text.stdout, /^placement: 2 members, 1 of 5 links between them, window 1\.0168 us \(the shortest crossing link's lookahead\)$/m);
});
