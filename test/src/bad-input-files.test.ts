/**
 * The bad drill and topology files fuzzing found (issue 22, part 4), through the CLI as a user
 * meets them: each is a located error (file, and line or path) with exit 2 (docs/errors.md),
 * found before anything runs, never a crash (exit 1) or a read without end.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { MAX_DRILL_VARIANTS } from '@rocelab/drill';
import { cli } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-bad-input-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const drill = (topology: string, rest = ''): string => `title: x\nsource: y\nduration: 1ms\ntopology: ${topology}\n${rest}expect:\n  - {kind: noLosslessDrops}\n`;

function refused(args: string[], message: RegExp): void {
  const r = cli(args, {}, 60_000);
  assert.equal(r.status, 2, `${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  assert.match(r.stderr, message, args.join(' '));
  assert.doesNotMatch(r.stderr, /circular structure|at .*\.js:\d+/, 'no crash, no stack');
}

test('a recursive YAML alias (a node that contains itself) is a located yaml problem, exit 2: in a drill and in a topology', () => {
  const selfDrill = file('self-drill.yaml', drill('&t {name: x, nodes: *t}'));
  refused(['drill', 'run', selfDrill, '--out', join(dir, 'out-self')], new RegExp(`^rocelab drill: ${selfDrill}:4:31: the alias \\*t at topology\\.nodes is inside &t \\(expected an alias outside the node its anchor marks: a node cannot contain itself\\)$`, 'm'));
  const selfPod = file('self-pod.yaml', 'name: x\nnodes: &n\n  - {name: h1, role: host, ip: 10.0.1.1, nic: {dcqcn: *n}}\nlinks: []\n');
  for (const command of [['topology', 'validate', selfPod], ['run', selfPod, '--duration', '1us']]) {
    refused(command, new RegExp(`^${selfPod}:3:55: the alias \\*n at nodes\\[0\\]\\.nic\\.dcqcn is inside &n`, 'm'));
  }
});

test('special files are refused without reading them: /dev/zero and a FIFO as the topology, of a run and of a drill, exit 2', () => {
  refused(['topology', 'validate', '/dev/zero'], /^\/dev\/zero: <root>: expected a regular file as the topology file, got a character device$/m);
  refused(['run', '/dev/zero', '--duration', '1us'], /^\/dev\/zero: <root>: expected a regular file as the topology file, got a character device$/m);
  const zeroDrill = file('zero-drill.yaml', drill('/dev/zero'));
  refused(['drill', 'run', zeroDrill, '--out', join(dir, 'out-zero')], /topology: expected a regular file as the topology file \(relative to the drill\), got \/dev\/zero: a character device$/m);
  refused(['drill', 'run', '/dev/zero'], /^rocelab drill: \/dev\/zero: <root>: expected a regular file as the drill file, got a character device$/m);
  const fifo = join(dir, 'fifo.yaml');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  refused(['topology', 'validate', fifo], /expected a regular file as the topology file, got a FIFO$/m);
  refused(['run', 'test/fixtures/tree.yaml', '--duration', '1us', '--faults', '/dev/zero'], /^rocelab run: --faults \/dev\/zero: expected a regular file as the fault log, got a character device$/m);
  mkdirSync(join(dir, 'ref'));
  for (const f of ['fct.csv', 'queue.csv']) spawnSync('ln', ['-s', '/dev/zero', join(dir, 'ref', f)]);
  refused(['compare', join(dir, 'ref'), join(dir, 'ref')], /queue\.csv: expected a regular file as the trace file, got a character device$/m);
});

test('a file over its size limit is refused by its size, naming the file and the limit, exit 2', () => {
  const big = file('big.yaml', `# ${'x'.repeat(17 * 2 ** 20)}\nname: big\n`);
  refused(['topology', 'validate', big], new RegExp(`^${big}: <root>: expected a topology file of at most 16 MiB \\(rocelab's limit\\), got 17 MiB$`, 'm'));
});

test(`a drill of more than ${MAX_DRILL_VARIANTS} variants is refused before anything runs, exit 2`, () => {
  const variants = Array.from({ length: 5000 }, (_, i) => `  - {name: v${i}}\n`).join('');
  const sweep = file('sweep.yaml', drill('{name: x, nodes: [{name: h1, role: host, ip: 10.0.1.1}, {name: sw1, role: tor, subnet: 10.0.1.0/24}], links: [{a: h1:p0, b: sw1:p1}]}', `variants:\n${variants}`));
  const out = join(dir, 'out-sweep');
  mkdirSync(out);
  refused(['drill', 'run', sweep, '--out', out], new RegExp(`${sweep}: variants: expected at most ${MAX_DRILL_VARIANTS} variants \\(rocelab's limit: each runs a whole pod; split a bigger sweep into several drills\\), got 5000 variants$`, 'm'));
  assert.deepEqual(readdirSync(out), [], 'nothing ran');
});
