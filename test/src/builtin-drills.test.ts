/**
 * The drills tier: every built-in drill passes in one process and with one process per node,
 * with the same report numbers (every expectation's measured value and margin, every variant's
 * trace hash, every fault as it applied — what a random form drew included) — the runs are the
 * same runs, whatever the mapping. The chaos drill's draws are pinned: its header describes them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DrillReport } from '@rocelab/drill';
import { cli, ROOT } from './harness.js';

const DRILLS = readdirSync(join(ROOT, 'drills')).filter((f) => f.endsWith('.yaml')).sort();

/** What must not depend on the mode: per variant the hash, the faults and each expectation's numbers. */
function numbers(r: DrillReport) {
  return {
    pass: r.pass,
    variants: r.variants.map((v) => ({
      name: v.name,
      traceHash: v.run.traceHash,
      faults: v.faults.map((f) => [f.id, f.kind, f.target, f.atNs, f.untilNs, f.drawnFrom ?? null]),
      expectations: v.expectations.map((e) => [e.id, e.pass, e.measured, e.margin, e.value]),
    })),
    across: r.acrossVariants.map((e) => [e.id, e.pass, e.measured, e.margin, e.value]),
  };
}

for (const file of DRILLS) {
  test(`drill ${file}: passes inproc and procs with the same numbers`, { timeout: 900_000 }, () => {
    const reports = ['inproc', 'procs'].map((mode) => {
      const out = mkdtempSync(join(tmpdir(), `rocelab-drill-${mode}-`));
      const r = cli(['drill', 'run', join(ROOT, 'drills', file), '--mode', mode, '--out', out, '--json'], {}, 900_000);
      assert.equal(r.status, 0, `${mode}: exit ${r.status}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(-2000)}`);
      return JSON.parse(r.stdout) as DrillReport;
    });
    assert.equal(reports[0]!.pass, true);
    assert.deepEqual(numbers(reports[1]!), numbers(reports[0]!));
    if (file === 'chaos-kill-restart.yaml') chaosDraws(reports[0]!);
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
