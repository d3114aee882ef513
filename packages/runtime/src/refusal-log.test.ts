import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RefusalLog, type RefusalLine } from './refusal-log.js';

const sum = (lines: RefusalLine[]): number => lines.reduce((n, l) => n + l.refusals, 0);

test('the first refusal of a kind is a line at once; the next ones wait for the interval and arrive counted per peer and reason', () => {
  const log = new RefusalLog({ intervalMs: 1000 });
  const first = log.note('auth', '10.0.0.5', 'bad proof from h1', 0);
  assert.deepEqual(first, { kind: 'auth', refusals: 1, counts: [{ peer: '10.0.0.5', reason: 'bad proof from h1', count: 1 }], otherCount: 0, spanMs: 0 });
  for (let i = 1; i <= 9; i++) assert.equal(log.note('auth', i % 3 === 0 ? '10.0.0.6' : '10.0.0.5', 'bad proof from h1', i * 10), null);
  assert.equal(log.nextDeadlineMs(), 1000);
  assert.deepEqual(log.onTimer(999), []);
  assert.deepEqual(log.onTimer(1000), [
    {
      kind: 'auth',
      refusals: 9,
      counts: [
        { peer: '10.0.0.5', reason: 'bad proof from h1', count: 6 },
        { peer: '10.0.0.6', reason: 'bad proof from h1', count: 3 },
      ],
      otherCount: 0,
      spanMs: 990,
    },
  ]);
  assert.equal(log.nextDeadlineMs(), null, 'nothing waits');
});

test('kinds are limited separately; a refusal after the interval is a line of its own with what waited', () => {
  const log = new RefusalLog({ intervalMs: 100 });
  assert.ok(log.note('auth', 'a', 'x', 0) !== null);
  assert.ok(log.note('version', 'a', 'v2', 1) !== null, 'another kind is not held back');
  assert.equal(log.note('auth', 'a', 'x', 50), null);
  const line = log.note('auth', 'b', 'y', 150);
  assert.deepEqual(line?.counts.map((c) => [c.peer, c.count]), [['a', 1], ['b', 1]]);
  assert.equal(line?.refusals, 2);
});

test('a flood of 20,000 refusals over 10 s gives at most one line per interval per kind, and the counts add up', () => {
  const log = new RefusalLog({ intervalMs: 1000 });
  const lines: RefusalLine[] = [];
  const kinds = ['auth', 'unknownPeer', 'version'];
  for (let i = 0; i < 20_000; i++) {
    const now = i / 2; // 2 per ms: 10 s
    const kind = kinds[i % 3]!;
    const line = log.note(kind, `10.0.${i % 7}.1`, `${kind} reason ${i % 5}`, now);
    if (line !== null) lines.push(line);
    const due = log.nextDeadlineMs();
    if (due !== null && due <= now) lines.push(...log.onTimer(now));
  }
  lines.push(...log.onTimer(20_000));
  for (const kind of kinds) {
    const mine = lines.filter((l) => l.kind === kind);
    assert.ok(mine.length <= 12, `${kind}: ${mine.length} lines for 10 s at one per second`);
    assert.equal(sum(mine), kinds.indexOf(kind) < 2 ? 6667 : 6666);
    for (const l of mine) assert.equal(l.counts.reduce((n, c) => n + c.count, 0) + l.otherCount, l.refusals);
  }
  assert.equal(sum(lines), 20_000);
});

test('distinct (peer, reason) pairs are bounded: the rest count as other; long reasons are cut', () => {
  const log = new RefusalLog({ intervalMs: 1000, maxEntries: 3, maxReasonChars: 10 });
  log.note('unknownPeer', 'p', 'first', 0);
  for (let i = 0; i < 10; i++) log.note('unknownPeer', 'p', `h${i} is not a node of this pod`, 1);
  const [line] = log.onTimer(1000);
  assert.equal(line?.refusals, 10);
  assert.equal(line?.counts.length, 3);
  assert.equal(line?.otherCount, 7);
  assert.equal(line?.counts[0]?.reason, 'h0 is not …');
});

test('a non-positive interval is a bug in the caller', () => {
  assert.throws(() => new RefusalLog({ intervalMs: 0 }), /intervalMs: expected a positive number of ms, got 0/);
});
