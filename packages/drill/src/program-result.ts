/**
 * `programResult` (issue 25): what a host's native program did, read from its report — its exit
 * status, and a number its stdout printed (perftest's bandwidth column, a latency), captured by a
 * regular expression with one group. The number is held to a bound (`op`, `value`), or to the
 * same number in another variant (`value: variant:NAME`), so that "perftest's bandwidth without a
 * watchdog is below that with one" is a drill's expectation.
 */
import { programEnding, programName, type NodeReport, type ProgramReport } from '@rocelab/results';
import type { Expectation } from './drill-file.js';
import type { RatioOperand, VariantData } from './expectations.js';
import { outcome, round } from './outcome.js';
import type { ExpectationOutcome } from './report-model.js';

export type CompareOp = '<' | '<=' | '==' | '>=' | '>';

/** `variant:NAME` (a programResult's `value` naming another variant) → NAME. */
export function variantOfValue(value: string): string {
  return value.slice('variant:'.length);
}

/** The program an expectation names: its node's `index`-th (default its first). */
function programOf(e: Expectation, nodes: readonly NodeReport[] | undefined): ProgramReport | null {
  const node = e.raw.node as string;
  const index = (e.raw.index as number | undefined) ?? 0;
  return nodes?.find((n) => n.node === node)?.programs?.find((p) => p.index === index) ?? null;
}

/** The exit code it must have: `exitCode` if given; 0 when nothing else is asked (no `match`); else unchecked. */
function expectedExit(e: Expectation): number | null {
  if (typeof e.raw.exitCode === 'number') return e.raw.exitCode;
  return e.raw.match === undefined ? 0 : null;
}

/** `match` as a regular expression: `^` and `$` are each line's ends, so a table row is matched as it is printed. */
export function matchRegex(source: string): RegExp {
  return new RegExp(source, 'm');
}

/** How many capture groups `source` has; null when it is not a regular expression. */
export function captureGroups(source: string): number | null {
  try {
    // An alternative that matches the empty string makes every group show up, unmatched.
    return new RegExp(`${source}|`).exec('')!.length - 1;
  } catch {
    return null;
  }
}

/** What was read of a program: what the report shows as measured, the number, or why there is none. */
interface Reading {
  measured: string;
  value: number | null;
  /** Why nothing can be compared (the margin of a failure): no such program, a wrong exit, no match. null: `value` holds. */
  failure: string | null;
}

function read(e: Expectation, v: VariantData): Reading {
  const p = programOf(e, v.result.nodes);
  const index = (e.raw.index as number | undefined) ?? 0;
  if (p === null) {
    const ran = v.result.nodes?.find((n) => n.node === e.raw.node)?.programs?.length ?? 0;
    return { measured: `no program ${e.raw.node}[${index}] reported (${e.raw.node} reported ${ran})`, value: null, failure: 'nothing measured' };
  }
  const name = `${programName(p)} ${programEnding(p)}`;
  const exit = expectedExit(e);
  if (exit !== null && !(p.status === 'exited' && p.exitCode === exit)) return { measured: name, value: p.exitCode, failure: `${programEnding(p)}, not exit ${exit}` };
  const source = e.raw.match as string | undefined;
  if (source === undefined) return { measured: name, value: p.exitCode, failure: null };
  const m = matchRegex(source).exec(p.stdout);
  if (m === null) {
    const last = p.stdout.trimEnd().split('\n').pop() ?? '';
    return { measured: `${name}; no line of its stdout matches /${source}/${last === '' ? ' (it printed nothing)' : ` (its last line: ${JSON.stringify(last.slice(0, 120))})`}`, value: null, failure: 'nothing measured' };
  }
  const captured = m[1];
  const value = captured === undefined || captured.trim() === '' ? NaN : Number(captured);
  if (!Number.isFinite(value)) return { measured: `${name}; /${source}/ captured ${captured === undefined ? 'nothing' : JSON.stringify(captured)}, not a number`, value: null, failure: 'nothing measured' };
  return { measured: `${round(value)} (${name})`, value, failure: null };
}

