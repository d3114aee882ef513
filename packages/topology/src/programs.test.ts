// A host's `programs` (issue 25): how they are declared, expanded and carried, and every way a file gets them wrong.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadTopologyFile } from './load.js';
import { DEFAULT_PROGRAM_TIMEOUT_MS, expandNames, type PodNames } from './programs.js';
import { assertProblem } from './testing.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-topology-programs-'));
mkdirSync(join(dir, 'bin'));
mkdirSync(join(dir, 'work'));
writeFileSync(join(dir, 'bin', 'tool'), '#!/bin/sh\nexit 0\n');
chmodSync(join(dir, 'bin', 'tool'), 0o755);
writeFileSync(join(dir, 'bin', 'plain'), 'not executable\n');
chmodSync(join(dir, 'bin', 'plain'), 0o644);

let files = 0;
/** A two-host pod whose h1 (and, with `sw1`, its switch) gets the given keys. */
function pod(h1: string, sw1 = '', h2 = ''): string {
  const file = join(dir, `pod-${files++}.yaml`);
  writeFileSync(
    file,
    `name: programs\nnodes:\n  - {name: h1, role: host, ip: 10.0.1.1${h1}}\n  - {name: h2, role: host, ip: 10.0.1.2${h2}}\n  - {name: sw1, role: tor, subnet: 10.0.1.0/24${sw1}}\nlinks:\n  - {a: h1:p0, b: sw1:p1}\n  - {a: h2:p0, b: sw1:p2}\n`,
  );
  return file;
}

const NAMES: PodNames = { hosts: new Map([['h1', '10.0.1.1'], ['h2', '10.0.1.2']]), nodes: new Set(['h1', 'h2', 'sw1']) };

test('{h2} expands to the host’s address and {h2.name} to its name, anywhere in the text; other braces stay', () => {
  assert.deepEqual(expandNames('{h2}', NAMES), { text: '10.0.1.2' });
  assert.deepEqual(expandNames('--server={h2}:18515,{h1.name}', NAMES), { text: '--server=10.0.1.2:18515,h1' });
  assert.deepEqual(expandNames('{sw1.name}', NAMES), { text: 'sw1' });
  assert.deepEqual(expandNames('{} {1,2} {H2} {"a":1} plain', NAMES), { text: '{} {1,2} {H2} {"a":1} plain' });
  assert.deepEqual(expandNames('{h9}', NAMES), { unexpanded: { placeholder: '{h9}', why: 'unknown' } });
  assert.deepEqual(expandNames('{h1} {h9.name}', NAMES), { unexpanded: { placeholder: '{h9.name}', why: 'unknown' } });
  assert.deepEqual(expandNames('{sw1}', NAMES), { unexpanded: { placeholder: '{sw1}', why: 'switch' } });
});

test('programs are carried in the pod in node order, expanded, with absolute cwd and the default timeout', () => {
  const file = pod(
    ', programs: [{run: [ib_write_bw, -d, rocelab0, "{h2}"], env: {SERVER: "{h2.name}"}}, {run: [bin/tool, x], cwd: work, timeout: 500ms}]',
    '',
    ', programs: [{run: [ib_write_bw, -d, rocelab0]}]',
  );
  const spec = loadTopologyFile(file);
  assert.deepEqual(spec.programs, [
    { node: 'h1', index: 0, argv: ['ib_write_bw', '-d', 'rocelab0', '10.0.1.2'], env: { SERVER: 'h2' }, cwd: dir, timeoutMs: DEFAULT_PROGRAM_TIMEOUT_MS, where: 'nodes[0].programs[0]' },
    { node: 'h1', index: 1, argv: [join(dir, 'bin', 'tool'), 'x'], env: {}, cwd: join(dir, 'work'), timeoutMs: 500, where: 'nodes[0].programs[1]' },
    { node: 'h2', index: 0, argv: ['ib_write_bw', '-d', 'rocelab0'], env: {}, cwd: dir, timeoutMs: 60_000, where: 'nodes[1].programs[0]' },
  ]);
  assert.deepEqual(spec.nodes.find((n) => n.name === 'h1')!.config, {}, 'programs are not a contributed key of the node');
  assert.deepEqual(loadTopologyFile(pod('')).programs, [], 'a pod without programs has none');
  assert.deepEqual(loadTopologyFile(pod(', programs: []')).programs, [], 'an empty list is none (a drill variant may clear them)');
});

