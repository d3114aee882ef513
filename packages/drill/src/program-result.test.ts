/**
 * programResult (issue 25): a native program's exit status and a number captured from its
 * stdout, against a bound or the same number in another variant; what a drill file may say.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeReport, ProgramReport } from '@rocelab/results';
import { parseTopology } from '@rocelab/topology';
import { DrillError, loadDrill, type Expectation } from './drill-file.js';
import { comparedVariants, evaluate, isAcrossVariants, ratioOperand, ratioOutcome, type VariantData } from './expectations.js';
import { captureGroups } from './program-result.js';

const POD = parseTopology(`name: p
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1, programs: [{run: [ib_write_bw, "{h2}"]}]}
  - {name: h2, role: host, ip: 10.0.1.2, programs: [{run: [ib_write_bw]}, {run: [sleep, "1"]}]}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
`);

/** perftest's ib_write_bw table, with the bandwidth averaged over the run in the fourth column. */
const perftest = (avgGbps: string) =>
  '---------------------------------------------------------------------------------------\n' +
  ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n' +
  ` 65536      2000             39.21              ${avgGbps}               0.074\n` +
  '---------------------------------------------------------------------------------------\n';
const BW = '^\\s*65536\\s+\\d+\\s+[\\d.]+\\s+([\\d.]+)';

function program(over: Partial<ProgramReport> = {}): ProgramReport {
  return { node: 'h1', index: 0, argv: ['ib_write_bw', '10.0.1.2'], status: 'exited', exitCode: 0, signal: null, startedPs: 0, exitedPs: 3e9, stdout: perftest('37.85'), stderr: '', log: [], unsupported: {}, error: null, ...over };
}

function variant(name: string, programs: ProgramReport[]): VariantData {
  const nodes = ['h1', 'h2'].map((node) => ({ node, role: 'host', ports: [], host: null, programs: programs.filter((p) => p.node === node) }) as NodeReport);
  return { name, pod: POD, result: { conservation: true, causalityViolations: 0, packets: { sent: 0, delivered: 0, dropped: 0, queued: 0 }, summary: { portTotals: { losslessDrops: 0 } }, nodes }, tables: {}, traceOriginPs: 0, durationPs: 10e9 };
}

const expect = (raw: Record<string, unknown>): Expectation => ({ id: 'expect[0]', kind: 'programResult', variant: (raw.variant as string) ?? null, description: null, why: null, raw: { kind: 'programResult', ...raw } });
const check = (raw: Record<string, unknown>, v: VariantData | VariantData[]) => evaluate([expect(raw)], Array.isArray(v) ? v : [v])[0]!;

test('the exit status alone: 0 when nothing else is asked; a crash, a signal or another code fails, saying how it ended', () => {
  const ok = check({ node: 'h1' }, variant('a', [program()]));
  assert.deepEqual([ok.pass, ok.description, ok.measured, ok.expected, ok.margin, ok.value], [true, 'the program on h1[0] exits 0', 'program ib_write_bw on h1[0] exited 0', 'exit 0', 'as expected', 0]);
  const one = check({ node: 'h1' }, variant('a', [program({ exitCode: 1 })]));
  assert.deepEqual([one.pass, one.measured, one.margin], [false, 'program ib_write_bw on h1[0] exited 1', 'exited 1, not exit 0']);
  assert.equal(check({ node: 'h1', exitCode: 1 }, variant('a', [program({ exitCode: 1 })])).pass, true);
  const killed = check({ node: 'h1' }, variant('a', [program({ status: 'killed', exitCode: null, signal: 'SIGSEGV' })]));
  assert.deepEqual([killed.pass, killed.margin], [false, 'killed by SIGSEGV, not exit 0']);
  const failed = check({ node: 'h1' }, variant('a', [program({ status: 'failed', exitCode: null, error: 'program ib_write_bw on h1[0]: blocked 60 s in wall-clock time without waiting (timeout)' })]));
  assert.match(failed.margin, /^failed: program ib_write_bw on h1\[0\]: blocked 60 s/);
  const none = check({ node: 'h2', index: 1 }, variant('a', [program()]));
  assert.deepEqual([none.pass, none.measured, none.margin], [false, 'no program h2[1] reported (h2 reported 0)', 'nothing measured']);
});