function holds(x: number, op: CompareOp, y: number): boolean {
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '==' ? x === y : op === '>=' ? x >= y : x > y;
}

/** How far `x` is from the bound `y`, both ways: `3.2 (8.1 %) to spare`, `0.4 (1 %) the wrong side`. */
function margin(x: number, op: CompareOp, y: number, pass: boolean): string {
  const diff = Math.abs(x - y);
  if (op === '==') return pass ? 'exactly' : `${round(diff)} off`;
  if (diff === 0) return pass ? 'exactly at the bound' : 'at the bound, which it must not reach';
  const share = y === 0 ? '' : ` (${round((diff / Math.abs(y)) * 100)} %)`;
  return `${round(diff)}${share} ${pass ? 'to spare' : 'the wrong side'}`;
}

/** The figure an expectation reads, in words. */
function figure(e: Expectation): string {
  const where = `${e.raw.node}[${(e.raw.index as number | undefined) ?? 0}]`;
  return e.raw.match === undefined ? `the program on ${where}` : `the number /${e.raw.match as string}/ captures from the stdout of the program on ${where}`;
}

/** In one variant: the exit status, and the captured number against `value` (or only that a line matched). */
export function programResult(e: Expectation, v: VariantData): ExpectationOutcome {
  const exit = expectedExit(e);
  const op = e.raw.op as CompareOp | undefined;
  const target = e.raw.value as number | undefined;
  const bound = op === undefined || target === undefined ? null : `${op} ${round(target)}`;
  const where = `${e.raw.node}[${(e.raw.index as number | undefined) ?? 0}]`;
  const exits = exit === null ? '' : `, and it exits ${exit}`;
  const what =
    e.raw.match === undefined
      ? `the program on ${where} exits ${exit}`
      : bound === null
        ? `a line of the stdout of the program on ${where} matches /${e.raw.match as string}/${exits}`
        : `${figure(e)} is ${bound}${exits}`;
  const expected = bound ?? (e.raw.match === undefined ? `exit ${exit}` : `a line matching /${e.raw.match as string}/`);
  const r = read(e, v);
  if (r.failure !== null) return outcome(e, v.name, what, false, r.measured, expected, r.failure, r.value);
  if (bound === null) return outcome(e, v.name, what, true, r.measured, expected, 'as expected', r.value);
  const pass = holds(r.value!, op!, target!);
  return outcome(e, v.name, what, pass, r.measured, expected, margin(r.value!, op!, target!, pass), r.value);
}

/** The captured number of one variant, for `value: variant:NAME` (kept as each variant ends, as the ratios' operands are). */
export function programOperand(e: Expectation, v: VariantData): RatioOperand {
  const r = read(e, v);
  return { variant: v.name, value: r.failure === null ? r.value : null, note: r.measured };
}

/** Across variants: the number in `a` (the expectation's variant) against the same number in `b` (its `value`). */
export function programCompared(e: Expectation, a: RatioOperand, b: RatioOperand): ExpectationOutcome {
  const op = e.raw.op as CompareOp;
  const what = `${figure(e)}: in ${a.variant} ${op} in ${b.variant}`;
  if (a.value === null || b.value === null) {
    const why = [a, b].filter((x) => x.value === null).map((x) => `${x.variant}: ${x.note ?? 'nothing read'}`);
    return outcome(e, null, what, false, why.join('; '), `${op} the same figure in ${b.variant}`, 'nothing measured', a.value);
  }
  const pass = holds(a.value, op, b.value);
  return outcome(e, null, what, pass, `${round(a.value)} in ${a.variant} vs ${round(b.value)} in ${b.variant}`, `${op} ${round(b.value)} (${b.variant})`, margin(a.value, op, b.value, pass), a.value);
}
