/**
 * Invariants of a link batch and its frames (DESIGN §4): every header field fits its width on
 * a real wire, PFC frames carry exactly eight quanta and others none, and the parallel arrays
 * match the frames. This runs on every received batch, so it is straight-line code: no
 * closures, and a field path string is built only when a check fails.
 */
import { bitsExpected, checkCount, checkU64, invalid, isUint } from './check.js';
import { FrameKind, INT_MAX_HOPS, IntMode, PFC_PRIORITIES, type Frame } from './frame.js';
import type { DecodeLimits } from './limits.js';
import type { LinkBatch, PairBatch } from './messages.js';

const MAX8 = 0xff;
const MAX16 = 0xffff;
const MAX24 = 0xff_ffff;
const MAX32 = 0xffff_ffff;
const MAX48 = 2 ** 48 - 1;

function bad(at: string, i: number, name: string, bits: number, value: number): never {
  invalid(`${at}.frames[${i}].${name}`, bitsExpected(bits), value);
}

/** `at` names the message holding the frames in error paths: `Batch`, or `PairBatch.links[j]`. */
export function checkFrame(f: Frame, i: number, at = 'Batch'): void {
  if (!isUint(f.kind, FrameKind.credit) || f.kind < FrameKind.data) {
    invalid(`${at}.frames[${i}].kind`, 'a frame kind: 1 (data), 2 (ack), 3 (cnp), 4 (pfc), 5 (TCP segment), 6 (TCP ACK) or 7 (credit)', f.kind);
  }
  if (!isUint(f.srcMac, MAX48)) bad(at, i, 'srcMac', 48, f.srcMac);
  if (!isUint(f.dstMac, MAX48)) bad(at, i, 'dstMac', 48, f.dstMac);
  if (!isUint(f.srcIp, MAX32)) bad(at, i, 'srcIp', 32, f.srcIp);
  if (!isUint(f.dstIp, MAX32)) bad(at, i, 'dstIp', 32, f.dstIp);
  if (!isUint(f.dscp, 63)) bad(at, i, 'dscp', 6, f.dscp);
  if (!isUint(f.ecn, 3)) bad(at, i, 'ecn', 2, f.ecn);
  if (!isUint(f.ipId, MAX16)) bad(at, i, 'ipId', 16, f.ipId);
  if (!isUint(f.ttl, MAX8)) bad(at, i, 'ttl', 8, f.ttl);
  if (!isUint(f.udpSrcPort, MAX16)) bad(at, i, 'udpSrcPort', 16, f.udpSrcPort);
  if (!isUint(f.udpDstPort, MAX16)) bad(at, i, 'udpDstPort', 16, f.udpDstPort);
  if (!isUint(f.opcode, MAX8)) bad(at, i, 'opcode', 8, f.opcode);
  if (!isUint(f.destQp, MAX24)) bad(at, i, 'destQp', 24, f.destQp);
  if (!isUint(f.psn, MAX24)) bad(at, i, 'psn', 24, f.psn);
  if (!isUint(f.syndrome, MAX8)) bad(at, i, 'syndrome', 8, f.syndrome);
  if (!isUint(f.msn, MAX24)) bad(at, i, 'msn', 24, f.msn);
  if (!isUint(f.sackPsn, MAX24)) bad(at, i, 'sackPsn', 24, f.sackPsn);
  if (!isUint(f.tcpSeq, MAX32)) bad(at, i, 'tcpSeq', 32, f.tcpSeq);
  if (!isUint(f.tcpAck, MAX32)) bad(at, i, 'tcpAck', 32, f.tcpAck);
  if (!isUint(f.tcpDstPort, MAX16)) bad(at, i, 'tcpDstPort', 16, f.tcpDstPort);
  if (!isUint(f.tcpFlags, MAX8)) bad(at, i, 'tcpFlags', 8, f.tcpFlags);
  if (!isUint(f.dmaLength, MAX32)) bad(at, i, 'dmaLength', 32, f.dmaLength);
  if (!isUint(f.payloadBytes, MAX32)) bad(at, i, 'payloadBytes', 32, f.payloadBytes);
  if (!isUint(f.pfcEnable, MAX8)) bad(at, i, 'pfcEnable', 8, f.pfcEnable);
  const quanta = f.pfcQuanta;
  if (f.kind === FrameKind.pfc) {
    if (quanta.length !== PFC_PRIORITIES) {
      invalid(`${at}.frames[${i}].pfcQuanta`, `exactly ${PFC_PRIORITIES} quanta on a PFC frame`, quanta.length);
    }
    for (let p = 0; p < PFC_PRIORITIES; p++) {
      if (!isUint(quanta[p]!, MAX16)) bad(at, i, `pfcQuanta[${p}]`, 16, quanta[p]!);
    }
  } else if (f.kind === FrameKind.credit) {
    if (quanta.length !== PFC_PRIORITIES) invalid(`${at}.frames[${i}].pfcQuanta`, `exactly ${PFC_PRIORITIES} FCCLs on a credit frame`, quanta.length);
    for (let p = 0; p < PFC_PRIORITIES; p++) {
      if (!isUint(quanta[p]!, 0xfff)) bad(at, i, `pfcQuanta[${p}]`, 12, quanta[p]!);
    }
  } else if (quanta.length !== 0) {
    invalid(`${at}.frames[${i}].pfcQuanta`, `no quanta on a non-PFC frame (kind ${f.kind})`, quanta.length);
  }
  // Decoded frames without the group have it undefined or null, never a default instance.
  if (f.rdma != null) checkRdma(f, i, at);
  if (f.intMode !== 0 || f.int.length !== 0 || f.intTsPs !== 0) checkInt(f, i, at);
}

