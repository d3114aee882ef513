/**
 * The controller counts refused fault API calls (401) and refused member handshakes in one
 * refusal log: the first of each kind is logged at once, the rest 10 s later in one line per
 * kind with counts per caller address and reason that add up.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { Controller } from '@rocelab/controller';
import { Connection, podKey, REFUSAL_LOG_INTERVAL_MS } from '@rocelab/runtime';
import { loadTopologyFile } from '@rocelab/topology';
import { pino } from 'pino';
import { captureLog, fixture } from './harness.js';

interface Line {
  msg: string;
  kind?: string;
  refusals?: number;
  counts?: Array<{ peer: string; reason: string; count: number }>;
}

test('300 calls without the token and 100 handshakes with another: two lines per kind, one at once and one after the interval', { timeout: 60_000 }, async () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  const { log, lines } = captureLog('info');
  const controller = new Controller({ pod, seed: 1, durationPs: null, dilation: 0, token: 'the-pod-token', expected: null, mode: 'procs', log });
  const { url, httpUrl } = await controller.listen();
  const start = performance.now();
  try {
    const calls = Array.from({ length: 300 }, (_, i) =>
      fetch(`${httpUrl}/faults`, { method: i % 2 === 0 ? 'GET' : 'POST', headers: i % 3 === 0 ? {} : { authorization: 'Bearer a-guess' }, body: i % 2 === 0 ? null : '{}' }),
    );
    for (const r of await Promise.all(calls)) assert.equal(r.status, 401);
    const quiet = pino({ level: 'silent' });
    const handshakes = Array.from({ length: 100 }, () => Connection.connect(url, podKey('a-guess'), { node: 'm1', role: 'member', link: '', nodes: ['h1'], linkUrl: '', metricsUrls: [] }, quiet));
    const settled = await Promise.allSettled(handshakes);
    assert.ok(settled.every((s) => s.status === 'rejected'));
    const busyMs = performance.now() - start;
    const refusals = () => lines.map((l) => JSON.parse(l) as Line).filter((l) => l.kind !== undefined);
    const total = (kind: string) => refusals().filter((l) => l.kind === kind).reduce((n, l) => n + l.refusals!, 0);
    // What waits comes out once the interval since each kind's last line has passed.
    const deadline = performance.now() + REFUSAL_LOG_INTERVAL_MS + 2_000;
    while ((total('faultApi') < 300 || total('auth') < 100) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(total('faultApi'), 300);
    assert.equal(total('auth'), 100);
    const all = refusals();
    for (const kind of ['faultApi', 'auth']) {
      const mine = all.filter((l) => l.kind === kind);
      assert.equal(mine[0]!.refusals, 1, `${kind}: the first refusal is logged at once`);
      // One line at once, then one per interval: 2 unless the calls themselves took longer than one.
      assert.ok(mine.length >= 2 && mine.length <= 2 + Math.floor(busyMs / REFUSAL_LOG_INTERVAL_MS), `${kind}: ${mine.length} lines in ${busyMs.toFixed(0)} ms`);
    }
    const later = all.filter((l) => l.kind === 'faultApi').slice(1);
    assert.ok(later.every((l) => l.msg === 'fault API calls without the pod token refused (401)'));
    const reasons = new Map<string, number>();
    for (const c of later.flatMap((l) => l.counts!)) {
      assert.ok(c.peer === '127.0.0.1' || c.peer === '::ffff:127.0.0.1', c.peer);
      reasons.set(c.reason, (reasons.get(c.reason) ?? 0) + c.count);
    }
    assert.equal([...reasons.values()].reduce((a, b) => a + b, 0), 299);
    assert.ok(reasons.has('GET /faults: no bearer token') && reasons.has('POST /faults: another pod token'), [...reasons.keys()].join(', '));
  } finally {
    controller.stop();
    await controller.close();
  }
});
