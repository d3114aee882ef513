/**
 * The pcap bytes of @rocelab/wire read by a real tshark: RoCEv2 frames decode as InfiniBand on
 * UDP 4791 with no decode-as, PFC frames as MAC control, fields read back as sent, timestamps
 * keep their nanoseconds, and no frame is malformed or draws an expert warning — also when
 * the capture keeps only the first 128 bytes of each frame. Then the captures of real runs
 * (`rocelab run --pcap`): PSNs in order, every pause the run counted.
 *
 * Needs `tshark` on PATH (Debian 12 ships 4.0). Without it the tests are skipped — unless
 * ROCELAB_REQUIRE_TSHARK=1, which makes that a failure. Personal Wireshark preferences are
 * kept out (WIRESHARK_CONFIG_DIR points at an empty directory).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { FrameKind, Opcode, encodeFrame, newFrame, pcapFileHeader, pcapRecord, pfcFrame, rdmaFields, u64Bytes, type Frame } from '@rocelab/wire';
import { cli, fixture, ROOT, toolReady } from './harness.js';

const TSHARK_TIMEOUT_MS = 30_000;
/** Wireshark 4.0 checks no IPv4 checksums by default; with this it flags a bad one as an error. */
const CHECK_IP = ['-o', 'ip.check_checksum:TRUE'];
const PROBLEMS = '_ws.malformed || _ws.expert.severity >= warning';

let missing: string | null = null;
let work = '';

before(() => {
  const probe = spawnSync('tshark', ['--version'], { encoding: 'utf8', timeout: TSHARK_TIMEOUT_MS });
  if (probe.error !== undefined || probe.status !== 0) missing = `tshark is not on PATH (${probe.error?.message ?? probe.stderr})`;
  work = mkdtempSync(join(tmpdir(), 'rocelab-pcap-'));
});

