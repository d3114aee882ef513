/**
 * The drills tier: every built-in drill passes in one process and with one process per node,
 * with the same report numbers (every expectation's measured value and margin, every variant's
 * trace hash, every fault as it applied — what a random form drew included) — the runs are the
 * same runs, whatever the mapping. The chaos drill's draws are pinned: its header describes them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DrillReport } from '@rocelab/drill';
import { nearestRank, parseTraceFile } from '@rocelab/results';
import { cli, ROOT } from './harness.js';
import { readmeText } from './readme-pages.js';

const DRILLS = readdirSync(join(ROOT, 'drills')).filter((f) => f.endsWith('.yaml')).sort();

/** What must not depend on the mode: per variant the hash, the faults, each expectation's numbers, the incident timeline and the links' states. */
function numbers(r: DrillReport) {
  return {
    pass: r.pass,
    variants: r.variants.map((v) => ({
      name: v.name,
      traceHash: v.run.traceHash,
      faults: v.faults.map((f) => [f.id, f.kind, f.target, f.atNs, f.untilNs, f.drawnFrom ?? null]),
      expectations: v.expectations.map((e) => [e.id, e.pass, e.measured, e.margin, e.value]),
      timeline: v.timeline ?? null,
      links: v.links ?? null,
    })),
    across: r.acrossVariants.map((e) => [e.id, e.pass, e.measured, e.margin, e.value]),
  };
}

for (const file of DRILLS) {
  test(`drill ${file}: passes inproc, in procs and (without native programs) in two threads with the same numbers`, { timeout: 900_000 }, () => {
    const outs: string[] = [];
    // A drill with native programs is compared inproc and in procs only: in two threads it gave
    // the same hash, but once, under CI's load, a program's 60 s wall-clock limit ran out
    // (issue 27's note); that is a pace problem, not a result, and it is not yet understood.
    const threads = readFileSync(join(ROOT, 'drills', file), 'utf8').includes('programs:') ? [] : ([['threads', ['--threads', '2']]] as const);
    const modes = [['inproc', ['--mode', 'inproc']], ['procs', ['--mode', 'procs']], ...threads] as const;
    const reports = modes.map(([mode, args]) => {
      const out = mkdtempSync(join(tmpdir(), `rocelab-drill-${mode}-`));
      outs.push(out);
      const r = cli(['drill', 'run', join(ROOT, 'drills', file), ...args, '--out', out, '--json'], {}, 900_000);
      assert.equal(r.status, 0, `${mode}: exit ${r.status}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(-2000)}`);
      return JSON.parse(r.stdout) as DrillReport;
    });
    assert.equal(reports[0]!.pass, true);
    assert.deepEqual(numbers(reports[1]!), numbers(reports[0]!));
    for (const r of reports.slice(2)) assert.deepEqual(numbers(r), numbers(reports[0]!));
    if (file === 'chaos-kill-restart.yaml') chaosDraws(reports[0]!);
    if (file === 'is-lossless-mandatory.yaml') readmeDesignTable(outs[0]!, reports[0]!);
  });
}

/** chaos-kill-restart with seed 11: spine1 and h4, at the times its header gives; both lose frames. */
function chaosDraws(r: DrillReport): void {
  const [v] = r.variants;
  assert.deepEqual(
    v!.faults.map((f) => [f.target, (f.atNs / 1e6).toFixed(3), (f.untilNs! / 1e6).toFixed(3), f.drawnFrom]),
    [
      ['spine1', '2.275', '3.591', { node: { random: 'switch' }, at: { uniform: ['2ms', '3ms'] }, for: { uniform: ['1ms', '2ms'] } }],
      ['h4', '2.352', '4.419', { node: { random: ['h4', 'h8'] }, at: { uniform: ['2ms', '4ms'] }, for: { uniform: ['2ms', '3ms'] } }],
    ],
  );
  assert.ok(v!.run.droppedByReason.node_lost! > 0 && v!.run.droppedByReason.misdelivered! > 0, JSON.stringify(v!.run.droppedByReason));
}

/**
 * The README's table of the four fabric designs (in its guide docs/beyond-pfc.md, `readme-pages.ts`)
 * says what is-lossless-mandatory measures: per variant, its PFC frames, messages completed and FCT
 * slowdown P50 / P99 (from fct.csv).
 */
function readmeDesignTable(out: string, r: DrillReport): void {
  const readme = readmeText();
  const rows = readme.split('\n').filter((l) => /^\| (PFC \+ go-back-N|no PFC, go-back-N|no PFC, selective repeat|credit flow control)/.test(l));
  assert.equal(rows.length, 4, 'the README has the four designs');
  const variants = ['pfc-gbn', 'lossy-gbn', 'lossy-sr', 'credit-gbn'];
  rows.forEach((row, i) => {
    const v = r.variants.find((x) => x.name === variants[i])!;
    const path = join(out, v.name, 'trace', 'fct.csv');
    const fct = parseTraceFile({ name: 'fct.csv', path, text: readFileSync(path, 'utf8') }).rows;
    const slowdowns = fct.map((f) => f.slowdown ?? Infinity).sort((a, b) => a - b);
    const fmt = (x: number) => (x === Infinity ? '∞' : x.toPrecision(3));
    const cells = row.split('|').map((c) => c.trim());
    assert.equal(cells[2], v.run.pauseFramesSent.toLocaleString('en-US'), `${v.name}: PFC frames`);
    assert.equal(cells[4], `${v.run.flows.completed} of ${v.run.flows.total}`, `${v.name}: messages completed`);
    assert.equal(cells[5], `${fmt(nearestRank(slowdowns, 50)!)} / ${fmt(nearestRank(slowdowns, 99)!)}`, `${v.name}: FCT slowdown P50 / P99`);
  });
}