test('a number from perftest’s table against a bound: pass and fail with the margin, absolute and relative', () => {
  const v = variant('a', [program()]);
  const below = check({ node: 'h1', match: BW, op: '<', value: 40 }, v);
  assert.deepEqual([below.pass, below.value, below.measured, below.expected, below.margin], [true, 37.85, '37.85 (program ib_write_bw on h1[0] exited 0)', '< 40', '2.15 (5.375 %) to spare']);
  assert.equal(below.description, `the number /${BW}/ captures from the stdout of the program on h1[0] is < 40`);
  const above = check({ node: 'h1', match: BW, op: '>=', value: 38 }, v);
  assert.deepEqual([above.pass, above.margin], [false, '0.15 (0.3947 %) the wrong side']);
  assert.deepEqual([check({ node: 'h1', match: BW, op: '==', value: 37.85 }, v).margin, check({ node: 'h1', match: BW, op: '==', value: 37 }, v).margin], ['exactly', '0.85 off']);
  assert.equal(check({ node: 'h1', match: BW, op: '<=', value: 37.85 }, v).margin, 'exactly at the bound');
  assert.equal(check({ node: 'h1', match: BW, op: '<', value: 37.85 }, v).margin, 'at the bound, which it must not reach');
  const matched = check({ node: 'h1', match: BW }, v);
  assert.deepEqual([matched.pass, matched.expected, matched.value], [true, `a line matching /${BW}/`, 37.85]);
});

test('with match, the exit code is checked only when given; no match, or a capture that is no number, says what the output was', () => {
  assert.equal(check({ node: 'h1', match: BW, op: '>', value: 1 }, variant('a', [program({ exitCode: 2 })])).pass, true);
  const exits = check({ node: 'h1', match: BW, op: '>', value: 1, exitCode: 0 }, variant('a', [program({ exitCode: 2 })]));
  assert.deepEqual([exits.pass, exits.margin], [false, 'exited 2, not exit 0']);
  assert.match(exits.description, /is > 1, and it exits 0$/);
  const nothing = check({ node: 'h1', match: BW, op: '>', value: 1 }, variant('a', [program({ stdout: ' Couldn\'t connect to 10.0.1.2:18515\n' })]));
  assert.deepEqual([nothing.pass, nothing.margin], [false, 'nothing measured']);
  assert.match(nothing.measured, /no line of its stdout matches \/.*\/ \(its last line: " Couldn't connect to 10\.0\.1\.2:18515"\)$/);
  assert.match(check({ node: 'h1', match: BW }, variant('a', [program({ stdout: '' })])).measured, /\(it printed nothing\)$/);
  const word = check({ node: 'h1', match: '#bytes\\s+(\\S+)' }, variant('a', [program()]));
  assert.deepEqual([word.pass, word.margin], [false, 'nothing measured']);
  assert.match(word.measured, /captured "#iterations", not a number$/);
});

test('variant:NAME compares with the same number in another variant: bandwidth without a watchdog below that with one', () => {
  const without = variant('no-watchdog', [program({ stdout: perftest('12.40') })]);
  const withWd = variant('watchdog', [program({ stdout: perftest('35.10') })]);
  const e = expect({ node: 'h1', match: BW, op: '<', value: 'variant:watchdog', variant: 'no-watchdog' });
  assert.equal(isAcrossVariants(e), true);
  assert.deepEqual(comparedVariants(e), ['no-watchdog', 'watchdog']);
  const o = evaluate([e], [without, withWd])[0]!;
  assert.deepEqual([o.pass, o.variant, o.measured, o.expected, o.margin, o.value], [true, null, '12.4 in no-watchdog vs 35.1 in watchdog', '< 35.1 (watchdog)', '22.7 (64.672 %) to spare', 12.4]);
  assert.equal(o.description, `the number /${BW}/ captures from the stdout of the program on h1[0]: in no-watchdog < in watchdog`);
  // The runner keeps only each variant's operand (memory flat across variants): the same outcome from them.
  assert.deepEqual(ratioOutcome(e, ratioOperand(e, without), ratioOperand(e, withWd)), o);
  const wrong = evaluate([expect({ node: 'h1', match: BW, op: '>', value: 'variant:watchdog', variant: 'no-watchdog' })], [without, withWd])[0]!;
  assert.deepEqual([wrong.pass, wrong.margin], [false, '22.7 (64.672 %) the wrong side']);
  const crashed = evaluate([e], [variant('no-watchdog', [program({ status: 'killed', exitCode: null, signal: 'SIGBUS', stdout: '' })]), withWd])[0]!;
  assert.deepEqual([crashed.pass, crashed.margin], [false, 'nothing measured']);
  assert.equal(crashed.measured, 'no-watchdog: program ib_write_bw on h1[0] killed by SIGBUS; no line of its stdout matches /' + BW + '/ (it printed nothing)');
  assert.equal(isAcrossVariants(expect({ node: 'h1', match: BW, op: '<', value: 40 })), false);
});