after(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

const needsTshark = (t: TestContext): boolean => toolReady(t, missing, 'ROCELAB_REQUIRE_TSHARK');

/** tshark's output lines; a non-zero exit or a timeout fails the test with its stderr. */
function tshark(file: string, args: string[]): string[] {
  const run = spawnSync('tshark', ['-r', file, ...args], {
    encoding: 'utf8',
    timeout: TSHARK_TIMEOUT_MS,
    env: { ...process.env, WIRESHARK_CONFIG_DIR: work },
  });
  assert.equal(run.error, undefined, `tshark ${args.join(' ')}: ${run.error?.message}`);
  assert.equal(run.status, 0, `tshark ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.split('\n').filter((line) => line !== '');
}

/** One column of `-T fields` per field, one row per displayed frame. */
function fields(file: string, filter: string, names: string[], extra: string[] = []): string[][] {
  const args = [...extra, '-Y', filter, '-T', 'fields', ...names.flatMap((n) => ['-e', n])];
  return tshark(file, args).map((line) => line.split('\t'));
}

function writePcap(name: string, frames: readonly Frame[], timesPs: readonly number[], snaplen: number): string {
  const file = join(work, name);
  const records = frames.map((frame, i) => pcapRecord(timesPs[i]!, encodeFrame(frame, { srcMacForPfc: 0x02_00_00_00_00_fe }), snaplen));
  writeFileSync(file, Buffer.concat([pcapFileHeader(snaplen), ...records]));
  return file;
}

// A WRITE of 2,500 B at MTU 1024, a WRITE of 0 B, a SEND, their ACK, a NAK, a CNP, PFC pause and resume.
const flow = {
  srcMac: 0x02_00_00_00_00_01, dstMac: 0x02_00_00_00_00_02, srcIp: 0x0a_00_00_01, dstIp: 0x0a_00_01_02,
  dscp: 26, ecn: 2, ttl: 64, udpSrcPort: 49_170, destQp: 0x12,
};
const back = { ...flow, srcMac: flow.dstMac, dstMac: flow.srcMac, srcIp: flow.dstIp, dstIp: flow.srcIp, ecn: 0 };
const data = (opcode: number, psn: number, payloadBytes: number, more: Partial<Frame> = {}): Frame =>
  newFrame(FrameKind.data, { ...flow, opcode, psn, payloadBytes, ipId: psn, ...more });
const SEQUENCE: Frame[] = [
  data(Opcode.writeFirst, 100, 1024, { dmaLength: 2500 }),
  data(Opcode.writeMiddle, 101, 1024),
  data(Opcode.writeLast, 102, 452, { ackReq: true }),
  data(Opcode.writeOnly, 103, 0, { dmaLength: 0, ackReq: true }),
  // 256 B: Wireshark's RPC-over-RDMA heuristic throws on SEND payloads under 16 B (see the last test).
  data(Opcode.sendOnly, 104, 256, { ackReq: true, ecn: 3 }),
  newFrame(FrameKind.ack, { ...back, opcode: Opcode.acknowledge, psn: 104, syndrome: 0x1f, msn: 3 }),
  newFrame(FrameKind.ack, { ...back, opcode: Opcode.acknowledge, psn: 101, syndrome: 0x60, msn: 1 }),
  newFrame(FrameKind.cnp, { ...back, dscp: 48, opcode: Opcode.cnp, becn: true }),
  pfcFrame(1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0]),
  pfcFrame(1 << 3, [0, 0, 0, 0, 0, 0, 0, 0]),
];
const ROCE = SEQUENCE.filter((f) => f.kind !== FrameKind.pfc);
/** 2 s into the run, 1.234567 µs apart: every time has picoseconds below the nanosecond. */
const TIMES_PS = SEQUENCE.map((_, i) => 2_000_000_000_000 + i * 1_234_567 + 7);
const epoch = (ps: number): string => `${Math.floor(ps / 1e12)}.${String(Math.floor((ps % 1e12) / 1000)).padStart(9, '0')}`;

test('every RoCEv2 frame decodes as InfiniBand on UDP 4791 without a decode-as, every PFC frame as MAC control', (t) => {
  if (!needsTshark(t)) return;
  const file = writePcap('sequence.pcap', SEQUENCE, TIMES_PS, 65_535);
  assert.equal(fields(file, 'infiniband.bth.opcode', ['frame.number']).length, ROCE.length);
  assert.equal(fields(file, 'macc.opcode == 0x0101', ['frame.number']).length, SEQUENCE.length - ROCE.length);
  for (const [protocols] of fields(file, 'udp', ['frame.protocols'])) assert.match(protocols!, /^eth:ethertype:ip:udp:infiniband(:|$)/);
});

test('opcodes, PSNs, AETH, RETH, ECN, PFC class-enable bits and quanta read back as sent; times keep their ns', (t) => {
  if (!needsTshark(t)) return;
  const file = writePcap('sequence.pcap', SEQUENCE, TIMES_PS, 65_535);
  assert.deepEqual(
    fields(file, 'infiniband', ['infiniband.bth.opcode', 'infiniband.bth.psn', 'infiniband.bth.destqp', 'ip.dsfield.ecn']),
    ROCE.map((f) => [String(f.opcode), String(f.psn), '0x000012', String(f.ecn)]),
  );
  assert.deepEqual(fields(file, 'infiniband.aeth', ['infiniband.aeth.syndrome', 'infiniband.aeth.msn']), [['31', '3'], ['96', '1']]);
  assert.deepEqual(fields(file, 'infiniband.reth', ['infiniband.reth.dmalen']), [['2500'], ['0']]);
  const pfc = fields(file, 'macc', ['macc.cbfc.enbv.c3', 'macc.cbfc.enbv.c2', 'macc.cbfc.pause_time.c3', 'eth.src']);
  assert.equal(pfc.length, 2);
  for (const [row, quanta] of [[pfc[0]!, '65535'], [pfc[1]!, '0']] as const) {
    assert.match(row[0]!, /^(1|True)$/, 'C3 enabled');
    assert.match(row[1]!, /^(0|False)$/, 'C2 not enabled');
    assert.deepEqual(row.slice(2), [quanta, '02:00:00:00:00:fe']);
  }
  assert.deepEqual(fields(file, 'frame', ['frame.time_epoch']).map(([time]) => time), TIMES_PS.map(epoch));
});

test('no frame is malformed or draws an expert warning, and the IPv4 checksums are good', (t) => {
  if (!needsTshark(t)) return;
  const file = writePcap('sequence.pcap', SEQUENCE, TIMES_PS, 65_535);
  assert.deepEqual(fields(file, PROBLEMS, ['frame.number', '_ws.expert'], CHECK_IP), []);
  assert.deepEqual(fields(file, 'ip', ['ip.checksum.status'], CHECK_IP), ROCE.map(() => ['1']), '1 = good');

  // The same filters do catch problems: a bad IPv4 checksum, and an IP length that cuts the BTH.
  const good = encodeFrame(SEQUENCE[5]!);
  const badChecksum = good.slice();
  badChecksum[14 + 10]! ^= 0xff;
  const cut = good.slice();
  const view = new DataView(cut.buffer);
  view.setUint16(14 + 2, 20 + 8 + 4);
  view.setUint16(14 + 20 + 4, 8 + 4);
  view.setUint16(14 + 10, 0);
  let sum = 0;
  for (let at = 14; at < 34; at += 2) sum += view.getUint16(at);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  view.setUint16(14 + 10, ~sum & 0xffff);
  const controls = join(work, 'controls.pcap');
  writeFileSync(controls, Buffer.concat([pcapFileHeader(65_535), pcapRecord(0, badChecksum, 65_535), pcapRecord(1000, cut, 65_535)]));
  assert.deepEqual(fields(controls, 'ip.checksum.status == 0', ['frame.number'], CHECK_IP), [['1']]);
  assert.deepEqual(fields(controls, '_ws.expert.severity >= warning', ['frame.number'], CHECK_IP), [['1'], ['2']]);
  assert.deepEqual(fields(controls, '_ws.malformed', ['frame.number'], CHECK_IP), [['2']]);
});

test('a 128-byte snapshot length: the headers still decode, nothing is malformed or warned about', (t) => {
  if (!needsTshark(t)) return;
  const file = writePcap('snap128.pcap', SEQUENCE, TIMES_PS, 128);
  const lengths = fields(file, 'frame', ['frame.len', 'frame.cap_len']);
  assert.deepEqual(lengths.slice(0, 3), [['1098', '128'], ['1082', '128'], ['510', '128']]);
  assert.deepEqual(
    fields(file, 'infiniband', ['infiniband.bth.opcode', 'infiniband.bth.psn']),
    ROCE.map((f) => [String(f.opcode), String(f.psn)]),
  );
  assert.deepEqual(fields(file, 'infiniband.reth', ['infiniband.reth.dmalen']), [['2500'], ['0']]);
  assert.deepEqual(fields(file, PROBLEMS, ['frame.number', '_ws.expert'], CHECK_IP), []);
});

test('SEND payloads under 16 bytes decode cleanly once the RPC-over-RDMA heuristic is off', (t) => {
  if (!needsTshark(t)) return;
  // Wireshark's rpcrdma_infiniband heuristic reads 16 bytes of every SEND payload before it
  // checks the length (packet-rpcrdma.c, packet_is_rpcordma), so by default a shorter SEND is
  // "[Malformed Packet: RPCoRDMA]" — real captures too. Users pass the same option.
  const sends = [0, 1, 3, 4, 8, 12, 15].flatMap((n, i) => [
    data(Opcode.sendOnly, 2 * i, n),
    data(Opcode.sendLast, 2 * i + 1, n),
  ]);
  const file = writePcap('small-sends.pcap', sends, sends.map((_, i) => i * 1_000_000), 65_535);
  const quiet = ['--disable-heuristic', 'rpcrdma_infiniband', ...CHECK_IP];
  assert.equal(fields(file, 'infiniband.bth.opcode', ['frame.number'], quiet).length, sends.length);
  assert.deepEqual(fields(file, PROBLEMS, ['frame.number', '_ws.expert'], quiet), []);
});

test('READ requests and responses, atomics, Atomic ACKs and immediates decode with their headers, nothing malformed', (t) => {
  if (!needsTshark(t)) return;
  const frames = [
    data(Opcode.readRequest, 200, 0, { dmaLength: 2500 }),
    newFrame(FrameKind.data, { ...back, opcode: Opcode.readResponseFirst, psn: 200, payloadBytes: 1024, syndrome: 0x1f, msn: 1, ipId: 1 }),
    newFrame(FrameKind.data, { ...back, opcode: Opcode.readResponseMiddle, psn: 201, payloadBytes: 1024, ipId: 2 }),
    newFrame(FrameKind.data, { ...back, opcode: Opcode.readResponseLast, psn: 202, payloadBytes: 452, syndrome: 0x1f, msn: 1, ipId: 3 }),
    newFrame(FrameKind.data, { ...back, opcode: Opcode.readResponseOnly, psn: 203, payloadBytes: 8, syndrome: 0x1f, msn: 2, ipId: 4 }),
    data(Opcode.writeOnlyImmediate, 204, 100, { dmaLength: 100, ackReq: true }),
    data(Opcode.sendOnlyImmediate, 205, 256, { ackReq: true }),
    data(Opcode.fetchAdd, 206, 0, { ackReq: true }),
    data(Opcode.compareSwap, 207, 0, { ackReq: true }),
    newFrame(FrameKind.ack, { ...back, opcode: Opcode.atomicAcknowledge, psn: 207, syndrome: 0x1f, msn: 5 }),
  ];
  const file = writePcap('read-atomic.pcap', frames, frames.map((_, i) => i * 1_000_000), 65_535);
  assert.deepEqual(fields(file, 'infiniband', ['infiniband.bth.opcode', 'infiniband.bth.psn']), frames.map((f) => [String(f.opcode), String(f.psn)]));
  assert.deepEqual(fields(file, 'infiniband.reth', ['infiniband.bth.opcode', 'infiniband.reth.dmalen']), [['12', '2500'], ['11', '100']]);
  assert.deepEqual(fields(file, 'infiniband.aeth', ['infiniband.bth.opcode', 'infiniband.aeth.msn']), [['13', '1'], ['15', '1'], ['16', '2'], ['18', '5']], 'an AETH on READ responses but MIDDLE, and on the Atomic ACK');
  assert.deepEqual(fields(file, 'infiniband.immdt', ['infiniband.bth.opcode']), [['11'], ['5']]);
  assert.deepEqual(fields(file, 'infiniband.atomiceth', ['infiniband.bth.opcode']), [['20'], ['19']]);
  assert.deepEqual(fields(file, 'infiniband.atomicacketh', ['infiniband.bth.opcode']), [['18']]);
  assert.deepEqual(fields(file, PROBLEMS, ['frame.number', '_ws.expert'], CHECK_IP), []);
});

// --- captures of real runs (`rocelab run --pcap`) -----------------------------------------------

function capture(file: string, ports: string, duration: string): { dir: string; result: NonNullable<ReturnType<typeof cli>['json']> } {
  const dir = mkdtempSync(join(work, 'run-'));
  const r = cli(['run', file, '--duration', duration, '--json', '--pcap', dir, '--pcap-ports', ports]);
  assert.equal(r.status, 0, r.stderr);
  return { dir, result: r.json! };
}

test('line.yaml captured at h1:p0: every frame is RoCEv2, the data PSNs run 0, 1, 2, … and the ACKs every 4th, nothing malformed', (t) => {
  if (!needsTshark(t)) return;
  const { dir } = capture(fixture('line.yaml'), 'h1:p0', '200us');
  const file = join(dir, 'h1-p0.pcap');
  const all = tshark(file, ['-T', 'fields', '-e', 'frame.number']).length;
  assert.equal(fields(file, 'infiniband.bth.opcode', ['frame.number']).length, all, 'every frame decodes as InfiniBand');
  // h1 starts a frame every 221.2 ns after the first (224.4 ns): 905 start within 200 µs.
  const data = fields(file, 'infiniband.bth.opcode != 17', ['infiniband.bth.psn', 'ip.src']);
  assert.equal(data.length, 905);
  data.forEach(([psn, src], i) => assert.deepEqual([Number(psn), src], [i, '10.0.1.1']));
  const acks = fields(file, 'infiniband.bth.opcode == 17', ['infiniband.bth.psn', 'infiniband.aeth.syndrome']);
  assert.ok(acks.length > 200, `${acks.length} ACKs`);
  acks.forEach(([psn, syndrome], i) => assert.deepEqual([Number(psn), Number(syndrome)], [4 * i + 3, 0], `ACK ${i}`));
  assert.equal(acks.length + data.length, all);
  assert.deepEqual(tshark(file, ['-o', 'ip.check_checksum:TRUE', '-Y', PROBLEMS]), []);
});

test('a lossless incast without ECN captured at h1:p0 and sw1:p1: every pause and resume the run counted, priority 3 enabled, nothing malformed', (t) => {
  if (!needsTshark(t)) return;
  // ECN off: no DCQCN reaction, so PFC alone holds the senders (pause, resume, …).
  const pod = join(work, 'incast-no-ecn.yaml');
  writeFileSync(pod, readFileSync(fixture('switch/incast-lossless.yaml'), 'utf8').replace('switch: {bufferBytes: 1MiB}', 'switch: {bufferBytes: 1MiB, ecn: {enabled: false}}'));
  const { dir, result } = capture(pod, 'h1:p0,sw1:p1', '500us');
  const port = (name: string) => result.summary.ports.find((p) => p.port === name)!.pfc.find((q) => q.priority === 3)!;
  for (const [name, counted] of [['h1-p0', port('h1:p0').pauseFramesReceived], ['sw1-p1', port('sw1:p1').pauseFramesSent]] as const) {
    const file = join(dir, `${name}.pcap`);
    const pfc = fields(file, 'macc.opcode == 0x0101', ['macc.cbfc.enbv.c3', 'macc.cbfc.pause_time.c3', 'eth.dst']);
    assert.ok(counted > 10, `${name}: ${counted} PFC frames counted`);
    assert.equal(pfc.length, counted, `${name}: every PFC frame the run counted is in the capture`);
    for (const [enabled, quanta, dst] of pfc) {
      assert.deepEqual([enabled, dst], ['1', '01:80:c2:00:00:01']);
      assert.ok(quanta === '65535' || quanta === '0', `quanta ${quanta}`);
    }
    assert.deepEqual(tshark(file, ['-o', 'ip.check_checksum:TRUE', '-Y', PROBLEMS]), []);
  }
});

// --- the RDMA fields of memory-backed QPs (issue 24) ---------------------------------------------

const hexOf = (text: string): string => Buffer.from(text, 'latin1').toString('hex');

test("a memory-backed QP's RETH, ImmDt, AtomicETH, AtomicAckETH and payload bytes read back as sent", (t) => {
  if (!needsTshark(t)) return;
  const payload = new Uint8Array(100).map((_, i) => (i * 7 + 3) & 0xff);
  const frames = [
    data(Opcode.writeOnlyImmediate, 300, 100, { dmaLength: 100, ackReq: true, rdma: rdmaFields({ va: 0x1_2345_6000, rkey: 0xabcd, data: payload, immediate: 0xdead_beef }) }),
    data(Opcode.compareSwap, 301, 0, { ackReq: true, rdma: rdmaFields({ va: 0x1000_0008, rkey: 0x15a, operand: u64Bytes(41n), swap: u64Bytes(2n ** 63n + 5n) }) }),
    data(Opcode.fetchAdd, 302, 0, { ackReq: true, rdma: rdmaFields({ va: 0x1000_0010, rkey: 0x15b, operand: u64Bytes(7n) }) }),
    newFrame(FrameKind.ack, { ...back, opcode: Opcode.atomicAcknowledge, psn: 302, syndrome: 0x1f, msn: 3, rdma: rdmaFields({ original: u64Bytes(123_456_789_012n) }) }),
    newFrame(FrameKind.data, { ...back, opcode: Opcode.readResponseOnly, psn: 303, payloadBytes: 5, syndrome: 0x1f, msn: 4, ipId: 5, rdma: rdmaFields({ data: new TextEncoder().encode('bytes') }) }),
    data(Opcode.sendOnlyImmediate, 304, 256, { ackReq: true, rdma: rdmaFields({ data: new Uint8Array(256).fill(0x5a), immediate: 17 }) }),
  ];
  const file = writePcap('rdma-fields.pcap', frames, frames.map((_, i) => i * 1_000_000), 65_535);
  // tshark 4.0 shows the ImmDt as bytes, listed once per place it decodes it: the first will do.
  const first = (rows: string[][]) => rows.map((row) => row.map((v) => v.split(',')[0]!));
  assert.deepEqual(first(fields(file, 'infiniband.reth', ['infiniband.reth.va', 'infiniband.reth.r_key', 'infiniband.reth.dmalen', 'infiniband.immdt'])), [
    ['0x0000000123456000', '0x0000abcd', '100', 'deadbeef'],
  ]);
  assert.deepEqual(fields(file, 'infiniband.atomiceth', ['infiniband.bth.opcode', 'infiniband.reth.va', 'infiniband.reth.r_key', 'infiniband.atomiceth.swapdt', 'infiniband.atomiceth.cmpdt']), [
    ['19', '0x0000000010000008', '0x0000015a', String(2n ** 63n + 5n), '41'],
    ['20', '0x0000000010000010', '0x0000015b', '7', '0'],
  ]);
  assert.deepEqual(fields(file, 'infiniband.atomicacketh', ['infiniband.atomicacketh.origremdt']), [['123456789012']]);
  assert.deepEqual(first(fields(file, 'infiniband.bth.opcode == 5', ['infiniband.immdt'])), [['00000011']]);
  // The payload after the headers, as tshark shows it (the BTH pad bytes included).
  const payloads = fields(file, 'data', ['infiniband.bth.opcode', 'data.data']);
  assert.deepEqual(payloads.map(([op]) => op), ['11', '16', '5']);
  assert.ok(payloads[0]![1]!.startsWith(Buffer.from(payload).toString('hex')));
  assert.ok(payloads[1]![1]!.startsWith(hexOf('bytes')));
  assert.ok(payloads[2]![1]!.startsWith('5a'.repeat(256)));
  assert.deepEqual(fields(file, PROBLEMS, ['frame.number', '_ws.expert'], CHECK_IP), []);
});

test('rdma-hello captured at h1:p0: the WRITE carries "hello, RDMA" and the RETH of h2\'s region', (t) => {
  if (!needsTshark(t)) return;
  const dir = mkdtempSync(join(work, 'hello-'));
  const r = cli(['run', join(ROOT, 'examples', 'rdma-hello', 'pod.yaml'), '--duration', '20us', '--json', '--pcap', dir, '--pcap-ports', 'h1:p0']);
  assert.equal(r.status, 0, r.stderr);
  const file = join(dir, 'h1-p0.pcap');
  const writes = fields(file, 'infiniband.bth.opcode == 10', ['infiniband.reth.va', 'infiniband.reth.r_key', 'infiniband.reth.dmalen', 'data.data']);
  assert.equal(writes.length, 1);
  const [va, rkey, length, bytes] = writes[0]!;
  assert.equal(length, '11');
  assert.notEqual(BigInt(va!), 0n, 'the RETH names the region\'s address');
  assert.notEqual(Number(rkey!), 0, 'and its rkey');
  assert.equal(Buffer.from(bytes!, 'hex').subarray(0, 11).toString('latin1'), 'hello, RDMA');
  assert.deepEqual(tshark(file, ['-o', 'ip.check_checksum:TRUE', '-Y', PROBLEMS]), []);
});

test('atomic-counter captured at h1:p0: every FETCH_AND_ADD adds 1 at the counter\'s address, the Atomic ACKs carry distinct original values', (t) => {
  if (!needsTshark(t)) return;
  const dir = mkdtempSync(join(work, 'atomic-'));
  const r = cli(['run', join(ROOT, 'examples', 'atomic-counter', 'pod.yaml'), '--duration', '40us', '--json', '--pcap', dir, '--pcap-ports', 'h1:p0']);
  assert.equal(r.status, 0, r.stderr);
  const file = join(dir, 'h1-p0.pcap');
  const adds = fields(file, 'infiniband.bth.opcode == 20', ['infiniband.reth.va', 'infiniband.reth.r_key', 'infiniband.atomiceth.swapdt', 'infiniband.atomiceth.cmpdt']);
  assert.ok(adds.length >= 5, `${adds.length} FETCH_AND_ADDs`);
  for (const row of adds) assert.deepEqual(row, adds[0]);
  assert.deepEqual(adds[0]!.slice(2), ['1', '0']);
  assert.notEqual(BigInt(adds[0]![0]!), 0n);
  const originals = fields(file, 'infiniband.bth.opcode == 18', ['infiniband.atomicacketh.origremdt']).map(([v]) => Number(v));
  assert.ok(originals.length >= 5);
  assert.equal(new Set(originals).size, originals.length, `distinct: ${originals.join(', ')}`);
  assert.ok(originals.some((v) => v > 0));
});
