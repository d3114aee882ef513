import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareTraces, evaluate, type ComparisonRow } from './compare.js';
import { comparisonJson, formatComparison } from './compare-report.js';
import type { Measurement } from './measurements.js';
import { defaultTolerances } from './tolerance.js';
import type { FctRow, PfcRow, QueueRow, RateRow, TraceTables } from './trace-tables.js';

const TOL = defaultTolerances();
const m = (value: number | null, group: Measurement['group'] = 'fct'): Measurement => ({ group, name: 'x', unit: 'µs', value, none: 'not completed' });
const row = (mine: Measurement | undefined, refs: Array<Measurement | undefined>, tol = 0.1): ComparisonRow => evaluate(m(0), mine, refs, tol);

test('a value inside [min·(1−t), max·(1+t)] passes; above or below fails with the amount', () => {
  const ok = row(m(105), [m(100), m(102)]);
  assert.deepEqual([ok.pass, ok.refMin, ok.refMax, ok.allowedMin, ok.note], [true, 100, 102, 90, '']);
  assert.ok(Math.abs(ok.allowedMax! - 112.2) < 1e-9);
  const high = row(m(138), [m(100), m(100)], 0.125);
  assert.deepEqual([high.pass, high.allowedMax, high.note], [false, 112.5, '+22.7 % above the allowed max (+25.500 µs)']);
  const low = row(m(40), [m(100), m(200)], 0.2);
  assert.deepEqual([low.pass, low.allowedMin, low.note], [false, 80, '-50.0 % below the allowed min (-40.000 µs)']);
  const edge = row(m(90), [m(100)]);
  assert.equal(edge.pass, true, 'the bounds are inside the range');
});

test('a reference of 0 allows only 0; the amount is then absolute', () => {
  const r = evaluate({ ...m(0), group: 'marks', unit: 'count' }, { ...m(3), unit: 'count' }, [{ ...m(0), unit: 'count' }], 0.1);
  assert.deepEqual([r.pass, r.note], [false, '+3 above the allowed max of 0']);
});

test('rows on one side only fail with a note; a row absent from some reference runs says so', () => {
  assert.deepEqual([row(undefined, [m(1), undefined]).pass, row(undefined, [m(1), undefined]).note], [false, 'missing from the run (present in 1 of 2 reference runs)']);
  assert.deepEqual([row(m(1), [undefined, undefined]).pass, row(m(1), [undefined, undefined]).note], [false, 'not in the reference (in none of its 2 runs)']);
  const partly = row(m(1), [m(1), undefined]);
  assert.deepEqual([partly.pass, partly.note], [true, 'absent from 1 of 2 reference runs']);
});

test('no value (not completed): passes when some reference run had none either, fails otherwise', () => {
  assert.deepEqual([row(m(null), [m(null), m(5)]).pass, row(m(null), [m(null), m(5)]).note], [true, 'not completed, as in 1 of 2 reference runs']);
  assert.deepEqual([row(m(null), [m(4), m(5)]).pass, row(m(null), [m(4), m(5)]).note], [false, 'not completed in the run, but in no reference run']);
  assert.deepEqual([row(m(4), [m(null)]).pass, row(m(4), [m(null)]).note], [false, 'the reference has no value: not completed in every run that has this row']);
  assert.deepEqual([row(m(5), [m(null), m(5)]).pass, row(m(5), [m(null), m(5)]).note], [true, 'not completed in 1 of 2 reference runs']);
});

// A small run of every kind, and a reference of two runs made from it.
const rates = (scale: number): RateRow[] =>
  [0, 10, 20, 30].flatMap((t) => [1, 2].map((qp) => ({ run: '', timeUs: t, node: 'h1', qp, flow: `${qp}`, dst: 'h2', rateGbps: 20, targetGbps: 20, alpha: 0.5, ackedBytes: t * 1000, cnps: t / 10, throughputGbps: 20 * scale })));
const queue = (bytes: number[], marks: number): QueueRow[] =>
  bytes.map((b, i) => ({ run: '', timeUs: i, node: 'sw1', port: 'p3', priority: 3, queueBytes: b, thresholdBytes: 0, ingressBytes: 0, headroomBytes: 0, paused: false, pausing: false, ecnMarks: i === bytes.length - 1 ? marks : 0, txPackets: i }));
