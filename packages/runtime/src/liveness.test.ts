import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchWatchdog, DEFAULT_HANG_TIMEOUT_MS, LivenessConfigError, SilenceWatch, countedMs, hangTimeoutFromEnv } from './liveness.js';

test('a silent peer is declared hung after the limit of the observer running on time, not before', () => {
  const w = new SilenceWatch(10_000, 2_000, 0);
  const checks = [2_000, 4_000, 6_000, 8_000];
  for (const t of checks) assert.equal(w.check(t), false, `at ${t} ms`);
  assert.equal(w.check(10_000), true, '10 s of silence while checking every 2 s');
  assert.equal(w.silenceMs, 10_000);
});

test('an answer starts the silence over', () => {
  const w = new SilenceWatch(10_000, 2_000, 0);
  for (let t = 2_000; t <= 8_000; t += 2_000) w.check(t);
  w.heard(9_000);
  assert.equal(w.check(10_000), false);
  assert.equal(w.silenceMs, 1_000, 'counted from the answer');
  for (let t = 12_000; t < 19_000; t += 2_000) assert.equal(w.check(t), false);
  assert.equal(w.check(19_000), true, '10 s after the answer');
});

test('the observer stopped or starved (a late check) counts at most 1.5 intervals: its own stall is not the peer\'s silence', () => {
  const w = new SilenceWatch(10_000, 2_000, 0);
  // This process was stopped for 3 minutes: one check, 180 s late.
  assert.equal(w.check(180_000), false);
  assert.equal(w.silenceMs, 3_000);
  // A loaded machine: checks every 5 s instead of 2 s count 3 s each.
  assert.equal(w.check(185_000), false);
  assert.equal(w.check(190_000), false);
  assert.equal(w.check(195_000), true, '3 + 3 + 3 + 3 s');
  assert.equal(countedMs(1_900, 2_000), 1_900);
  assert.equal(countedMs(-5, 2_000), 0, 'a clock that went back counts nothing');
});

test('a member stuck awaiting batches for the limit gives up; progress or another phase restarts the count', () => {
  const w = new BatchWatchdog(60_000, 0);
  assert.equal(w.checkEveryMs, 2_000);
  let t = 0;
  const run = (until: number, awaiting: boolean): boolean => {
    let expired = false;
    for (; t < until; ) {
      t += 2_000;
      expired = w.expired(t, awaiting);
      if (expired) break;
    }
    return expired;
  };
  assert.equal(run(60_000, true), false, 'the first look starts the count');
  assert.equal(run(62_000, true), true, '60 s awaiting since the first look');
  w.onProgress();
  assert.equal(w.expired((t += 2_000), true), false, 'a batch arrived');
  assert.equal(run(t + 58_000, true), false);
  assert.equal(run(t + 2_000, true), true);
  assert.equal(w.expired((t += 100_000), false), false, 'waiting for a grant is the controller pacing, not a stall');
  assert.equal(run(t + 58_000, true), false, 'the count started again at that look');
  assert.equal(run(t + 2_000, true), true);
});

test('a member stopped for minutes while awaiting a neighbour does not count its own stop', () => {
  const w = new BatchWatchdog(60_000, 0);
  assert.equal(w.expired(2_000, true), false);
  assert.equal(w.expired(182_000, true), false, 'stopped 3 minutes: one late check');
});

test('ROCELAB_HANG_TIMEOUT_MS: the default, a value, and what is refused', () => {
  assert.equal(hangTimeoutFromEnv({}), DEFAULT_HANG_TIMEOUT_MS);
  assert.equal(DEFAULT_HANG_TIMEOUT_MS, 300_000);
  assert.equal(hangTimeoutFromEnv({ ROCELAB_HANG_TIMEOUT_MS: '' }), DEFAULT_HANG_TIMEOUT_MS);
  assert.equal(hangTimeoutFromEnv({ ROCELAB_HANG_TIMEOUT_MS: '15000' }), 15_000);
  for (const bad of ['abc', '-1', '1.5', '3999']) {
    assert.throws(() => hangTimeoutFromEnv({ ROCELAB_HANG_TIMEOUT_MS: bad }), (err: unknown) => err instanceof LivenessConfigError && /expected a whole number of milliseconds, at least 4000/.test(err.message));
  }
});
