/**
 * Unmodified Debian RDMA programs on the rocelab0 device (issue 25), between two hosts in
 * different pods of a Clos: ibv_devinfo sees the device, ibv_rc_pingpong completes, ib_write_bw
 * and ib_read_bw report the fabric's goodput ceiling and ib_write_lat its one-way delivery time,
 * each the same run after run and as local processes as in one process.
 *
 * The device is built from C by `npm run build` (gcc and Debian's headers) and the programs come
 * from Debian (ibverbs-utils, perftest): without them the tests skip, unless
 * ROCELAB_REQUIRE_NATIVE=1 (CI) makes that a failure.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { nativeBuilt } from '@rocelab/native';
import { idealDeliveryPs, idealFctPs, type ProgramReport } from '@rocelab/results';
import type { RunResult } from '@rocelab/runtime';
import { PREAMBLE_AND_GAP_BYTES, RETH_BYTES, ROCE_HEADER_BYTES } from '@rocelab/wire';
import { cli, ROOT } from './harness.js';

const PROGRAMS = ['ibv_devinfo', 'ibv_rc_pingpong', 'ibv_srq_pingpong', 'ib_write_bw', 'ib_read_bw', 'ib_send_bw', 'ib_write_lat', 'ib_send_lat', 'ib_read_lat', 'ib_atomic_lat'];

function have(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const missing = [...(nativeBuilt() ? [] : ['the rocelab0 device (npm run build with gcc, libibverbs-dev, librdmacm-dev, libcapstone-dev)']), ...PROGRAMS.filter((p) => !have(p))];
const skip = missing.length > 0 && process.env['ROCELAB_REQUIRE_NATIVE'] !== '1' ? `needs ${missing.join(', ')}` : false;
if (missing.length > 0 && !skip) test('the rocelab0 device and Debian RDMA programs are installed (ROCELAB_REQUIRE_NATIVE=1)', () => assert.fail(`missing: ${missing.join(', ')}`));

/** Link rate, latency and MTU of the Clos below: the tests compute their expectations from them. */
const RATE_BPS = 40e9;
const LATENCY_PS = 1_000_000;
const MTU = 1024;
/** h1 (pod 1) to h3 (pod 2): host–ToR, ToR–leaf, leaf–spine, spine–leaf, leaf–ToR, ToR–host. */
const HOPS = 6;

/** A two-pod Clos (2 spines, a leaf and a ToR per pod, two hosts per ToR) whose h1 and h3 run `programs`. */
function clos(h1: string[][], h3: string[][]): string {
  const programs = (runs: string[][]) => (runs.length === 0 ? '' : `, programs: [${runs.map((r) => `{run: ${JSON.stringify(r)}}`).join(', ')}]`);
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-native-'));
  const file = join(dir, 'pod.yaml');
  writeFileSync(
    file,
    `name: native
seed: 1
defaults:
  link: {rate: 40G, latency: 1us, mtu: ${MTU}}
nodes:
  - {name: spine1, role: spine}
  - {name: spine2, role: spine}
  - {name: leaf1, role: leaf}
  - {name: leaf2, role: leaf}
  - {name: tor1, role: tor, subnet: 10.1.1.0/24}
  - {name: tor2, role: tor, subnet: 10.2.1.0/24}
  - {name: h1, role: host, ip: 10.1.1.1${programs(h1)}}
  - {name: h2, role: host, ip: 10.1.1.2}
  - {name: h3, role: host, ip: 10.2.1.1${programs(h3)}}
  - {name: h4, role: host, ip: 10.2.1.2}
links:
  - {a: h1:p0, b: tor1:p1}
  - {a: h2:p0, b: tor1:p2}
  - {a: h3:p0, b: tor2:p1}
  - {a: h4:p0, b: tor2:p2}
  - {a: tor1:up1, b: leaf1:down1}
  - {a: tor2:up1, b: leaf2:down1}
  - {a: leaf1:up1, b: spine1:down1}
  - {a: leaf1:up2, b: spine2:down1}
  - {a: leaf2:up1, b: spine1:down2}
  - {a: leaf2:up2, b: spine2:down2}
`,
  );
  return file;
}

function run(file: string, duration: string, mode: 'inproc' | 'procs' = 'inproc'): RunResult {
  const r = cli(['run', file, '--duration', duration, '--mode', mode, '--json'], {}, 600_000);
  assert.ok(r.json !== null, `${r.stdout}\n${r.stderr}`);
  assert.ok(r.json.conservation, 'every packet delivered, dropped with a reason or queued');
  assert.equal(r.status, 0, `${r.stderr}\n${JSON.stringify(r.json.programs, null, 1)}`);
  return r.json;
}