/** HPCC's INT header (issue 26): on data and ACK frames, at most `INT_MAX_HOPS` hops, each a safe integer. */
function checkInt(f: Frame, i: number, message: string): void {
  const at = `${message}.frames[${i}]`;
  if (!isUint(f.intMode, IntMode.ts)) invalid(`${at}.intMode`, 'an INT mode: 0 (none), 1 (hops, HPCC) or 2 (timestamp, TIMELY)', f.intMode);
  if (f.intMode !== IntMode.none && f.kind !== FrameKind.data && f.kind !== FrameKind.ack) invalid(`${at}.intMode`, 'an INT header on data and ACK frames only', `kind ${f.kind}`);
  if (f.int.length > INT_MAX_HOPS) invalid(`${at}.int`, `at most ${INT_MAX_HOPS} hops (HPCC IntHeader::maxHop)`, f.int.length);
  if (f.int.length !== 0 && f.intMode !== IntMode.hops) invalid(`${at}.int`, 'hops only with intMode 1 (hops)', f.int.length);
  if (!Number.isSafeInteger(f.intTsPs) || f.intTsPs < 0) checkU64(f.intTsPs, `${at}.intTsPs`);
  if (f.intTsPs !== 0 && f.intMode !== IntMode.ts) invalid(`${at}.intTsPs`, 'a timestamp only with intMode 2 (timestamp)', f.intTsPs);
  for (let h = 0; h < f.int.length; h++) {
    const hop = f.int[h]!;
    for (const key of ['qlenBytes', 'txBytes', 'tsPs', 'lineRateBps'] as const) {
      const v = hop[key];
      if (!Number.isSafeInteger(v) || v < 0) invalid(`${at}.int[${h}].${key}`, 'an integer 0..2^53-1', v);
    }
  }
}