test('an unknown name in {…} is a reference problem at the argument, naming the pod’s hosts', () => {
  const file = pod(', programs: [{run: [ib_write_bw, "{h9}"]}]');
  assertProblem(() => loadTopologyFile(file), { file, code: 'reference', path: 'nodes[0].programs[0].run[1]', expected: "{HOST} (a host's address) or {NODE.name} naming a node of the topology (hosts: h1, h2)", actual: '"{h9}": no node is named h9' });
  const env = pod(', programs: [{run: [x], env: {PEER: "{h9.name}"}}]');
  assertProblem(() => loadTopologyFile(env), { file: env, code: 'reference', path: 'nodes[0].programs[0].env.PEER', expected: '{NODE.name}', actual: 'no node is named h9' });
  const sw = pod(', programs: [{run: [x, "{sw1}"]}]');
  assertProblem(() => loadTopologyFile(sw), { file: sw, code: 'reference', path: 'nodes[0].programs[0].run[1]', expected: '{HOST}', actual: 'sw1 is a switch, which has no address ({sw1.name} is its name)' });
});

test('an empty run, a non-string argument, an unknown key or a bad env value is a schema problem naming what a program is', () => {
  const empty = pod(', programs: [{run: []}]');
  assertProblem(() => loadTopologyFile(empty), { file: empty, code: 'schema', path: 'nodes[0].programs[0].run', expected: 'a command line [program, args...]' });
  const number = pod(', programs: [{run: [ib_write_bw, -s, 65536]}]');
  assertProblem(() => loadTopologyFile(number), { file: number, code: 'schema', path: 'nodes[0].programs[0].run[2]', expected: 'an argument, a string', actual: '65536' });
  const missing = pod(', programs: [{env: {A: b}}]');
  assertProblem(() => loadTopologyFile(missing), { file: missing, code: 'schema', path: 'nodes[0].programs[0].run', expected: 'a command line' });
  const unknown = pod(', programs: [{run: [x], args: [y]}]');
  assertProblem(() => loadTopologyFile(unknown), { file: unknown, code: 'schema', path: 'nodes[0].programs[0].args', expected: 'one of the keys run, env, cwd, timeout', actual: 'unknown key "args"' });
  const envValue = pod(', programs: [{run: [x], env: {N: 1}}]');
  assertProblem(() => loadTopologyFile(envValue), { file: envValue, code: 'schema', path: 'nodes[0].programs[0].env.N', expected: 'a string' });
  const notList = pod(', programs: {run: [x]}');
  assertProblem(() => loadTopologyFile(notList), { file: notList, code: 'schema', path: 'nodes[0].programs', expected: 'a list of native programs' });
});

test('env may not set what puts the device in place or keeps the program sandboxed: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, ROCELAB_*', () => {
  for (const key of ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'ROCELAB_POD_TOKEN_FILE', 'ROCELAB_CHANNEL_FD', 'ROCELAB_PID']) {
    const file = pod(`, programs: [{run: [x], env: {${key}: y}}]`);
    assertProblem(() => loadTopologyFile(file), { file, code: 'value', path: `nodes[0].programs[0].env.${key}`, expected: "a variable of the program's own", actual: `${key}, which a topology may not set` });
  }
  const fine = pod(', programs: [{run: [x], env: {LD_BIND_NOW: "1", ROCELABX: y}}]');
  assert.deepEqual(loadTopologyFile(fine).programs[0]!.env, { LD_BIND_NOW: '1', ROCELABX: 'y' });
});

