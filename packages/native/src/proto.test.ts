import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nativeDist } from './index.js';
import {
  HelloRep,
  ProtoError,
  RL,
  RL_MAX_POLL,
  RegMr,
  STRUCTS,
  SendWr,
  Wc,
  decodeExact,
  decodePollCqRep,
  decodePostRecv,
  decodePostSend,
  decodeReply,
  encodePollCqRep,
  encodePostRecv,
  encodePostSend,
  encodeReply,
  encodeRequest,
  rlTypeName,
} from './proto.js';

const LAYOUT = join(nativeDist(), 'test', 'proto-layout');

test('every struct of rocelab_proto.h has the size and offsets the C compiler gives it', { skip: !existsSync(LAYOUT) && 'proto-layout is not built (npm run build needs gcc)' }, () => {
  const c = JSON.parse(execFileSync(LAYOUT, { encoding: 'utf8', timeout: 10_000 })) as Record<string, { size: number; offsets: Record<string, number> }>;
  const ts = Object.fromEntries(STRUCTS.map((s) => [s.name, { size: s.size, offsets: { ...s.offsets } }]));
  assert.deepEqual(ts, c);
  assert.equal(Object.keys(c).length, STRUCTS.length, "every struct the C side prints is mirrored");
});

test('a struct round-trips field for field, 64-bit ids as bigint and lengths as numbers', () => {
  const rep = { ip: 0x0a000001, mtu: 3, mac: 0x02_00_00_00_00_07, linkBps: 100e9, tscKhz: 2_500_000, hostIndex: 6, node: 'h7' };
  assert.deepEqual(HelloRep.decode(HelloRep.encode(rep)), rep);
  const mr = { addr: 0x7fff_0000_1000n, length: 4096, mapStart: 0x7fff_0000_1000n, mapLength: 8192, access: 7, iova: 0x7fff_0000_1000n };
  assert.deepEqual(decodeExact(RegMr, RegMr.encode(mr), RL.REG_MR), mr);
  const wc = { wrId: 0xffff_ffff_ffff_fffen, status: 0, opcode: 128, byteLen: 64, immData: 0x01020304, qpNum: 0x100, srcQp: 0x200, wcFlags: 3, vendorErr: 0 };
  assert.deepEqual(Wc.decode(Wc.encode(wc)), wc);
});

test('replies and requests carry their header', () => {
  const packet = encodeReply(RL.SLEEP_UNTIL, 0, 5_000_000n, new Uint8Array([1, 2]));
  assert.equal(packet.byteLength, 18);
  assert.deepEqual(decodeReply(packet), { type: RL.SLEEP_UNTIL, err: 0, nowPs: 5_000_000n, body: new Uint8Array([1, 2]) });
  assert.deepEqual([...encodeRequest(RL.WAIT_ANY)], [41, 0, 0, 0, 8, 0, 0, 0]);
  assert.equal(rlTypeName(RL.POLL_CQ), 'RL_POLL_CQ');
  assert.equal(rlTypeName(57), 'type 57');
});

test('posted work requests keep num_sge entries and their inline bytes, padded to 8 on the wire', () => {
  const base = { opcode: 0, sendFlags: 8, immData: 0, remoteAddr: 0n, rkey: 0, compareAdd: 0n, swap: 0n };
  const wrs = [
    { ...base, wrId: 1n, numSge: 1, inlineLen: 5, sgList: [{ addr: 0x1000n, length: 5, lkey: 9 }], inline: new Uint8Array([104, 101, 108, 108, 111]) },
    { ...base, wrId: 2n, numSge: 2, inlineLen: 0, sgList: [{ addr: 0x2000n, length: 1, lkey: 9 }, { addr: 0x3000n, length: 2, lkey: 9 }], inline: new Uint8Array(0) },
  ];
  const body = encodePostSend(17, wrs);
  assert.equal(body.byteLength, 8 + SendWr.size + 8 + SendWr.size);
  assert.deepEqual(decodePostSend(body), { qpn: 17, wrs });
  assert.throws(() => decodePostSend(body.subarray(0, body.byteLength - 1)), ProtoError);

  const recvs = [{ wrId: 5n, numSge: 1, sgList: [{ addr: 0x4000n, length: 64, lkey: 3 }] }];
  assert.deepEqual(decodePostRecv(encodePostRecv(4, recvs)), { qpn: 4, wrs: recvs });
});

test('a poll reply holds up to RL_MAX_POLL completions', () => {
  const wc = { wrId: 1n, status: 0, opcode: 0, byteLen: 8, immData: 0, qpNum: 1, srcQp: 0, wcFlags: 0, vendorErr: 0 };
  assert.deepEqual(decodePollCqRep(encodePollCqRep([wc, { ...wc, wrId: 2n }])), [wc, { ...wc, wrId: 2n }]);
  assert.equal(RL_MAX_POLL, 1637);
  assert.ok(16 + 8 + RL_MAX_POLL * Wc.size <= 65536);
  assert.throws(() => encodePollCqRep(Array.from({ length: RL_MAX_POLL + 1 }, () => wc)), RangeError);
});

test('bad bytes from a program are a ProtoError naming the message and what was expected', () => {
  assert.throws(() => decodeExact(RegMr, new Uint8Array(39), RL.REG_MR), { name: 'ProtoError', message: 'RL_REG_MR: expected a body of 48 bytes (rl_reg_mr), got 39' });
  const huge = RegMr.encode({ addr: 0n, length: 0, mapStart: 0n, mapLength: 0, access: 0, iova: 0n });
  new DataView(huge.buffer).setBigUint64(8, 1n << 60n, true);
  assert.throws(() => RegMr.decode(huge), /rl_reg_mr.length: expected a value below 2\^53/);
  const wr = encodePostSend(1, []);
  new DataView(wr.buffer).setUint32(4, 1, true);
  assert.throws(() => decodePostSend(wr), /RL_POST_SEND: work request 0 of 1: expected 120 bytes/);
});