const pfc = (pauses: number): PfcRow[] => Array.from({ length: pauses }, (_, i) => ({ run: '', timeUs: i * 100, node: 'h1', port: 'p0', priority: 3, event: 'pause', quanta: 65535, pauseUs: 10 }));
const fct = (us: Array<number | null>): FctRow[] => us.map((fctUs, i) => ({ run: '', flow: `${i + 1}`, from: 'h1', to: 'h2', sizeBytes: 1000, startUs: 0, completionUs: fctUs, fctUs, idealFctUs: 1, slowdown: fctUs, status: 'success' }));
const tables = (o: { scale?: number; bytes?: number[]; marks?: number; pauses?: number; fcts?: Array<number | null> } = {}): TraceTables => ({
  'rates.csv': rates(o.scale ?? 1),
  'queue.csv': queue(o.bytes ?? [0, 1000, 2000, 3000], o.marks ?? 10),
  'pfc.csv': pfc(o.pauses ?? 2),
  'fct.csv': fct(o.fcts ?? [10, 20]),
});
const ref = (...runs: TraceTables[]): Map<string, TraceTables> => new Map(runs.map((t, i) => [`seed${i + 1}`, t]));
const failing = (run: TraceTables, reference = ref(tables(), tables())): string[] => compareTraces(run, reference, { tolerances: TOL }).rows.filter((r) => !r.pass).map((r) => `${r.group} ${r.name}: ${r.note}`);

test('a run passes against itself, row by row in group order', () => {
  const c = compareTraces(tables(), ref(tables(), tables()), { tolerances: TOL });
  assert.equal(c.pass, true);
  assert.deepEqual([...new Set(c.rows.map((r) => r.group))], ['fct', 'rate', 'queue', 'pauses', 'marks', 'cnps', 'slowdown']);
  assert.deepEqual(c.rows.map((r) => r.name), ['min', 'mean', 'max', 'flow 1', 'flow 2', 'aggregate', 'h1 qp1 → h2', 'h1 qp2 → h2', 'sw1:p3:3 mean', 'sw1:p3:3 p95', 'sw1:p3:3 max', 'count', 'mean length', 'CE marks', 'CNPs',
    // Two messages of 1000 B: groups of 5 % hold one each, 45-50 % and 95-100 % (HPCC's floor division).
    'bucket 45-50% p50', 'bucket 45-50% p95', 'bucket 45-50% p99', 'bucket 95-100% p50', 'bucket 95-100% p95', 'bucket 95-100% p99']);
  assert.deepEqual(c.window, { startUs: 15, endUs: 30, endInclusive: true });
  assert.deepEqual(c.referenceRuns, ['seed1', 'seed2']);
});

test('each kind of row fails when the run leaves the reference range', () => {
  assert.deepEqual(failing(tables({ fcts: [10, 30] })), [
    'fct mean: +21.2 % above the allowed max (+3.500 µs)',
    'fct max: +36.4 % above the allowed max (+8.000 µs)',
    'fct flow 2: +36.4 % above the allowed max (+8.000 µs)',
    // The fixture's slowdown is its FCT (ideal 1 µs): flow 2's group goes from 20 to 30.
    'slowdown bucket 95-100% p50: +36.4 % above the allowed max (+8)',
    'slowdown bucket 95-100% p95: +36.4 % above the allowed max (+8)',
    'slowdown bucket 95-100% p99: +36.4 % above the allowed max (+8)',
  ]);
  assert.deepEqual(failing(tables({ scale: 0.5 })), ['rate aggregate: -44.4 % below the allowed min (-16.000 Gb/s)', 'rate h1 qp1 → h2: -44.4 % below the allowed min (-8.000 Gb/s)', 'rate h1 qp2 → h2: -44.4 % below the allowed min (-8.000 Gb/s)']);
  assert.deepEqual(failing(tables({ bytes: [0, 1000, 2000, 6000] })), ['queue sw1:p3:3 mean: +36.4 % above the allowed max (+600 B)', 'queue sw1:p3:3 p95: +81.8 % above the allowed max (+2700 B)', 'queue sw1:p3:3 max: +81.8 % above the allowed max (+2700 B)']);
  assert.deepEqual(failing(tables({ pauses: 3 })), ['pauses count: +36.4 % above the allowed max (+0.8)']);
  assert.deepEqual(failing(tables({ marks: 5 })), ['marks CE marks: -44.4 % below the allowed min (-4)']);
  const fewerCnps = tables();
  for (const r of fewerCnps['rates.csv']!) r.cnps = 0;
  assert.deepEqual(failing(fewerCnps), ['cnps CNPs: -100.0 % below the allowed min (-5.4)']);
});

test('the reference range is min to max over its runs: a value between two seeds passes', () => {
  assert.deepEqual(failing(tables({ pauses: 4 }), ref(tables({ pauses: 2 }), tables({ pauses: 6 }))), []);
  assert.deepEqual(failing(tables({ fcts: [15, 20] }), ref(tables({ fcts: [10, 20] }), tables({ fcts: [20, 20] }))), []);
});

