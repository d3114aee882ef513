/**
 * HPCC end to end (issue 26): a 4→1 incast (test/fixtures/rnic/hpcc-incast.yaml) with `cc: hpcc`
 * runs with the same trace hash in one process and as processes, keeps the bottleneck queue far
 * shorter than DCQCN on the same pod, and its INT records are in the pcap: one per switch egress
 * on the data, copied back on the ACKs, read with our own pcap layout (no tshark needed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FrameKind, Opcode, decodeIntHeader, intHeaderOffset, newFrame, type IntHopBytes } from '@rocelab/wire';
import { cli, fixture } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-hpcc-'));
const POD = fixture('rnic/hpcc-incast.yaml');

function withCc(cc: string): string {
  const text = readFileSync(POD, 'utf8');
  assert.ok(text.includes('nic: {cc: dcqcn}'));
  const file = join(dir, `incast-${cc}.yaml`);
  writeFileSync(file, text.replace('nic: {cc: dcqcn}', `nic: {cc: ${cc}}`));
  return file;
}

function run(file: string, args: string[]) {
  const r = cli(['run', file, '--json', ...args], {}, 240_000);
  assert.equal(r.status, 0, r.stderr);
  return r.json!;
}

test('a 4→1 incast under HPCC: one trace hash inproc and as processes, every flow done, the bottleneck queue far below DCQCN\'s', () => {
  const dcqcn = run(POD, ['--duration', '3ms']);
  const hpccFile = withCc('hpcc');
  const hpcc = run(hpccFile, ['--duration', '3ms']);
  const procs = run(hpccFile, ['--duration', '3ms', '--mode', 'procs']);
  assert.equal(procs.traceHash, hpcc.traceHash);
  assert.deepEqual(procs.flows, hpcc.flows);
  assert.notEqual(hpcc.traceHash, dcqcn.traceHash);
  for (const f of hpcc.flows) assert.equal(f.status, 'success', `flow ${f.flow}: ${f.status}`);
  // Measured (seed 7): DCQCN 556,032 B at sw1's port to h5; HPCC 76,704 B, the first RTT's burst
  // before the first INT came back (then HPCC holds the queue near empty). Asserted with a margin of 2.
  const peak = (r: typeof hpcc) => r.summary.portTotals.peakQueueBytes;
  assert.ok(peak(hpcc) * 3 < peak(dcqcn), `HPCC peak ${peak(hpcc)} B vs DCQCN ${peak(dcqcn)} B`);
  assert.equal(hpcc.summary.portTotals.pauseFramesSent, 0, 'HPCC needs no pause here');
  // 8 MB through 40 Gb/s: at least 1.6 ms; HPCC at η = 0.95 finishes within 25 % of that.
  const last = Math.max(...hpcc.flows.map((f) => f.completionNs ?? Infinity));
  assert.ok(last < 2_000_000, `last flow done at ${last} ns`);
});

test('TIMELY and DCTCP on the same incast: one trace hash inproc and as processes, every flow done, the queue held below the uncontrolled run\'s without a pause', () => {
  const none = join(dir, 'incast-none.yaml');
  writeFileSync(none, readFileSync(POD, 'utf8').replace('nic: {cc: dcqcn}', 'nic: {cc: dcqcn, dcqcn: {enabled: false}}'));
  const uncontrolled = run(none, ['--duration', '3ms']);
  // Measured (seed 7): no congestion control 2,737,806 B and 600 PAUSEs; TIMELY 1,517,378 B (its
  // T_high of 500 µs lets the queue reach ~2.5 MB of RTT at 40 Gb/s before it cuts: HPCC paper
  // §2.3), DCTCP 711,330 B; neither pauses.
  for (const cc of ['timely', 'dctcp']) {
    const file = withCc(cc);
    const inproc = run(file, ['--duration', '3ms']);
    const procs = run(file, ['--duration', '3ms', '--mode', 'procs']);
    assert.equal(procs.traceHash, inproc.traceHash, cc);
    assert.deepEqual(procs.flows, inproc.flows, cc);
    for (const f of inproc.flows) assert.equal(f.status, 'success', `${cc} flow ${f.flow}: ${f.status}`);
    const peak = inproc.summary.portTotals.peakQueueBytes;
    assert.ok(peak < 0.7 * uncontrolled.summary.portTotals.peakQueueBytes, `${cc}: peak ${peak} B vs ${uncontrolled.summary.portTotals.peakQueueBytes} B uncontrolled`);
    assert.equal(inproc.summary.portTotals.pauseFramesSent, 0, `${cc}: pauses`);
  }
  assert.ok(uncontrolled.summary.portTotals.pauseFramesSent > 0, 'without congestion control PFC holds the incast');
});

/** The records of a classic pcap file (rocelab's: little-endian, ns): each frame's bytes. */
function pcapFrames(file: string): Uint8Array[] {
  const bytes = readFileSync(file);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(view.getUint32(0, true), 0xa1b23c4d);
  const frames: Uint8Array[] = [];
  for (let at = 24; at < bytes.length; ) {
    const length = view.getUint32(at + 8, true);
    frames.push(new Uint8Array(bytes.buffer, bytes.byteOffset + at + 16, length));
    at += 16 + length;
  }
  return frames;
}

