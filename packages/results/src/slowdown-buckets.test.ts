import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestRank } from './percentile.js';
import { bucketsByFlow, hpccPercentile, slowdownBuckets, withBucketColumn, type SlowdownSample } from './slowdown-buckets.js';
import { parseTraceFile } from './trace-tables.js';

const sample = (flow: number, sizeBytes: number, slowdown: number): SlowdownSample => ({ flow: String(flow), sizeBytes, slowdown });

test("the script's percentile is a[int(n·p)]: the nearest rank except when n·p is whole", () => {
  const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
  // n·p = 10: the script takes index 10 (the 11th value), the nearest rank the 10th.
  assert.equal(hpccPercentile(twenty, 0.5), 11);
  assert.equal(nearestRank(twenty, 50), 10);
  // n·p = 19 (20 × 0.95 is 19.0 in doubles, as in Python): index 19.
  assert.equal(hpccPercentile(twenty, 0.95), 20);
  // n·p = 19.8: index 19, the same as the nearest rank.
  assert.equal(hpccPercentile(twenty, 0.99), 20);
  assert.equal(nearestRank(twenty, 99), 20);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(hpccPercentile(hundred, 0.99), 100); // 100 × 0.99 = 99.0: index 99
  assert.equal(hpccPercentile([7], 0.99), 7);
  assert.throws(() => hpccPercentile([], 0.5), RangeError);
  assert.throws(() => hpccPercentile([1], 1), RangeError);
});

test('two groups of ten: sizes ascending, percentiles by hand', () => {
  // Flow k has size 100·k and slowdown k, posted in reverse so the grouping must sort.
  const flows = Array.from({ length: 20 }, (_, i) => sample(20 - i, 100 * (20 - i), 20 - i));
  const s = slowdownBuckets(flows, 3, 50);
  assert.deepEqual(s, {
    stepPercent: 50,
    measured: 20,
    notMeasured: 3,
    buckets: [
      // slowdowns 1..10: p50 = a[5] = 6, p95 = a[9] = 10, p99 = a[9] = 10
      { fromPercent: 0, toPercent: 50, upToBytes: 1000, count: 10, p50: 6, p95: 10, p99: 10 },
      // slowdowns 11..20: p50 = a[5] = 16, p95 = a[9] = 20
      { fromPercent: 50, toPercent: 100, upToBytes: 2000, count: 10, p50: 16, p95: 20, p99: 20 },
    ],
  });
});

test('uneven counts follow the floor division of the script; a slowdown below 1 counts as 1', () => {
  // n = 3, step 50: group 0 is index [0, ⌊150/100⌋) = [0, 1), group 1 is [1, 3).
  const s = slowdownBuckets([sample(1, 1000, 0.9), sample(2, 2000, 4), sample(3, 3000, 2)], 0, 50);
  assert.deepEqual(s.buckets, [
    { fromPercent: 0, toPercent: 50, upToBytes: 1000, count: 1, p50: 1, p95: 1, p99: 1 },
    // slowdowns sorted [2, 4]: p50 = a[⌊2·0.5⌋] = a[1] = 4, p95 = a[1] = 4
    { fromPercent: 50, toPercent: 100, upToBytes: 3000, count: 2, p50: 4, p95: 4, p99: 4 },
  ]);
});

test('fewer messages than groups: the empty groups are left out', () => {
  // n = 1, step 5: only i = 95 has ⌊(95 + 5)·1/100⌋ = 1 > ⌊95/100⌋ = 0.
  const s = slowdownBuckets([sample(1, 500, 3)]);
  assert.deepEqual(s.buckets, [{ fromPercent: 95, toPercent: 100, upToBytes: 500, count: 1, p50: 3, p95: 3, p99: 3 }]);
  assert.deepEqual(slowdownBuckets([]).buckets, []);
  // A step that does not divide 100: the last group stops at 100 %.
  const last = slowdownBuckets(Array.from({ length: 100 }, (_, i) => sample(i, i, 1)), 0, 30).buckets.at(-1)!;
  assert.deepEqual([last.fromPercent, last.toPercent, last.count], [90, 100, 10]);
});

test('equal sizes keep flow-id order (numeric), and every flow gets the label of its group', () => {
  const flows = [sample(10, 100, 5), sample(9, 100, 1), sample(2, 50, 1), sample(3, 200, 1)];
  const labels = bucketsByFlow(flows, 50);
  // Sorted: 2 (50 B), 9 (100 B), 10 (100 B), 3 (200 B); groups [0, 2) and [2, 4).
  assert.deepEqual(Object.fromEntries(labels), { '2': '0-50%', '9': '0-50%', '10': '50-100%', '3': '50-100%' });
  assert.throws(() => slowdownBuckets(flows, 0, 0), /whole percent in \[1, 100\], got 0/);
});

test("fct.csv gets a last column with each measured message's group, empty for the others, and reads back", () => {
  const header = 'flow,from,to,size_bytes,start_us,completion_us,fct_us,ideal_fct_us,slowdown,status';
  const csv = `${header}\n7,h1,h2,300,0.000000,3.000000,3.000000,1.000000,3.000000,success\n8,h1,h2,100,0.000000,,,1.000000,,pending\n9,h2,h1,200,1.000000,2.000000,1.000000,1.000000,1.000000,success\n`;
  const out = withBucketColumn(csv, 50);
  assert.equal(out, `${header},bucket\n7,h1,h2,300,0.000000,3.000000,3.000000,1.000000,3.000000,success,50-100%\n8,h1,h2,100,0.000000,,,1.000000,,pending,\n9,h2,h1,200,1.000000,2.000000,1.000000,1.000000,1.000000,success,0-50%\n`);
  const rows = parseTraceFile({ name: 'fct.csv', path: 'fct.csv', text: out }).rows;
  assert.deepEqual(rows.map((r) => r.bucket), ['50-100%', undefined, '0-50%']);
  assert.equal(withBucketColumn(`${header}\n`), `${header},bucket\n`);
});