function checkRdma(f: Frame, i: number, message: string): void {
  const r = f.rdma!;
  const at = `${message}.frames[${i}].rdma`;
  // A host stream's segment carries its bytes in rdma.data too (issue 25).
  const stream = f.kind === FrameKind.tcpData && f.tcpFlags !== 0;
  if (f.kind !== FrameKind.data && f.kind !== FrameKind.ack && !stream) invalid(at, 'RDMA fields on data and ACK frames and stream segments (TCP segments with flags) only', `kind ${f.kind}`);
  if (!Number.isSafeInteger(r.va) || r.va < 0) invalid(`${at}.va`, 'an address below 2^53', r.va);
  if (!isUint(r.rkey, MAX32)) invalid(`${at}.rkey`, bitsExpected(32), r.rkey);
  if (!isUint(r.immediate, MAX32)) invalid(`${at}.immediate`, bitsExpected(32), r.immediate);
  if (r.data.length !== 0 && r.data.length !== f.payloadBytes) invalid(`${at}.data`, `none or exactly payloadBytes (${f.payloadBytes}) bytes`, r.data.length);
  if (r.operand.length !== 0 && r.operand.length !== 8) invalid(`${at}.operand`, 'none or 8 bytes', r.operand.length);
  if (r.swap.length !== 0 && r.swap.length !== 8) invalid(`${at}.swap`, 'none or 8 bytes', r.swap.length);
  if (r.original.length !== 0 && r.original.length !== 8) invalid(`${at}.original`, 'none or 8 bytes', r.original.length);
}

function checkParallel(length: number, frames: number, at: string, name: string): void {
  if (length !== frames) invalid(`${at}.${name}`, `${frames} entries (one per frame)`, length);
}

/** One link's frames and their parallel arrays, in the message named `at`. */
function checkFrames(b: Omit<LinkBatch, 'lease' | 'window'>, limits: DecodeLimits, at: string): void {
  const n = b.frames.length;
  checkCount(n, limits.maxFramesPerBatch, `${at}.frames`);
  checkParallel(b.arrivalPs.length, n, at, 'arrivalPs');
  checkParallel(b.originSeq.length, n, at, 'originSeq');
  checkParallel(b.fcsBad.length, n, at, 'fcsBad');
  for (let i = 0; i < n; i++) {
    checkFrame(b.frames[i]!, i, at);
    const arrival = b.arrivalPs[i]!;
    if (!Number.isSafeInteger(arrival) || arrival < 0) checkU64(arrival, `${at}.arrivalPs[${i}]`);
    const seq = b.originSeq[i]!;
    if (!Number.isSafeInteger(seq) || seq < 0) checkU64(seq, `${at}.originSeq[${i}]`);
  }
}

export function checkBatch(b: LinkBatch, limits: DecodeLimits): void {
  if (!isUint(b.lease, MAX32)) invalid('Batch.lease', bitsExpected(32), b.lease);
  if (!isUint(b.window, MAX32)) invalid('Batch.window', bitsExpected(32), b.window);
  checkFrames(b, limits, 'Batch');
}

/**
 * A pair's message: each link at most once, in increasing index order (so a link's frames
 * cannot come twice in one window), each link's frames as a `Batch`'s. Whether an index names
 * one of the pair's links only the receiving member knows (`member-links.ts`).
 */
export function checkPair(p: PairBatch, limits: DecodeLimits): void {
  if (!isUint(p.lease, MAX32)) invalid('PairBatch.lease', bitsExpected(32), p.lease);
  if (!isUint(p.window, MAX32)) invalid('PairBatch.window', bitsExpected(32), p.window);
  const links = p.links;
  checkCount(links.length, limits.maxRepeated, 'PairBatch.links');
  let previous = -1;
  for (let j = 0; j < links.length; j++) {
    const l = links[j]!;
    if (!isUint(l.link, MAX32)) invalid(`PairBatch.links[${j}].link`, bitsExpected(32), l.link);
    if (l.link <= previous) invalid(`PairBatch.links[${j}].link`, `a link index above the previous entry's (${previous}): each link at most once, in increasing order`, l.link);
    previous = l.link;
    checkFrames(l, limits, `PairBatch.links[${j}]`);
  }
}
