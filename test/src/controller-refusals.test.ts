/**
 * The controller counts refused fault API calls (401) and refused member handshakes in one
 * refusal log: the first of each kind is logged at once, the rest 10 s later in one line per
 * kind with counts per caller address and reason that add up.
 */
import assert from 'node:assert/strict';
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
  try {
    const calls = Array.from({ length: 300 }, (_, i) =>
      fetch(`${httpUrl}/faults`, { method: i % 2 === 0 ? 'GET' : 'POST', headers: i % 3 === 0 ? {} : { authorization: 'Bearer a-guess' }, body: i % 2 === 0 ? null : '{}' }),
    );
    for (const r of await Promise.all(calls)) assert.equal(r.status, 401);
    const quiet = pino({ level: 'silent' });
    const handshakes = Array.from({ length: 100 }, () => Connection.connect(url, podKey('a-guess'), { node: 'm1', role: 'member', link: '', nodes: ['h1'], linkUrl: '', metricsUrls: [] }, quiet));
    const settled = await Promise.allSettled(handshakes);
    assert.ok(settled.every((s) => s.status === 'rejected'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refusals = () => lines.map((l) => JSON.parse(l) as Line).filter((l) => l.kind !== undefined);
    assert.deepEqual(refusals().map((l) => [l.kind, l.refusals]), [['faultApi', 1], ['auth', 1]], 'the first of each kind at once, nothing more yet');
    await new Promise((resolve) => setTimeout(resolve, REFUSAL_LOG_INTERVAL_MS + 500));
    const all = refusals();
    assert.equal(all.length, 4, all.map((l) => JSON.stringify(l)).join('\n'));
    const total = (kind: string) => all.filter((l) => l.kind === kind).reduce((n, l) => n + l.refusals!, 0);
    assert.equal(total('faultApi'), 300);
    assert.equal(total('auth'), 100);
    const later = all.find((l) => l.kind === 'faultApi' && l.refusals! > 1)!;
    assert.equal(later.msg, 'fault API calls without the pod token refused (401)');
    const reasons = new Map(later.counts!.map((c) => [c.reason, c.count]));
    assert.ok(later.counts!.every((c) => c.peer === '127.0.0.1' || c.peer === '::ffff:127.0.0.1'));
    assert.equal([...reasons.values()].reduce((a, b) => a + b, 0), 299);
    assert.ok(reasons.has('GET /faults: no bearer token') && reasons.has('POST /faults: another pod token'), [...reasons.keys()].join(', '));
  } finally {
    controller.stop();
    await controller.close();
  }
});
