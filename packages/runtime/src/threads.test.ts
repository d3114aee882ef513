import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadTopologyFile, partitionPod } from '@rocelab/topology';
import { runInproc } from './inproc.js';
import { partLinks, partsByName } from './thread-member.js';
import { defaultThreads, runThreads, THREADS_MIN_NODES, ThreadRunError } from './threads.js';
import { placementWindow } from './window.js';

const fixture = (name: string) => loadTopologyFile(fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url)));

test('two threads give one thread\'s hash, packets and drops, with kills and restarts; a pod of two switch groups gets no third thread', async () => {
  const pod = fixture('kill-restart.yaml');
  const options = { seed: 7, durationPs: 5e9 };
  const one = await runInproc(pod, options);
  assert.ok(one.droppedByReason.node_lost > 0, 'the fixture loses frames to its kills');
  for (const [asked, got] of [[2, 2], [3, 2]] as const) {
    const r = await runThreads(pod, asked, options);
    assert.deepEqual([r.mode, r.workers, r.traceHash, r.packets, r.droppedByReason, r.conservation, r.causalityViolations], ['threads', got, one.traceHash, one.packets, one.droppedByReason, true, 0]);
    assert.ok(r.windows > 0);
    // One message to the other thread per window: both learn where the next window starts.
    assert.equal(r.linkMessages, r.windows * 2);
  }
});

test('three and four threads on the perf pod give one thread\'s hash; each thread writes to every other every window', async () => {
  const pod = fixture('perf/clos-permutation.yaml');
  const options = { seed: 1, durationPs: 100_000_000 };
  const one = await runInproc(pod, options);
  for (const threads of [3, 4]) {
    const r = await runThreads(pod, threads, options);
    assert.deepEqual([r.workers, r.traceHash, r.packets], [threads, one.traceHash, one.packets]);
    assert.equal(r.linkMessages, r.windows * threads * (threads - 1));
  }
});

test('progress is reported while the threads run, at the same steps as one thread', async () => {
  const pod = fixture('tree.yaml');
  const seen: number[] = [];
  await runThreads(pod, 2, { seed: 1, durationPs: 120_000_000, onProgress: (ps) => seen.push(ps) });
  assert.deepEqual(seen, [50_000_000, 100_000_000]);
});

test('a thread that fails ends the run with its error, and the others stop waiting for it', { timeout: 30_000 }, async () => {
  const pod = fixture('tree.yaml');
  const started = Date.now();
  await assert.rejects(
    runThreads(pod, 2, { seed: 1, durationPs: 1e9, threadEntry: { code: "const { workerData } = require('node:worker_threads'); if (workerData.self === 1) throw new Error('part 2 cannot start'); import(" + JSON.stringify(new URL('./thread-main.js', import.meta.url).href) + ')' } }),
    (err: unknown) => err instanceof ThreadRunError && /thread 2 of 2 failed: .*part 2 cannot start/s.test(err.message),
  );
  assert.ok(Date.now() - started < 10_000);
});

test('a thread that fails while another computes without end: the other is stopped, and the run fails with the first one\'s error', { timeout: 30_000 }, async () => {
  const pod = fixture('tree.yaml');
  const started = Date.now();
  const code = "const { workerData } = require('node:worker_threads'); if (workerData.self === 0) { for (;;) {} } throw new Error('part 2 is broken');";
  await assert.rejects(runThreads(pod, 2, { seed: 1, durationPs: 1e9, threadEntry: { code } }), (err: unknown) => err instanceof ThreadRunError && /thread 2 of 2 failed: .*part 2 is broken/s.test(err.message));
  assert.ok(Date.now() - started < 10_000);
});

test('by default a pod runs in one thread per core from THREADS_MIN_NODES nodes on, and in one thread below it or on one core', () => {
  const small = fixture('perf/clos-permutation.yaml');
  const large = { ...small, nodes: Array.from({ length: THREADS_MIN_NODES }, (_, i) => ({ ...small.nodes[0]!, index: i })) };
  assert.deepEqual([defaultThreads(small, 2), defaultThreads(large, 1), defaultThreads(large, 2), defaultThreads(large, 4)], [1, 1, 2, 4]);
});

test('both ends of a pair of threads number its links alike, sorted by name, with the window\'s count of crossing links', () => {
  const pod = fixture('perf/clos-permutation.yaml');
  const parts = partitionPod(pod, 3);
  const links = parts.map((_, self) => partLinks(pod, parts, self).map((pair) => pair.map((l) => l.name)));
  for (let p = 0; p < parts.length; p++) {
    assert.deepEqual(links[p]![p], []);
    for (let q = 0; q < parts.length; q++) {
      assert.deepEqual(links[p]![q], links[q]![p]);
      assert.deepEqual(links[p]![q], [...links[p]![q]!].sort());
    }
  }
  const crossing = links.flat(2).length / 2;
  assert.ok(crossing > 0);
  assert.equal(crossing, placementWindow(pod, partsByName(pod, parts)).crossLinks);
});
