import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cdfProblem, cdfQuantile, meanSizeBytes } from './size-cdf.js';

const WEB = [
  { sizeBytes: 1000, probability: 0.2 },
  { sizeBytes: 5000, probability: 0.6 },
  { sizeBytes: 5000, probability: 0.7 },
  { sizeBytes: 25000, probability: 1 },
];

test('inverse transform on the piecewise-linear CDF', () => {
  assert.equal(cdfQuantile(WEB, 0), 1000, 'below the first probability: a point mass at the first size');
  assert.equal(cdfQuantile(WEB, 0.1999), 1000);
  assert.equal(cdfQuantile(WEB, 0.2), 1000);
  assert.equal(cdfQuantile(WEB, 0.4), 3000, 'halfway from (1000, 0.2) to (5000, 0.6)');
  assert.equal(cdfQuantile(WEB, 0.65), 5000, 'a vertical step: a point mass at 5000');
  assert.equal(cdfQuantile(WEB, 0.85), 15000);
});

test('mean: point mass plus trapezoids', () => {
  // 0.2·1000 + 0.4·3000 + 0.1·5000 + 0.3·15000 = 200 + 1200 + 500 + 4500.
  assert.ok(Math.abs(meanSizeBytes({ kind: 'cdf', source: 'x', points: WEB }) - 6400) < 1e-9);
  assert.equal(meanSizeBytes({ kind: 'fixed', sizeBytes: 64 }), 64);
});

test('a usable CDF: non-decreasing, probabilities 0..1, ending at 1', () => {
  assert.equal(cdfProblem(WEB), null);
  assert.match(cdfProblem([])!, /at least one point/);
  assert.match(cdfProblem(WEB.slice(0, 3))!, /probability 1/);
  assert.match(cdfProblem([WEB[1]!, WEB[0]!, WEB[3]!])!, /do not decrease/);
});