test('flows of the run missing from the reference and the other way round fail with a note', () => {
  assert.deepEqual(failing(tables({ fcts: [10, 20, 30] })).filter((f) => f.startsWith('fct flow')), ['fct flow 3: not in the reference (in none of its 2 runs)']);
  assert.deepEqual(failing(tables({ fcts: [10] })).filter((f) => f.startsWith('fct flow')), ['fct flow 2: missing from the run (present in 2 of 2 reference runs)']);
  assert.deepEqual(failing(tables({ fcts: [10, null] })).filter((f) => f.startsWith('fct flow')), ['fct flow 2: not completed in the run, but in no reference run']);
});

test('an explicit window applies to the run and the reference; files of the run only are not compared', () => {
  const run = tables();
  const reference = ref({ 'rates.csv': rates(1) });
  const c = compareTraces(run, reference, { tolerances: TOL, window: { startUs: 0, endUs: 10, endInclusive: false } });
  assert.deepEqual(c.rows.map((r) => `${r.group} ${r.name} ${r.value}`), ['rate aggregate 40', 'rate h1 qp1 → h2 20', 'rate h1 qp2 → h2 20', 'cnps CNPs 6']);
  assert.deepEqual(c.notCompared, ['queue.csv', 'pfc.csv', 'fct.csv']);
  const noRates = compareTraces(run, ref({ 'fct.csv': fct([10, 20]) }), { tolerances: TOL });
  assert.deepEqual([noRates.pass, noRates.window, noRates.notCompared], [true, null, ['rates.csv', 'queue.csv', 'pfc.csv']]);
});

test('the table lists failing rows first and ends with a count; many rows are summarised unless --all', () => {
  const c = compareTraces(tables({ pauses: 3 }), ref(tables(), tables()), { tolerances: TOL });
  const lines = formatComparison(c, { all: false }).trimEnd().split('\n');
  assert.match(lines[0]!, /^\s+GROUP\s+ROW\s+VALUE\s+REF MIN\s+REF MAX\s+ALLOWED\s+NOTE$/);
  assert.match(lines[1]!, /^FAIL {2}pauses +count .* 3 .* 2 .* 2 .* 1\.8–2\.2 {2}\+36\.4 % above the allowed max \(\+0\.8\)$/);
  assert.equal(lines.length, 2 + c.rows.length);
  assert.equal(lines.at(-1), 'FAIL: 1 of 21 rows fail (2 reference runs; tolerance fct 10 %, rate 10 %, queue 10 %, pauses 10 %, marks 10 %, cnps 10 %, slowdown 10 %; rate window [15, 30] µs)');
  const many = tables({ fcts: Array.from({ length: 50 }, (_, i) => i + 1) });
  const big = compareTraces({ ...many, 'fct.csv': fct([...Array.from({ length: 49 }, (_, i) => i + 1), 99]) }, ref(many), { tolerances: TOL });
  const short = formatComparison(big, { all: false }).trimEnd().split('\n');
  // 50 messages make 20 groups of 2 or 3 (60 slowdown rows); the last, slowdowns [48, 49, 99]
  // against [48, 49, 50], fails at p95 and p99 (index ⌊3·0.95⌋ = 2) and passes at p50 (index 1).
  assert.deepEqual(short.slice(5), [
    'passing rows not listed (--all lists them): fct 51, rate 3, queue 3, pauses 2, marks 1, cnps 1, slowdown 58',
    'FAIL: 4 of 123 rows fail (1 reference run; tolerance fct 10 %, rate 10 %, queue 10 %, pauses 10 %, marks 10 %, cnps 10 %, slowdown 10 %; rate window [15, 30] µs)',
  ]);
  assert.deepEqual(big.rows.filter((r) => !r.pass && r.group === 'slowdown').map((r) => r.name), ['bucket 95-100% p95', 'bucket 95-100% p99']);
  assert.equal(formatComparison(big, { all: true }).trimEnd().split('\n').length, 1 + 123 + 1);
});

test('--json is one line with pass and every row', () => {
  const c = compareTraces(tables({ marks: 20 }), ref(tables()), { tolerances: TOL });
  const text = comparisonJson(c);
  assert.ok(!text.includes('\n'));
  const j = JSON.parse(text);
  assert.equal(j.pass, false);
  assert.deepEqual(Object.keys(j.rows[0]), ['group', 'name', 'unit', 'value', 'refMin', 'refMax', 'allowedMin', 'allowedMax', 'pass', 'note']);
  assert.deepEqual(j.rows.find((r: ComparisonRow) => !r.pass), { group: 'marks', name: 'CE marks', unit: 'count', value: 20, refMin: 10, refMax: 10, allowedMin: 9, allowedMax: 11, pass: false, note: '+81.8 % above the allowed max (+9)' });
});
