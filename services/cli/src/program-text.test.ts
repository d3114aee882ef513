// How `rocelab run` prints native programs (issue 25), from a synthetic result: a header per program, its output indented.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProgramReport } from '@rocelab/results';
import { assembleResult, exitCodeOf, type NodeFinal } from '@rocelab/runtime';
import { programSection } from './program-text.js';
import { resultText } from './result-text.js';
import { programLine } from './topology.js';

function program(over: Partial<ProgramReport> = {}): ProgramReport {
  return {
    node: 'h1',
    index: 0,
    argv: ['ib_write_bw', '-d', 'rocelab0', '-s', '65536', '10.0.1.2'],
    status: 'exited',
    exitCode: 0,
    signal: null,
    startedPs: 0,
    exitedPs: 1_234_567_000,
    stdout: ' #bytes     #iterations    BW peak[Gb/sec]\n 65536      2000           39.10\n',
    stderr: '',
    log: [],
    unsupported: {},
    error: null,
    ...over,
  };
}

const result = (programs: ProgramReport[]) => {
  const finals: NodeFinal[] = ['h1', 'h2'].map((node) => ({
    node,
    digest: new Uint8Array(32),
    events: 0,
    sent: 0,
    delivered: 0,
    queued: 0,
    dropped: {},
    causalityViolations: 0,
    rssBytes: 0,
    pssBytes: 0,
    results: null,
    report: { node, role: 'host', ports: [], host: null, programs: programs.filter((p) => p.node === node) },
  }));
  return assembleResult(finals, { seed: 1, profile: 'vendor', timing: 'default', mode: 'inproc', workers: 0, durationPs: 2e9, wallMs: 1, startupMs: 1, windows: 0, torOf: {} });
};

test('each program: a header (node, argv, how it ended, when), its stdout indented, stderr only when it printed some', () => {
  const r = result([
    program(),
    program({ node: 'h2', argv: ['ib_write_bw', '-d', 'rocelab0'], exitCode: 1, exitedPs: 2_000_000_000, stdout: 'line\n', stderr: 'Couldn\'t connect to 10.0.1.1:18515\n', unsupported: { mlx5dv_query_device: 2 } }),
  ]);
  assert.deepEqual(programSection(r), [
    '',
    'programs: 2: 2 exited (1 non-zero), 0 killed, 0 failed, 0 running',
    '  h1[0] ib_write_bw -d rocelab0 -s 65536 10.0.1.2: exited 0 at 1.235 ms',
    '     #bytes     #iterations    BW peak[Gb/sec]',
    '     65536      2000           39.10',
    '  h2[0] ib_write_bw -d rocelab0: exited 1 at 2.000 ms',
    '    line',
    '    stderr:',
    "      Couldn't connect to 10.0.1.1:18515",
    '    not supported by rocelab0 (each failed with EOPNOTSUPP): mlx5dv_query_device ×2',
  ]);
  assert.ok(resultText(r).endsWith(`${programSection(r).join('\n')}\n`), 'the programs come last in the summary');
  assert.equal(exitCodeOf(r), 3, 'a program that exited non-zero fails the run');
});

test('a program that could not run, one killed and one still running say so in their header', () => {
  const lines = programSection(
    result([
      program({ status: 'failed', exitCode: null, exitedPs: null, stdout: '', error: 'program nope on h1[0]: not found on PATH' }),
      program({ index: 1, status: 'killed', exitCode: null, signal: 'SIGSEGV', stdout: '' }),
      program({ node: 'h2', status: 'running', exitCode: null, exitedPs: null, stdout: 'waiting\n' }),
    ]),
  );
  assert.deepEqual(lines.slice(1), [
    'programs: 3: 0 exited, 1 killed, 1 failed, 1 running',
    '  h1[0] ib_write_bw -d rocelab0 -s 65536 10.0.1.2: failed: program nope on h1[0]: not found on PATH',
    '  h1[1] ib_write_bw -d rocelab0 -s 65536 10.0.1.2: killed by SIGSEGV at 1.235 ms',
    '  h2[0] ib_write_bw -d rocelab0 -s 65536 10.0.1.2: still running',
    '    waiting',
  ]);
});

test('no programs, no section; a run whose programs all exited 0 exits 0', () => {
  assert.deepEqual(programSection(result([])), []);
  assert.deepEqual(programSection({ programs: undefined as unknown as ProgramReport[] }), [], 'a result from before issue 25');
  assert.equal(exitCodeOf(result([program()])), 0);
});

test('topology validate describes each program as a pasteable command line, expanded, and runs none', () => {
  const line = programLine({ node: 'h1', index: 1, argv: ['/opt/bw', '-d', 'rocelab0', 'it\'s', '10.0.1.2'], env: { MSG: 'a b' }, cwd: '/pods', timeoutMs: 60_000, where: 'nodes[0].programs[1]' });
  assert.equal(line, "program h1[1]: MSG='a b' /opt/bw -d rocelab0 'it'\\''s' 10.0.1.2 (in /pods, timeout 60 s): not run (a program is code: only the commands that run the pod run it)");
});