test('captureGroups counts a regex’s groups, or says it is none', () => {
  assert.deepEqual([captureGroups(BW), captureGroups('(a)(b)'), captureGroups('(?:a)b'), captureGroups('(unclosed')], [1, 2, 0, null]);
});

const DRILL_TOPOLOGY = `name: pair
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1, programs: [{run: [ib_write_bw, "{h2}"]}]}
  - {name: h2, role: host, ip: 10.0.1.2}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
`;
const drillWith = (item: string) => `title: t
topology: pair.yaml
duration: 1ms
variants:
  - {name: a}
  - {name: b}
expect:
  - ${item}
`;
function problems(item: string): string {
  try {
    loadDrill(drillWith(item), '/d/drill.yaml', { readText: () => DRILL_TOPOLOGY });
  } catch (err) {
    assert.ok(err instanceof DrillError, String(err));
    return err.message;
  }
  return '';
}

test('a drill file’s programResult: a host with programs, a usable regex, op with value, variant:NAME of this drill', () => {
  assert.equal(problems(`{kind: programResult, node: h1, match: '${BW}', op: '<', value: 'variant:b', variant: a, why: perftest prints its average bandwidth}`), '');
  assert.equal(problems('{kind: programResult, node: h1}'), '');
  assert.match(problems('{kind: programResult, node: h2}'), /drill\.yaml: expect\[0\]\.node: expected a host that runs programs \(h1\), got "h2"/);
  assert.match(problems('{kind: programResult, node: h1, index: 1}'), /expect\[0\]\.index: expected a program of h1 \(0\.\.0\), got 1/);
  assert.match(problems("{kind: programResult, node: h1, match: '(a)(b)'}"), /expect\[0\]\.match: expected a regular expression with exactly one capture group: the number to read, got "\(a\)\(b\) \(2 groups\)"/);
  assert.match(problems("{kind: programResult, node: h1, match: '(a'}"), /expect\[0\]\.match: expected a regular expression \(JavaScript syntax\) with one capture group, got "\(a"/);
  assert.match(problems("{kind: programResult, node: h1, match: '(\\d+)', op: '<'}"), /expect\[0\]\.op: expected op and value together/);
  assert.match(problems("{kind: programResult, node: h1, op: '<', value: 3}"), /expect\[0\]\.op: expected a bound only with match/);
  assert.match(problems("{kind: programResult, node: h1, match: '(\\d+)', op: '<', value: 'variant:c', variant: a}"), /expect\[0\]\.value: expected variant:NAME naming a variant of this drill \(a, b\), got "variant:c"/);
  assert.match(problems("{kind: programResult, node: h1, match: '(\\d+)', op: '<', value: 'variant:b'}"), /expect\[0\]\.value: expected variant: set too, to the variant whose figure is compared with b's/);
  assert.match(problems("{kind: programResult, node: h1, match: '(\\d+)', op: '<', value: 'variant:a', variant: a}"), /expect\[0\]\.value: expected another variant than the expectation's own \(a\)/);
  assert.match(problems("{kind: programResult, node: h1, match: '(\\d+)', op: '<', value: 'fast'}"), /expect\[0\]\.value: expected a number, or variant:NAME/);
  assert.match(problems('{kind: programResult, node: h1, exitCode: 300}'), /expect\[0\]\.exitCode: expected the exit code it must exit with, an integer 0\.\.255/);
  assert.match(problems('{kind: programResult}'), /expect\[0\]\.node: expected/);
});
