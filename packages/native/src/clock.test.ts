/**
 * The program's clocks, /proc/cpuinfo and the TSC in virtual time (issue 25): c/core/clock.c,
 * cpuinfo.c and tsc.c. They are compiled here with a stub core (c/test-stub/stub-core.c, which
 * answers core.h from environment variables and counters) into a preload of their own, so they
 * are tested without a host; c/test/clock-probe.c prints what a program reads under it.
 *
 * Also counts the rdtsc sites patched in Debian's ib_write_lat (and the libraries it loads) against
 * objdump -d's, object by object: no site missed, none invented.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { nativeDist } from './index.js';

const C = join(nativeDist(), '..', 'c');
const CFLAGS = ['-O2', '-g', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter', '-fPIC', '-D_GNU_SOURCE', '-std=gnu11', `-I${join(C, 'include')}`];
const IB_WRITE_LAT = '/usr/bin/ib_write_lat';

/** The stub core's virtual time at start, and what it says the TSC's MHz is (a fraction, on purpose). */
const NOW_PS = 1_234_567_890_123n;
const MHZ_TEXT = '2345.678';
const TSC_KHZ = 2_345_678n;
const ANY_STEP_PS = 7_000_000n;
/** 2026-01-01T00:00:00Z, clock.c's REALTIME at virtual time 0. */
const EPOCH_SEC = 1_767_225_600n;
/** clock.c's ROCELAB_SPIN_READS. */
const SPIN_READS = 1000;

function missingTool(): string | false {
  for (const [what, check] of [
    ['gcc', () => execFileSync('gcc', ['--version'], { stdio: 'ignore' })],
    ['objdump', () => execFileSync('objdump', ['--version'], { stdio: 'ignore' })],
  ] as const) {
    try {
      check();
    } catch {
      return `${what} is not installed`;
    }
  }
  if (!existsSync('/usr/include/capstone/capstone.h')) return 'libcapstone-dev is not installed';
  if (process.arch !== 'x64' || process.platform !== 'linux') return 'the TSC emulation is for x86-64 Linux';
  return false;
}

const skip = missingTool();
let dir = '';
let preload = '';
let probe = '';
let tscLib = '';
let trap = '';

before(() => {
  if (skip !== false) return;
  dir = mkdtempSync(join(tmpdir(), 'rocelab-clock-'));
  preload = join(dir, 'stub-rocelab.so');
  probe = join(dir, 'clock-probe');
  tscLib = join(dir, 'libtsc-probe.so');
  // spin.c holds the core's one interposed sigaction (SIGILL goes to tsc.c through it).
  const core = ['clock.c', 'cpuinfo.c', 'tsc.c', 'spin.c'].map((f) => join(C, 'core', f));
  execFileSync('gcc', [...CFLAGS, '-shared', '-Wl,--no-undefined', '-o', preload, ...core, join(C, 'test-stub', 'stub-core.c'), '-lcapstone', '-ldl', '-lpthread']);
  execFileSync('gcc', [...CFLAGS, '-o', probe, join(C, 'test', 'clock-probe.c')]);
  const lib = join(dir, 'libtsc-probe.c');
  writeFileSync(lib, '#include <stdint.h>\nuint64_t lib_rdtsc(void) { uint32_t lo, hi; __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)); return (uint64_t)hi << 32 | lo; }\n');
  execFileSync('gcc', [...CFLAGS, '-shared', '-o', tscLib, lib]);
  trap = join(dir, 'trap');
  writeFileSync(`${trap}.c`, 'int main(void) { __builtin_trap(); }\n');
  execFileSync('gcc', [...CFLAGS, '-o', trap, `${trap}.c`]);
});

