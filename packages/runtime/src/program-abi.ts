/**
 * The numbers a native program and its host share (issue 25): the channel's message types
 * (packages/native/c/include/rocelab_proto.h), the errno values and ibverbs enums (verbs.h) the
 * host reads or writes, and the encodings of what it answers with (a work completion, a work
 * request as the NIC takes it, little-endian words). No state: program-host.ts and
 * program-verbs.ts read them.
 */
import type { Completion } from '@rocelab/rnic';
import { proto } from '@rocelab/native';

// ---- the channel's messages (packages/native/c/include/rocelab_proto.h) -----------------------

export const T = {
  hello: 1,
  log: 2,
  unsupported: 3,
  regMr: 10,
  deregMr: 11,
  createCq: 20,
  destroyCq: 21,
  pollCq: 22,
  reqNotifyCq: 23,
  getCqEvent: 24,
  createChannel: 25,
  getAsyncEvent: 26,
  createQp: 30,
  modifyQp: 31,
  queryQp: 32,
  destroyQp: 33,
  postSend: 34,
  postRecv: 35,
  createSrq: 36,
  postSrqRecv: 37,
  destroySrq: 38,
  sleepUntil: 40,
  waitAny: 41,
  threadNew: 42,
  threadStart: 43,
  threadExit: 44,
  threadYield: 45,
  threadWake: 46,
} as const;
/** RL_THREAD_YIELD's flag: the wait also ends at the next thing the program could see. */
export const YIELD_SEEN = 1;

export const E = { EPERM: 1, ENOENT: 2, EIO: 5, EBADF: 9, ENOMEM: 12, EFAULT: 14, EINVAL: 22, ENOSPC: 28, EOPNOTSUPP: 95 } as const;

/** ibverbs enums the host reads or writes (verbs.h). */
export const WR = { write: 0, writeImm: 1, send: 2, sendImm: 3, read: 4, cas: 5, faa: 6 } as const;
export const WC_OP = { send: 0, write: 1, read: 2, cas: 3, faa: 4, recv: 128, recvImm: 129 } as const;
export const WC_STATUS: Record<Completion['status'], number> = { success: 0, flushed: 5, remoteInvalidRequest: 9, remoteAccessError: 10, remoteOperationalError: 11, retryExceeded: 12, rnrRetryExceeded: 13 };
export const WC_WITH_IMM = 2;
export const SEND_SIGNALED = 2;
export const QPS = { reset: 0, init: 1, rtr: 2, rts: 3, sqd: 4, sqe: 5, err: 6 } as const;
/** enum ibv_qp_attr_mask (verbs.h). */
export const QP_STATE = 1 << 0;
export const QP_AV = 1 << 7;
export const QP_PATH_MTU = 1 << 8;
export const QP_RETRY_CNT = 1 << 10;
export const QP_RNR_RETRY = 1 << 11;
export const QP_RQ_PSN = 1 << 12;
export const QP_MAX_QP_RD_ATOMIC = 1 << 13;
export const QP_SQ_PSN = 1 << 16;
export const QP_DEST_QPN = 1 << 20;
export const ACCESS_REMOTE_WRITE = 2;
export const ACCESS_REMOTE_READ = 4;
export const ACCESS_REMOTE_ATOMIC = 8;

export const WC_BYTES = 40;
export const MAX_POLL = Math.floor((65536 - 64) / WC_BYTES);
export const MTU_CODE: Record<number, number> = { 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5 };

/** Native QP numbers: the top bit set (planned QPs number from 2), then the host's index, then its count (pod-unique, so a requester is found by its peer's number). */
export const NATIVE_QPN = 0x80_0000;
export const QPS_PER_HOST = 1 << 10;
export const MAX_HOSTS = 1 << 13;

/** A program's work request as the NIC takes it; null for an opcode rocelab0 does not carry. */
export function appWork(opcode: number, local: Uint8Array | null, bytes: number, remoteAddr: bigint, rkey: number, imm: number, compareAdd: bigint, swap: bigint) {
  switch (opcode) {
    case WR.write:
      return { opcode: 'write' as const, local, sizeBytes: bytes, remote: { address: remoteAddr, rkey } };
    case WR.writeImm:
      return { opcode: 'write' as const, local, sizeBytes: bytes, remote: { address: remoteAddr, rkey }, immediate: imm };
    case WR.send:
      return { opcode: 'send' as const, local, sizeBytes: bytes };
    case WR.sendImm:
      return { opcode: 'send' as const, local, sizeBytes: bytes, immediate: imm };
    case WR.read:
      return { opcode: 'read' as const, local, sizeBytes: bytes, remote: { address: remoteAddr, rkey } };
    case WR.faa:
      return { opcode: 'fetchAdd' as const, local, sizeBytes: 8, atomic: { address: remoteAddr, rkey, operand: compareAdd, swap: 0n } };
    case WR.cas:
      return { opcode: 'compareSwap' as const, local, sizeBytes: 8, atomic: { address: remoteAddr, rkey, operand: compareAdd, swap } };
    default:
      return null;
  }
}

export function wc(wrId: bigint, status: number, opcode: number, bytes: number, imm: number, qpn: number, srcQp: number, flags: number): Uint8Array {
  return proto.Wc.encode({ wrId, status, opcode, byteLen: bytes, immData: bswap32(imm), qpNum: qpn, srcQp, wcFlags: flags, vendorErr: 0 });
}

/** ImmDt is __be32 in the program's structs: the channel carries its bytes as they are, read here as a little-endian word. */
export function bswap32(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

export function u32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const v = new DataView(out.buffer);
  values.forEach((x, i) => v.setUint32(i * 4, x >>> 0, true));
  return out;
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of parts) {
    out.set(x, at);
    at += x.length;
  }
  return out;
}
