import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResultsError } from './errors.js';
import { defaultTolerances, formatTolerances, parseTolerances, TOLERANCE_FORM } from './tolerance.js';

test('10 % for every key by default; named keys override', () => {
  assert.deepEqual(defaultTolerances(), { fct: 0.1, rate: 0.1, queue: 0.1, pauses: 0.1, marks: 0.1, cnps: 0.1, slowdown: 0.1 });
  assert.deepEqual(parseTolerances('fct=10%,pauses=25%'), { fct: 0.1, rate: 0.1, queue: 0.1, pauses: 0.25, marks: 0.1, cnps: 0.1, slowdown: 0.1 });
  assert.deepEqual(parseTolerances(' rate = 2.5% , queue=0%'), { fct: 0.1, rate: 0.025, queue: 0, pauses: 0.1, marks: 0.1, cnps: 0.1, slowdown: 0.1 });
});

test('all= sets every key not named on its own, wherever it stands', () => {
  assert.deepEqual(parseTolerances('fct=20%,all=5%'), { fct: 0.2, rate: 0.05, queue: 0.05, pauses: 0.05, marks: 0.05, cnps: 0.05, slowdown: 0.05 });
  assert.equal(formatTolerances(parseTolerances('all=5%,cnps=50%')), 'fct 5 %, rate 5 %, queue 5 %, pauses 5 %, marks 5 %, cnps 50 %, slowdown 5 %');
});

test('a bad key, a value without %, a negative value, an empty item or a key twice is an error with the expected form', () => {
  const cases: Array<[string, string]> = [
    ['latency=5%', 'the key "latency" in "latency=5%"'],
    ['fct=10', '"fct=10"'],
    ['fct=-1%', '"fct=-1%"'],
    ['fct=10%,', '""'],
    ['fct=1%,fct=2%', '"fct" twice'],
  ];
  for (const [text, got] of cases) {
    assert.throws(() => parseTolerances(text), (err: unknown) => {
      assert.ok(err instanceof ResultsError);
      assert.equal(err.code, 'tolerance');
      assert.equal(err.message, `--tolerance: expected ${TOLERANCE_FORM}, got ${got}`);
      return true;
    });
  }
  assert.match(TOLERANCE_FORM, /KEY one of fct, rate, queue, pauses, marks, cnps, slowdown, all/);
});
