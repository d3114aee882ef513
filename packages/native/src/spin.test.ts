// The spin detector (c/core/spin.c) without a host: linked with a stand-in for the core whose waits
// are counted and whose "NIC" writes the byte the probe spins on at a chosen wait (c/test-stub).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const C = fileURLToPath(new URL('../c/', import.meta.url));
// The probe takes well under a second; a broken detector spins forever, which this bounds.
const RUN_TIMEOUT_MS = 20_000;

function hasGcc(): boolean {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const skip = process.arch !== 'x64' || !hasGcc() ? 'needs gcc on x86-64 (the detector single-steps with the trap flag)' : false;
let dir = '';
let probe = '';

before(() => {
  if (skip !== false) return;
  dir = mkdtempSync(join(tmpdir(), 'rocelab-spin-'));
  probe = join(dir, 'spin-probe');
  const sources = ['core/spin.c', 'test-stub/core-stub.c', 'test/spin-probe.c'].map((f) => join(C, f));
  execFileSync('gcc', ['-O2', '-g', '-Wall', '-Wextra', '-Wno-unused-parameter', '-D_GNU_SOURCE', '-std=gnu11', `-I${join(C, 'include')}`, '-o', probe, ...sources, '-lpthread'], { stdio: ['ignore', 'inherit', 'inherit'] });
});

after(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

function run(...args: string[]): SpawnSyncReturns<string> {
  const r = spawnSync(probe, args, { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
  assert.equal(r.error, undefined, `spin-probe ${args.join(' ')}: ${String(r.error)}`);
  return r;
}

test('a spin on a registered byte becomes waits, exactly until the write lands, and again after a call', { skip }, () => {
  for (const n of [1, 3]) {
    const r = run('spin', String(n));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `round1 waits=${n}\nround2 waits=${n + 2} steps>=2000 yes\n`, r.stderr);
  }
});

test('copying the registered page over and over in counting mode is not a spin', { skip }, () => {
  const r = run('memcpy');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'waits=0\n');
});

test('a NULL dereference in counting mode still kills the program with SIGSEGV', { skip }, () => {
  const r = run('null');
  assert.equal(r.signal, 'SIGSEGV', `status ${String(r.status)}, stderr: ${r.stderr}`);
});

test("the program's own SIGSEGV and SIGTRAP handlers get their faults, and spins are still detected", { skip }, () => {
  const r = run('handler');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'segv=1 addr=(nil) trap=1 waits=2\n');
});
