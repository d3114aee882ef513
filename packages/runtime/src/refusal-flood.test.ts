/**
 * A flood of refused handshakes (another pod's token, an unknown node) writes a bounded number
 * of log lines, whose counts add up to every refusal, per peer address and reason.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { pino } from 'pino';
import { WebSocketServer } from 'ws';
import { podKey } from './auth.js';
import { CloseCode, Connection, HandshakeError, WS_OPTIONS, type Identity } from './connection.js';
import { RefusalReporter } from './refusal-reporter.js';

const KEY = podKey('the-pod-token');
const INTERVAL_MS = 250;

interface Line {
  msg: string;
  kind: string;
  refusals: number;
  counts: Array<{ peer: string; reason: string; count: number }>;
  otherCount: number;
}

test('600 refused handshakes: at most one line per kind per interval, counts per peer and reason that add up', { timeout: 60_000 }, async () => {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  const reporter = new RefusalReporter(log, { intervalMs: INTERVAL_MS });
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, ...WS_OPTIONS });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  let refused = 0;
  const self: Identity = { node: 'srv', role: 'member', link: '', nodes: [], linkUrl: '', metricsUrls: [] };
  wss.on('connection', (ws) => {
    Connection.accept(ws, KEY, self, (hello) => (hello.node === 'h1' ? null : { code: CloseCode.unknownPeer, reason: `unknown node ${hello.node}` }), log, reporter).catch(() => refused++);
  });
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const quiet = pino({ level: 'silent' });
  const client = (node: string): Identity => ({ node, role: 'member', link: '', nodes: [node], linkUrl: '', metricsUrls: [] });
  const attempts = [
    ...Array.from({ length: 400 }, () => () => Connection.connect(url, podKey('a-guess'), client('h1'), quiet)),
    ...Array.from({ length: 200 }, (_, i) => () => Connection.connect(url, KEY, client(`h${9 + (i % 2)}`), quiet)),
  ];
  const start = performance.now();
  try {
    for (let i = 0; i < attempts.length; i += 50) {
      const results = await Promise.allSettled(attempts.slice(i, i + 50).map((a) => a()));
      for (const r of results) assert.ok(r.status === 'rejected' && r.reason instanceof HandshakeError, 'every attempt is refused');
    }
    const deadline = performance.now() + 10_000;
    while (refused < attempts.length && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(refused, attempts.length);
    const elapsed = performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 200)); // the lines that waited
    const parsed = lines.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'handshakes refused');
    const bound = Math.ceil(elapsed / INTERVAL_MS) + 2;
    for (const [kind, total, reasons] of [
      ['auth', 400, ['bad proof from h1: the pod token differs']],
      ['unknownPeer', 200, ['unknown node h10', 'unknown node h9']],
    ] as const) {
      const mine = parsed.filter((l) => l.kind === kind);
      assert.ok(mine.length >= 2 && mine.length <= bound, `${kind}: ${mine.length} lines in ${elapsed.toFixed(0)} ms (at most ${bound})`);
      assert.equal(mine.reduce((n, l) => n + l.refusals, 0), total, `${kind}: the lines stand for every refusal`);
      const byReason = new Map<string, number>();
      for (const l of mine) {
        assert.equal(l.counts.reduce((n, c) => n + c.count, 0) + l.otherCount, l.refusals);
        for (const c of l.counts) {
          assert.equal(c.peer, '127.0.0.1');
          byReason.set(c.reason, (byReason.get(c.reason) ?? 0) + c.count);
        }
      }
      assert.deepEqual([...byReason.keys()].sort(), [...reasons]);
    }
    assert.equal(parsed.length, lines.length, 'nothing else was logged: one line per kind per interval');
  } finally {
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
});