/**
 * The pod run in one process, again, and as local processes: the same trace hash and the same
 * program output every time (the acceptance's "the same output and trace hash on a second run,
 * and in procs"). Returns the first run.
 */
function runEverywhere(file: string, duration: string): RunResult {
  const first = run(file, duration);
  for (const [label, again] of [
    ['a second run', run(file, duration)],
    ['as local processes', run(file, duration, 'procs')],
  ] as const) {
    assert.equal(again.traceHash, first.traceHash, `${label}: the same trace hash`);
    assert.deepEqual(again.programs.map((p) => p.stdout), first.programs.map((p) => p.stdout), `${label}: the same output`);
  }
  return first;
}

const program = (r: RunResult, node: string, index = 0): ProgramReport => r.programs.find((p) => p.node === node && p.index === index)!;

/** A number from a program's output: the capture of `pattern`, which must match. */
function figure(p: ProgramReport, pattern: RegExp): number {
  const m = pattern.exec(p.stdout);
  assert.ok(m !== null, `${p.argv.join(' ')}: expected ${pattern} in its output, got:\n${p.stdout}`);
  return Number(m[1]);
}

/** perftest's BW average (MB/s, 2^20 bytes) from its result line for `size`. */
const bwAverage = (size: number) => new RegExp(`^\\s*${size}\\s+\\d+\\s+[\\d.]+\\s+([\\d.]+)`, 'm');

test('ibv_devinfo shows rocelab0, port 1 active, RoCE v2, GID 0 the host address', { skip }, () => {
  const r = runEverywhere(clos([['ibv_devinfo', '-v']], []), '10us');
  const out = program(r, 'h1').stdout;
  assert.match(out, /hca_id:\s+rocelab0/);
  assert.match(out, /state:\s+PORT_ACTIVE \(4\)/);
  assert.match(out, /link_layer:\s+Ethernet/);
  assert.match(out, /GID\[\s*0\]:\s+::ffff:10\.1\.1\.1, RoCE v2/);
});

test('ibv_rc_pingpong completes across the Clos, prints its figures, the same output and trace hash twice and as processes', { skip }, () => {
  const file = clos([['ibv_rc_pingpong', '-g', '0', '-n', '50']], [['ibv_rc_pingpong', '-g', '0', '-n', '50', '{h1}']]);
  const a = run(file, '20ms');
  for (const node of ['h1', 'h3']) {
    assert.equal(program(a, node).status, 'exited');
    assert.equal(program(a, node).exitCode, 0);
    assert.match(program(a, node).stdout, /50 iters in [\d.]+ seconds = [\d.]+ usec\/iter/);
  }
  assert.match(program(a, 'h1').stdout, /remote address: .*GID ::ffff:10\.2\.1\.1/);
  const b = run(file, '20ms');
  assert.equal(b.traceHash, a.traceHash);
  assert.deepEqual(b.programs.map((p) => p.stdout), a.programs.map((p) => p.stdout));
  const procs = run(file, '20ms', 'procs');
  assert.equal(procs.traceHash, a.traceHash, 'as local processes, the same trace hash');
  assert.deepEqual(procs.programs.map((p) => p.stdout), a.programs.map((p) => p.stdout));
});

/** The goodput ceiling of 64 KiB WRITEs (or READ responses) at MTU 1024: payload over wire bytes, a RETH on the first packet. */
function ceilingMiBps(size: number, firstExtra: number, perPacketExtra: number): number {
  const packets = Math.ceil(size / MTU);
  const wire = packets * (MTU + ROCE_HEADER_BYTES + PREAMBLE_AND_GAP_BYTES + perPacketExtra) + firstExtra;
  return ((RATE_BPS / 8) * (size / wire)) / 2 ** 20;
}

test('ib_write_bw, ib_read_bw and ib_send_bw report the path goodput ceiling within 3 %, the same twice and as processes', { skip }, () => {
  const size = 65_536;
  for (const [tool, firstExtra, perPacket] of [
    ['ib_write_bw', RETH_BYTES, 0],
    // READ responses: an AETH on the first and last (4 B each); MIDDLE carries none.
    ['ib_read_bw', 8, 0],
    ['ib_send_bw', 0, 0],
  ] as const) {
    const args = [tool, '-d', 'rocelab0', '-s', String(size), '-n', '100'];
    const file = clos([args], [[...args, '{h1}']]);
    const a = runEverywhere(file, '2s');
    const expected = ceilingMiBps(size, firstExtra, perPacket);
    const measured = figure(program(a, 'h3'), bwAverage(size));
    assert.ok(Math.abs(measured - expected) / expected <= 0.03, `${tool}: ${measured} MB/s against the ceiling ${expected.toFixed(2)} MB/s (within 3 %)`);
  }
});

