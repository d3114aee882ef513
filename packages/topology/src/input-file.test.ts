import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CdfError, readCdfFile } from './cdf.js';
import { TopologyError } from './errors.js';
import { checkInputFile, InputFileError, MAX_INPUT_FILE_BYTES, readInputFile } from './input-file.js';
import { loadTopologyFile } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-input-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function refused(fn: () => unknown, reason: InputFileError['reason'], message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InputFileError, String(err));
    assert.equal(err.reason, reason);
    assert.equal(err.message, message);
    return true;
  });
}

test('a regular file is read whole, up to and including the limit', () => {
  const path = join(dir, 'ok.yaml');
  writeFileSync(path, 'name: é\n');
  assert.equal(readInputFile(path, 'topology file'), 'name: é\n');
  writeFileSync(path, 'x'.repeat(100));
  assert.equal(readInputFile(path, 'topology file', 100).length, 100);
  refused(() => readInputFile(path, 'topology file', 99), 'size', `${path}: expected a topology file of at most 99 bytes (rocelab's limit), got 100 bytes`);
  checkInputFile(path, 'app module', 100);
});

test("a file over the limit is refused by its size, naming the file and the limit, before it is read", () => {
  const path = join(dir, 'big.yaml');
  writeFileSync(path, Buffer.alloc(MAX_INPUT_FILE_BYTES + 1024 * 1024, 0x20));
  refused(() => readInputFile(path, 'topology file'), 'size', `${path}: expected a topology file of at most 16 MiB (rocelab's limit), got 17 MiB`);
  refused(() => checkInputFile(path, 'app module'), 'size', `${path}: expected an app module of at most 16 MiB (rocelab's limit), got 17 MiB`);
});

test('special files are refused without reading or blocking: /dev/zero, a FIFO with no writer, a directory', () => {
  refused(() => readInputFile('/dev/zero', 'topology file'), 'special', '/dev/zero: expected a regular file as the topology file, got a character device');
  const fifo = join(dir, 'fifo');
  const made = spawnSync('mkfifo', [fifo]);
  assert.equal(made.status, 0, 'mkfifo');
  // Opening a FIFO for reading blocks until a writer comes, unless opened non-blocking.
  refused(() => readInputFile(fifo, 'drill file'), 'special', `${fifo}: expected a regular file as the drill file, got a FIFO`);
  const sub = join(dir, 'sub');
  mkdirSync(sub);
  refused(() => readInputFile(sub, 'CDF file'), 'special', `${sub}: expected a regular file as the CDF file, got a directory`);
  refused(() => readInputFile(join(dir, 'none'), 'fault log'), 'unreadable', `${join(dir, 'none')}: expected a readable fault log, got ENOENT`);
});

test('a file that says it is empty but is not (/proc) is read only up to the limit', () => {
  // /proc/self/status is a regular file of size 0 whose reads return some kilobytes.
  assert.match(readInputFile('/proc/self/status', 'test file'), /^Name:/);
  refused(() => readInputFile('/proc/self/status', 'test file', 64), 'size', "/proc/self/status: expected a test file of at most 64 bytes (rocelab's limit), got more than that (it grew while read)");
});

test('the topology and CDF loaders refuse them as problems of the file (io, line 0)', () => {
  assert.throws(() => loadTopologyFile('/dev/zero'), (err: unknown) => {
    assert.ok(err instanceof TopologyError);
    assert.equal(err.message, '/dev/zero: <root>: expected a regular file as the topology file, got a character device');
    assert.equal(err.code, 'io');
    return true;
  });
  assert.throws(() => loadTopologyFile(join(dir, 'missing.yaml')), /expected a readable topology file, got ENOENT/);
  assert.throws(() => readCdfFile('/dev/zero'), (err: unknown) => err instanceof CdfError && err.message === '/dev/zero: expected a regular file as the CDF file, got "a character device"');
});

test('a CDF file and an app module a topology names are checked the same way, as problems at their keys', () => {
  const pod = (extra: string): string => {
    const path = join(dir, 'named.yaml');
    writeFileSync(path, `name: p\nnodes:\n  - {name: h1, role: host, ip: 10.0.1.1${extra}}\n  - {name: h2, role: host, ip: 10.0.1.2}\n  - {name: sw1, role: tor, subnet: 10.0.1.0/24}\nlinks:\n  - {a: h1:p0, b: sw1:p1}\n  - {a: h2:p0, b: sw1:p2}\n`);
    return path;
  };
  const app = pod(', app: {module: /dev/zero}');
  assert.throws(() => loadTopologyFile(app), { message: `${app}: nodes[0].app.module: expected a regular file as the app module, got /dev/zero: a character device` });
  const cdf = pod('');
  writeFileSync(cdf, `${readFileSync(cdf, 'utf8')}workloads:\n  - {kind: poisson, hosts: [h1, h2], load: 0.3, sizes: {cdf: /dev/zero}}\n`);
  assert.throws(() => loadTopologyFile(cdf), { message: `${cdf}: workloads[0].sizes.cdf: expected a CDF file of "size cumulative_probability" lines (/dev/zero: expected a regular file as the CDF file), got "a character device"` });
});