after(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

interface Run {
  values: Map<string, string>;
  stderr: string;
  status: number | null;
}

function run(file: string, args: string[], env: Record<string, string>): Run {
  const r = spawnSync(file, args, { encoding: 'utf8', timeout: 30_000, env: { ...process.env, LD_PRELOAD: preload, ...env } });
  const values = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return { values, stderr: r.stderr, status: r.status };
}

function big(r: Run, key: string): bigint {
  const v = r.values.get(key);
  assert.ok(v !== undefined, `the probe printed no ${key}`);
  return BigInt(v);
}

/** tsc.c's virtual TSC: now_ps x MHz / 10^6, to the kHz /proc/cpuinfo shows. */
function tscAt(nowPs: bigint): bigint {
  return (nowPs * TSC_KHZ) / 1_000_000_000n;
}

/** objdump -d's rdtsc and rdtscp instructions in `file`. */
function objdumpSites(file: string): { rdtsc: number; rdtscp: number } {
  const text = execFileSync('objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return { rdtsc: (text.match(/\trdtsc\s*$/gm) ?? []).length, rdtscp: (text.match(/\trdtscp\s*$/gm) ?? []).length };
}

/** tsc.c's "patched N rdtsc + M rdtscp site(s) in OBJECT" log lines, by object. */
function patchedSites(stderr: string): Map<string, { rdtsc: number; rdtscp: number }> {
  const out = new Map<string, { rdtsc: number; rdtscp: number }>();
  for (const m of stderr.matchAll(/tsc: patched (\d+) rdtsc \+ (\d+) rdtscp site\(s\) in (\S+)/g)) out.set(m[3] ?? '', { rdtsc: Number(m[1]), rdtscp: Number(m[2]) });
  return out;
}

const ATTACHED = { ROCELAB_STUB_NOW_PS: String(NOW_PS), ROCELAB_STUB_MHZ: MHZ_TEXT, ROCELAB_STUB_ANY_PS: String(ANY_STEP_PS) };

test('rdtsc and rdtscp read virtual time in the units of the MHz /proc/cpuinfo shows', { skip }, () => {
  const r = run(probe, [], { ...ATTACHED, CLOCK_PROBE_LIB: tscLib });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(big(r, 'now_ps'), NOW_PS);
  assert.equal(big(r, 'rdtsc'), tscAt(NOW_PS));
  assert.equal(big(r, 'rdtscp'), tscAt(NOW_PS));
  assert.equal(big(r, 'rdtscp_aux'), 0n);
  // Read through a program's own SIGILL handler, with every signal blocked, and in a dlopened object.
  const later = tscAt(big(r, 'dlopen_now_ps'));
  assert.equal(big(r, 'own_sigill_caught'), 1n, 'the program’s own SIGILL handler is called for its own ud2');
  assert.equal(big(r, 'own_sigill_rdtsc'), later);
  assert.equal(big(r, 'blocked_rdtsc'), later);
  assert.equal(big(r, 'dlopen_rdtsc'), later);
  const patched = patchedSites(r.stderr);
  assert.deepEqual(patched.get(probe), objdumpSites(probe));
  assert.deepEqual(patched.get(tscLib), { rdtsc: 1, rdtscp: 0 });
});

test('a SIGILL that is not a TSC read still kills a program that has no handler for it', { skip }, () => {
  const r = spawnSync(trap, [], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, LD_PRELOAD: preload, ...ATTACHED } });
  assert.equal(r.signal, 'SIGILL', r.stderr);
});

test('every clock reads virtual time: REALTIME from 2026-01-01, the others from 0; resolution 1 ns', { skip }, () => {
  const r = run(probe, [], ATTACHED);
  assert.equal(r.status, 0, r.stderr);
  const ns = NOW_PS / 1000n;
  assert.equal(big(r, 'realtime_ns'), EPOCH_SEC * 1_000_000_000n + ns);
  for (const clock of ['monotonic_ns', 'boottime_ns', 'monotonic_raw_ns', 'process_cpu_ns']) assert.equal(big(r, clock), ns, clock);
  assert.equal(big(r, 'gettimeofday_us'), EPOCH_SEC * 1_000_000n + NOW_PS / 1_000_000n);
  assert.equal(big(r, 'time_s'), EPOCH_SEC + NOW_PS / 1_000_000_000_000n);
  assert.equal(big(r, 'res_ns'), 1n);
});