/** The emulator's own ideal for a message of `size` on the h1–h3 path, alone on the fabric. */
function ideal(size: number, opcode: 'write' | 'send' | 'read' | 'fetchAdd', what: 'delivery' | 'completion'): number {
  const hop = { rateBps: RATE_BPS, latencyPs: LATENCY_PS };
  const m = {
    sizeBytes: size,
    opcode,
    mtu: MTU,
    wire: { accounting: 'rocelab' as const, truncateToNs: false, pauseUntilResume: false },
    forward: Array.from({ length: HOPS }, () => hop),
    reverse: Array.from({ length: HOPS }, () => hop),
    receiverDrainBps: 2 * RATE_BPS,
    senderDrainBps: 2 * RATE_BPS,
    ackEvery: 1,
    rateCapBps: null,
  };
  return (what === 'delivery' ? idealDeliveryPs(m) : idealFctPs(m)) / 1e6;
}

// The latency tools: WRITE and SEND report half a ping-pong (one way: the message lands in the
// peer's memory); READ and atomics the whole operation (request out, response or Atomic ACK back).
for (const [tool, size, opcode, what] of [
  ['ib_write_lat', 64, 'write', 'delivery'],
  ['ib_send_lat', 64, 'send', 'delivery'],
  ['ib_read_lat', 64, 'read', 'completion'],
  ['ib_atomic_lat', 8, 'fetchAdd', 'completion'],
] as const) {
  test(`${tool} reports the emulator's ideal ${what} time of ${size} B on the path within 2 %, the same twice and as processes`, { skip }, () => {
    const args = [tool, '-d', 'rocelab0', '-s', String(size), '-n', '20'];
    const r = runEverywhere(clos([args], [[...args, '{h1}']]), '2s');
    const typical = figure(program(r, 'h3'), new RegExp(`^\\s*${size}\\s+\\d+\\s+[\\d.]+\\s+[\\d.]+\\s+([\\d.]+)`, 'm'));
    const expected = ideal(size, opcode, what);
    assert.ok(Math.abs(typical - expected) / expected <= 0.02, `${tool}: ${typical} us typical against the emulator's ${expected.toFixed(3)} us (within 2 %)`);
  });
}

test('with the host CPU model each post of a program waits for the CPU: ibv_rc_pingpong slows, and the seed changes its figures', { skip }, () => {
  const file = clos([['ibv_rc_pingpong', '-g', '0', '-n', '50']], [['ibv_rc_pingpong', '-g', '0', '-n', '50', '{h1}']]);
  const usec = (r: RunResult) => figure(program(r, 'h3'), /iters in [\d.]+ seconds = ([\d.]+) usec\/iter/);
  const plain = usec(run(file, '20ms'));
  const withCpu = file.replace(/pod\.yaml$/, 'cpu.yaml');
  writeFileSync(withCpu, readFileSync(file, 'utf8').replace('defaults:\n', 'defaults:\n  host: {cpu: {perOperation: 2us, jitter: 1us}}\n'));
  const seeds = [1, 2].map((seed) => {
    const r = cli(['run', withCpu, '--duration', '20ms', '--seed', String(seed), '--json'], {}, 600_000);
    assert.equal(r.status, 0, r.stderr);
    return usec(r.json!);
  });
  assert.ok(seeds.every((u) => u > plain), `with the CPU model ${seeds.join(', ')} us per iteration, without ${plain}`);
  assert.notEqual(seeds[0], seeds[1], 'another seed, other CPU times');
});

test('ibv_srq_pingpong completes: 16 QPs take their receives from one shared receive queue', { skip }, () => {
  const file = clos([['ibv_srq_pingpong', '-g', '0', '-n', '50']], [['ibv_srq_pingpong', '-g', '0', '-n', '50', '{h1}']]);
  const r = runEverywhere(file, '20ms');
  for (const node of ['h1', 'h3']) assert.match(program(r, node).stdout, /50 iters in [\d.]+ seconds = [\d.]+ usec\/iter/);
  assert.equal((program(r, 'h1').stdout.match(/local address:/g) ?? []).length, 16);
});

test('a program that needs no exchange WRITEs with immediate, SENDs and READs its bytes across the fabric', { skip }, () => {
  const r = run(join(ROOT, 'test', 'fixtures', 'native', 'fixed.yaml'), '100us');
  assert.match(program(r, 'h1').stdout, /WRITE with immediate of 22 bytes, immediate 0x1234: "hello from the client"/);
  assert.match(program(r, 'h2').stdout, /received 27 bytes: "hello back from the server"/);
  assert.match(program(r, 'h2').stdout, /READ 27 bytes: "hello back from the server"/);
});