test('an empty program name, a bad env name, a bad timeout are value problems at their key', () => {
  const blank = pod(', programs: [{run: [""]}]');
  assertProblem(() => loadTopologyFile(blank), { file: blank, code: 'value', path: 'nodes[0].programs[0].run[0]', expected: 'a program: a name found on PATH', actual: '""' });
  const name = pod(', programs: [{run: [x], env: {"1BAD": y}}]');
  assertProblem(() => loadTopologyFile(name), { file: name, code: 'value', path: 'nodes[0].programs[0].env', expected: 'environment variable names', actual: '"1BAD"' });
  const unit = pod(', programs: [{run: [x], timeout: 60}]');
  assertProblem(() => loadTopologyFile(unit), { file: unit, code: 'schema', path: 'nodes[0].programs[0].timeout', expected: 'a wall-clock duration like 60s' });
  const form = pod(', programs: [{run: [x], timeout: soon}]');
  assertProblem(() => loadTopologyFile(form), { file: form, code: 'value', path: 'nodes[0].programs[0].timeout', expected: 'a duration like', actual: '"soon"' });
  const long = pod(', programs: [{run: [x], timeout: 7200s}]');
  assertProblem(() => loadTopologyFile(long), { file: long, code: 'value', path: 'nodes[0].programs[0].timeout', expected: 'a wall-clock timeout of 1ms..1h', actual: '"7200s"' });
  const short = pod(', programs: [{run: [x], timeout: 10us}]');
  assertProblem(() => loadTopologyFile(short), { file: short, code: 'value', path: 'nodes[0].programs[0].timeout', expected: 'a wall-clock timeout of 1ms..1h', actual: '"10us"' });
});

test('a program given by path must be an executable file; a cwd must be a directory', () => {
  const missing = pod(', programs: [{run: [./bin/nothing]}]');
  assertProblem(() => loadTopologyFile(missing), { file: missing, code: 'value', path: 'nodes[0].programs[0].run[0]', expected: 'an executable file (a path relative to the topology file), or a program name found on PATH', actual: `"./bin/nothing": ${join(dir, 'bin', 'nothing')}: no such file` });
  const plain = pod(', programs: [{run: [bin/plain]}]');
  assertProblem(() => loadTopologyFile(plain), { file: plain, code: 'value', path: 'nodes[0].programs[0].run[0]', expected: 'an executable file', actual: 'not executable' });
  const folder = pod(', programs: [{run: [./bin]}]');
  assertProblem(() => loadTopologyFile(folder), { file: folder, code: 'value', path: 'nodes[0].programs[0].run[0]', expected: 'an executable file', actual: 'is not a regular file' });
  const cwd = pod(', programs: [{run: [x], cwd: nowhere}]');
  assertProblem(() => loadTopologyFile(cwd), { file: cwd, code: 'value', path: 'nodes[0].programs[0].cwd', expected: 'a directory (relative to the topology file)', actual: `"nowhere": ${join(dir, 'nowhere')} is not a directory` });
});

test('programs on a switch, and programs beside an app, are refused at the node’s programs', () => {
  const sw = pod('', ', programs: [{run: [x]}]');
  assertProblem(() => loadTopologyFile(sw), { file: sw, code: 'value', path: 'nodes[2].programs', expected: 'programs on a host only', actual: 'programs on sw1, a tor' });
  writeFileSync(join(dir, 'ok.mjs'), 'export default async (rdma) => rdma.log("hi");\n');
  const both = pod(', app: {module: ok.mjs}, programs: [{run: [x]}]');
  assertProblem(() => loadTopologyFile(both), { file: both, code: 'value', path: 'nodes[0].programs', expected: 'either app or programs on a host, not both', actual: 'both on h1' });
});