test('every sleep of 3 µs is a wait of exactly 3 µs of virtual time', { skip }, () => {
  const r = run(probe, [], ATTACHED);
  assert.equal(r.status, 0, r.stderr);
  for (const sleep of ['nanosleep', 'usleep', 'clock_nanosleep', 'clock_nanosleep_abs', 'clock_nanosleep_abs_realtime']) {
    // An absolute deadline is a clock's reading (whole ns) plus 3 µs. The first one is short of
    // 3 µs by the ps the reading dropped (the relative sleeps before it left them as at the start);
    // it ends on a whole ns, so the next one is exact.
    const shortPs = sleep === 'clock_nanosleep_abs' ? NOW_PS % 1000n : 0n;
    assert.equal(big(r, `${sleep}_rc`), 0n, sleep);
    assert.equal(big(r, `${sleep}_ps`), 3_000_000n - shortPs, sleep);
    assert.equal(big(r, `${sleep}_mono_ns`), 3_000n, sleep);
  }
});

test(`a spin on a clock or the TSC is given a wait after exactly ${SPIN_READS} reads`, { skip }, () => {
  const r = run(probe, [], ATTACHED);
  assert.equal(r.status, 0, r.stderr);
  for (const spin of ['spin_clock', 'spin_tsc']) {
    // The reading changes on the read after the SPIN_READS-th, and by one wait_any's step.
    assert.equal(big(r, `${spin}_reads`), BigInt(SPIN_READS + 1), spin);
    assert.equal(big(r, `${spin}_wait_any`), 1n, spin);
  }
  assert.equal(big(r, 'spin_clock_step'), ANY_STEP_PS / 1000n);
  const end = big(r, 'end_ps');
  assert.equal(big(r, 'spin_tsc_step'), tscAt(end) - tscAt(end - ANY_STEP_PS));
});

test('/proc/cpuinfo shows the virtual MHz on every cpu MHz line, through fopen and open', { skip }, () => {
  const r = run(probe, [], ATTACHED);
  assert.equal(r.status, 0, r.stderr);
  const lines = readFileSync('/proc/cpuinfo', 'utf8').split('\n').filter((l) => l.startsWith('cpu MHz')).length;
  assert.equal(r.values.get('cpuinfo_mhz_text'), MHZ_TEXT);
  assert.equal(big(r, 'cpuinfo_mhz_lines'), BigInt(lines));
  assert.equal(big(r, 'cpuinfo_mhz_all_same'), 1n);
  assert.equal(r.values.get('cpuinfo_open_mhz'), MHZ_TEXT);
});

test('without a host every clock, the TSC and /proc/cpuinfo are the real ones, and nothing is patched', { skip }, () => {
  const r = run(probe, [], { ...ATTACHED, ROCELAB_STUB_ATTACHED: '0' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /tsc:/);
  const realtimeSec = Number(big(r, 'realtime_ns') / 1_000_000_000n);
  assert.ok(Math.abs(realtimeSec - Date.now() / 1000) < 600, `REALTIME ${realtimeSec} is the machine's`);
  assert.notEqual(big(r, 'rdtsc'), tscAt(NOW_PS));
  const real = /^cpu MHz\s*:\s*(\S+)/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  if (real !== undefined) assert.equal(r.values.get('cpuinfo_mhz_text'), real);
});

test('ib_write_lat: its 48 rdtsc sites are patched, and every object’s count is objdump’s', { skip: skip !== false ? skip : !existsSync(IB_WRITE_LAT) && 'perftest is not installed' }, () => {
  const r = run(IB_WRITE_LAT, ['--help'], ATTACHED);
  const patched = patchedSites(r.stderr);
  assert.deepEqual(patched.get(IB_WRITE_LAT), { rdtsc: 48, rdtscp: 0 }, r.stderr);
  for (const [object, sites] of patched) assert.deepEqual(sites, objdumpSites(object), object);
});