test('pcap at h5: every data packet carries one INT record (sw1 → h5), every ACK carries it back', () => {
  const out = mkdtempSync(join(dir, 'pcap-'));
  run(withCc('hpcc'), ['--duration', '40us', '--pcap', out, '--pcap-ports', 'h5:p0']);
  const frames = pcapFrames(join(out, 'h5-p0.pcap'));
  const data: IntHopBytes[][] = [];
  const acks: IntHopBytes[][] = [];
  for (const f of frames) {
    const opcode = f[42]!;
    const kind = opcode === Opcode.acknowledge ? FrameKind.ack : FrameKind.data;
    const hops = decodeIntHeader(f, intHeaderOffset(newFrame(kind, { opcode })));
    (kind === FrameKind.ack ? acks : data).push(hops);
  }
  assert.ok(data.length > 100 && acks.length > 100, `${data.length} data, ${acks.length} ACKs`);
  for (const hops of [...data, ...acks]) assert.equal(hops.length, 1);
  // 40 Gb/s is not among HPCC's coded rates: code 7. Times within the run (40 µs), bytes counted up.
  for (const [h] of data) {
    assert.equal(h!.lineRateCode, 7);
    assert.ok(h!.timeNs > 0 && h!.timeNs < 40_000, `${h!.timeNs} ns`);
  }
  assert.ok(data.some(([h]) => h!.qlenBytes > 0), 'the incast queues at sw1 in the first RTT');
  const tx = data.map(([h]) => h!.txBytes);
  assert.ok(tx.at(-1)! > tx[0]!, 'the port\'s transmitted bytes grow');
  // tshark, when there is one, still reads every frame as RoCE with nothing malformed (the INT bytes come as payload).
  const config = join(dir, 'wireshark');
  mkdirSync(config, { recursive: true });
  const shark = spawnSync('tshark', ['-r', join(out, 'h5-p0.pcap'), '-o', 'ip.check_checksum:TRUE', '-Y', '_ws.malformed || _ws.expert.severity >= warning'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, WIRESHARK_CONFIG_DIR: config } });
  if (shark.error === undefined && shark.status === 0) assert.equal(shark.stdout.trim(), '', 'no malformed frame, no expert warning');
});

test('at 100 Gb/s under the hpcc-ns3 profile the incast matches HPCC ns-3 run on the same pod (PHYSICS §9.4)', () => {
  const text = readFileSync(withCc('hpcc'), 'utf8')
    .replace('profile: vendor', 'profile: hpcc-ns3')
    .replace('rate: 40G, latency: 1us, mtu: 1024', 'rate: 100G, latency: 1us, mtu: 1000')
    .replace(/\n {2}switch: \{bufferBytes: 8MiB\}/, '');
  const file = join(dir, 'incast-100g.yaml');
  writeFileSync(file, text);
  const r = run(file, ['--duration', '2ms']);
  // HPCC ns-3 (mix/config.txt, CC_MODE 3): peak 172 KB (1 KB buckets), FCTs 666,170–746,250 ns.
  // rocelab: 174,400 B and 655,812–745,812 ns (seed 7). Within 2 % of the simulator's.
  const peak = r.summary.portTotals.peakQueueBytes;
  assert.ok(Math.abs(peak - 172_500) < 0.02 * 172_500, `peak ${peak} B`);
  const fcts = r.flows.map((f) => f.fctNs!).sort((a, b) => a - b);
  assert.ok(Math.abs(fcts[0]! - 666_170) < 0.02 * 666_170 && Math.abs(fcts[3]! - 746_250) < 0.02 * 746_250, `FCTs ${fcts.join(', ')} ns`);
});
