/**
 * The native programs' reports (issue 25) from a host's node report to the run result: they
 * travel in the node's report (checked against its schema), are gathered in node order, and a
 * program that failed, was killed or exited non-zero makes the run exit 3 with a line naming it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outputTail, programEnding, programFailed, type NodeReport, type ProgramReport } from '@rocelab/results';
import { fromWireNode, ReportPayloadError, toWireNode } from './report-wire.js';
import { APP_FAILED_EXIT, assembleResult, exitCodeOf, failedPrograms, failedProgramsText, type NodeFinal, type RunMeta } from './result.js';

function program(over: Partial<ProgramReport> = {}): ProgramReport {
  return {
    node: 'h1',
    index: 0,
    argv: ['/usr/bin/ib_write_bw', '-d', 'rocelab0', '10.0.1.2'],
    status: 'exited',
    exitCode: 0,
    signal: null,
    startedPs: 0,
    exitedPs: 1_500_000_000,
    stdout: ' #bytes #iterations BW peak[Gb/sec]\n 65536 2000 39.10\n',
    stderr: '',
    log: ['ibv_open_device rocelab0'],
    unsupported: { mlx5dv_query_device: 1 },
    error: null,
    ...over,
  };
}

function final(node: string, programs?: ProgramReport[]): NodeFinal {
  const report: NodeReport = { node, role: 'host', ports: [], host: null, ...(programs === undefined ? {} : { programs }) };
  return { node, digest: new Uint8Array(32), events: 0, sent: 0, delivered: 0, queued: 0, dropped: {}, causalityViolations: 0, rssBytes: 0, pssBytes: 0, results: null, report };
}

const META: RunMeta = { seed: 1, profile: 'vendor', timing: 'default', mode: 'inproc', workers: 0, durationPs: 2e9, wallMs: 1, startupMs: 1, windows: 0, torOf: {} };

test('a node report with programs travels through the wire and its schema unchanged; a bad one is refused naming the field', () => {
  const f = final('h1', [program(), program({ index: 1, status: 'killed', exitCode: null, signal: 'SIGSEGV' }), program({ index: 2, status: 'running', exitedPs: null, exitCode: null })]);
  assert.deepEqual(fromWireNode(toWireNode(f, true)), f);
  const bad = final('h1', [{ ...program(), status: 'crashed' as ProgramReport['status'] }]);
  assert.throws(() => fromWireNode(toWireNode(bad, true)), (err: unknown) => err instanceof ReportPayloadError && /node h1: stats\.reportJson\.programs\[0\]\.status: expected one of "running", "exited", "killed", "failed"/.test(err.message));
  const extra = final('h1', [{ ...program(), pid: 42 } as ProgramReport]);
  assert.throws(() => fromWireNode(toWireNode(extra, true)), /programs\[0\]\.pid: expected one of the keys node, index, argv, status, .*got unknown key "pid"/);
});

test('the run result gathers every host’s programs in node order; none without any', () => {
  const a = program({ node: 'h1' });
  const b = program({ node: 'h2', index: 0 });
  const c = program({ node: 'h2', index: 1 });
  const result = assembleResult([final('h1', [a]), final('h2', [b, c]), final('sw1')], META);
  assert.deepEqual(result.programs, [a, b, c]);
  assert.deepEqual(assembleResult([final('h1'), final('sw1')], META).programs, []);
  assert.equal(exitCodeOf(result), 0);
});

test('a program that failed, was killed or exited non-zero fails the run (exit 3); one still running does not', () => {
  const cases: Array<[ProgramReport, boolean, string]> = [
    [program(), false, 'exited 0'],
    [program({ exitCode: 1 }), true, 'exited 1'],
    [program({ status: 'killed', exitCode: null, signal: 'SIGSEGV' }), true, 'killed by SIGSEGV'],
    [program({ status: 'failed', exitCode: null, exitedPs: null, error: 'program nope on h1[0]: not found on PATH' }), true, 'failed: program nope on h1[0]: not found on PATH'],
    [program({ status: 'running', exitCode: null, exitedPs: null }), false, 'still running'],
  ];
  for (const [p, failed, ending] of cases) {
    assert.equal(programFailed(p), failed, ending);
    assert.equal(programEnding(p), ending);
    const result = assembleResult([final('h1', [p])], META);
    assert.equal(exitCodeOf(result), failed ? APP_FAILED_EXIT : 0, ending);
    assert.equal(failedPrograms(result).length, failed ? 1 : 0);
  }
});

test('failedProgramsText names each failed program, how it ended and when, then the exit code', () => {
  const result = assembleResult([final('h1', [program({ exitCode: 1 }), program({ index: 1 })]), final('h2', [program({ node: 'h2', status: 'killed', exitCode: null, signal: 'SIGABRT', exitedPs: 2_000_000 })])], META);
  assert.equal(
    failedProgramsText('rocelab run', result),
    'rocelab run: program ib_write_bw on h1[0] exited 1 (at 1500.000 us)\n' +
      'rocelab run: program ib_write_bw on h2[0] killed by SIGABRT (at 2.000 us)\n' +
      'rocelab run: 2 programs failed or exited non-zero, so the run exits 3\n',
  );
  assert.equal(failedProgramsText('rocelab run', assembleResult([final('h1', [program()])], META)), '');
  assert.equal(failedProgramsText('rocelab run', { programs: undefined as unknown as ProgramReport[] }), '', 'a result from before issue 25 has no programs');
  const many = assembleResult([final('h1', Array.from({ length: 12 }, (_, index) => program({ index, exitCode: 2 })))], META);
  const lines = failedProgramsText('rocelab up', many).trimEnd().split('\n');
  assert.equal(lines.length, 12);
  assert.equal(lines[10], 'rocelab up: and 2 more programs failed (the result lists them)');
});

test('outputTail keeps the last 64 KiB of a program’s output, cut at a character boundary', () => {
  assert.equal(outputTail('short'), 'short');
  const long = `${'x'.repeat(70 * 1024)}end`;
  assert.equal(outputTail(long).length, 64 * 1024);
  assert.ok(outputTail(long).endsWith('end'));
  assert.equal(outputTail('aé', 1), '', 'half a character is no character');
  assert.equal(outputTail('aéb', 3), 'éb');
});
