/**
 * The verbs of native programs (issue 25), the device's objects kept by the host: MRs
 * registered at the program's own addresses, CQs and their completion channels, SRQs, and QPs,
 * each of which becomes the NIC's memory-backed responder at RTR and requester at RTS. It turns
 * a program's work requests into the NIC's and the NIC's completions and receives into the
 * program's work completions. ProgramHost (program-host.ts) schedules the programs and hands
 * their verb requests here.
 */
import type { AppReceive, Completion, HostPeer, MemoryRegions, QpOverrides, RemoteAccess } from '@rocelab/rnic';
import { ROCE_DSCP } from '@rocelab/wire';
import type { Host } from '@rocelab/host';
import type { NodeContext } from '@rocelab/sim';
import { binding, proto, type Request } from '@rocelab/native';
import {
  ACCESS_REMOTE_ATOMIC,
  ACCESS_REMOTE_READ,
  ACCESS_REMOTE_WRITE,
  E,
  MAX_POLL,
  NATIVE_QPN,
  QPS,
  QPS_PER_HOST,
  QP_AV,
  QP_DEST_QPN,
  QP_MAX_QP_RD_ATOMIC,
  QP_PATH_MTU,
  QP_RETRY_CNT,
  QP_RNR_RETRY,
  QP_RQ_PSN,
  QP_SQ_PSN,
  QP_STATE,
  SEND_SIGNALED,
  T,
  WC_BYTES,
  WC_OP,
  WC_STATUS,
  WC_WITH_IMM,
  WR,
  appWork,
  bswap32,
  concat,
  u32s,
  wc,
} from './program-abi.js';
import type { ProgramHost } from './program-host.js';
import { logUnsupported, type Answer, type Cq, type Mr, type PendingWr, type Program, type Qp, type Thread, type Waiter } from './program-state.js';

export class ProgramVerbs {
  private readonly byRequesterQpn = new Map<number, { program: Program; qp: Qp }>();
  private readonly byResponderQpn = new Map<number, { program: Program; qp: Qp }>();
  private readonly pending = new Map<number, PendingWr>();
  /** Each posted receive buffer's work request id: the NIC names the buffer a message consumed (on an SRQ, whichever QP took it). */
  private readonly receiveIds = new WeakMap<Uint8Array, bigint>();
  private nextQp = 1;

  constructor(
    private readonly ctx: NodeContext,
    private readonly host: Host<ProgramHost>,
    private readonly memory: MemoryRegions,
    private readonly hostIndex: number,
    private readonly peersByIp: ReadonlyMap<number, HostPeer>,
  ) {}

  onCompletion(_qpn: number, wrId: number, c: Completion): void {
    const w = this.pending.get(wrId);
    if (w === undefined) return;
    this.pending.delete(wrId);
    if (!w.signaled && c.status === 'success') return;
    const opcode = w.opcode === WR.read ? WC_OP.read : w.opcode === WR.cas ? WC_OP.cas : w.opcode === WR.faa ? WC_OP.faa : w.opcode === WR.send || w.opcode === WR.sendImm ? WC_OP.send : WC_OP.write;
    this.push(w.program, w.qp.sendCq, wc(w.wrId, WC_STATUS[c.status], opcode, w.bytes, 0, w.qp.qpn, w.qp.destQpn ?? 0, 0));
  }

  onReceive(qpn: number, r: AppReceive): void {
    const at = this.byResponderQpn.get(qpn);
    const wrId = this.receiveIds.get(r.buffer);
    if (at === undefined || wrId === undefined) return;
    const imm = r.immediate !== null;
    this.push(at.program, at.qp.recvCq, wc(wrId, 0, r.opcode === 'writeImmediate' ? WC_OP.recvImm : WC_OP.recv, r.bytes, imm ? r.immediate! : 0, at.qp.qpn, at.qp.destQpn ?? 0, imm ? WC_WITH_IMM : 0));
  }

  /** A completion into `cq`, and the event on its channel if it was armed. */
  private push(p: Program, cq: Cq, entry: Uint8Array): void {
    cq.wcs.push(entry);
    if (cq.armed && cq.channel !== 0) {
      cq.armed = false;
      p.channels.get(cq.channel)?.push(cq.handle);
    }
    p.seen++;
  }

  /** A verb request of program `p` from its thread `t`: its answer, or a wait; null when `req` is no verb. */
  handle(p: Program, t: Thread, req: Request, b: DataView): Answer | Waiter | null {
    switch (req.type) {
      case T.regMr:
        return this.regMr(p, b, req.fd);
      case T.deregMr: {
        const mr = p.mrs.get(b.getUint32(0, true));
        if (mr === undefined) return { err: E.EINVAL };
        this.memory.deregister(mr.rkey);
        p.mrs.delete(mr.handle);
        return { err: 0 };
      }
      case T.createChannel: {
        const handle = p.nextHandle++;
        p.channels.set(handle, []);
        return { err: 0, body: u32s(handle, 0) };
      }
      case T.createCq: {
        const channel = b.getUint32(4, true);
        if (channel !== 0 && !p.channels.has(channel)) return { err: E.EINVAL };
        const handle = p.nextHandle++;
        p.cqs.set(handle, { handle, wcs: [], channel, armed: false });
        return { err: 0, body: u32s(handle, 0) };
      }
      case T.destroyCq:
        return { err: p.cqs.delete(b.getUint32(0, true)) ? 0 : E.EINVAL };
      case T.reqNotifyCq: {
        const cq = p.cqs.get(b.getUint32(0, true));
        if (cq === undefined) return { err: E.EINVAL };
        cq.armed = true;
        return { err: 0 };
      }
      case T.pollCq:
        return this.pollCq(p, t, b.getUint32(0, true), Math.min(b.getUint32(4, true), MAX_POLL));
      case T.getCqEvent: {
        const events = p.channels.get(b.getUint32(0, true));
        if (events === undefined) return { err: E.EINVAL };
        return { type: T.getCqEvent, ready: () => events.length > 0, answer: () => ({ err: 0, body: u32s(events.shift()!, 0) }) };
      }
      case T.getAsyncEvent:
        // No asynchronous event is raised yet: the wait lasts until the run ends.
        return { type: T.getAsyncEvent, ready: () => false, answer: () => ({ err: 0 }) };
      case T.createQp:
        return this.createQp(p, b);
      case T.modifyQp:
        return this.modifyQp(p, b);
      case T.queryQp: {
        const qp = p.qps.get(b.getUint32(0, true));
        if (qp === undefined) return { err: E.EINVAL };
        const out = new Uint8Array(72);
        const v = new DataView(out.buffer);
        v.setUint32(0, qp.qpn, true);
        v.setUint32(8, qp.sending && this.host.nic.appQpInError(qp.destQpn!) ? QPS.err : qp.state, true);
        v.setUint32(20, qp.rqPsn, true);
        v.setUint32(24, qp.sqPsn, true);
        return { err: 0, body: out };
      }
      case T.destroyQp:
        return { err: p.qps.delete(b.getUint32(0, true)) ? 0 : E.EINVAL };
      case T.postSend:
        return this.postSend(p, req.body);
      case T.postRecv:
        return this.postRecv(p, req.body);
      case T.createSrq: {
        const handle = p.nextHandle++;
        p.srqs.set(handle, { buffers: [], pool: { count: 0 } });
        return { err: 0, body: u32s(handle, 0) };
      }
      case T.postSrqRecv:
        return this.postRecv(p, req.body, true);
      case T.destroySrq:
        return { err: p.srqs.delete(b.getUint32(0, true)) ? 0 : E.EINVAL };
      default:
        return null;
    }
  }

  private regMr(p: Program, b: DataView, fd: number): Answer {
    if (fd < 0) return { err: E.EBADF };
    const { addr, length, mapStart, mapLength, access, iova } = proto.RegMr.decode(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    const offset = Number(addr - mapStart);
    if (offset < 0 || offset + length > mapLength) {
      binding().close(fd);
      return { err: E.EINVAL };
    }
    const pages = binding().mapShared(fd, mapLength);
    const bytes = new Uint8Array(pages, offset, length);
    const remote: RemoteAccess[] = [];
    if (access & ACCESS_REMOTE_READ) remote.push('remoteRead');
    if (access & ACCESS_REMOTE_WRITE) remote.push('remoteWrite');
    if (access & ACCESS_REMOTE_ATOMIC) remote.push('remoteAtomic');
    const handle = this.memory.registerAt(iova, bytes, remote);
    const mr: Mr = { handle: p.nextHandle++, lkey: handle.rkey, rkey: handle.rkey, addr, bytes };
    p.mrs.set(mr.handle, mr);
    return { err: 0, body: u32s(mr.handle, mr.lkey, mr.rkey, 0) };
  }

  /** The registered bytes an SGE names (its lkey's region, its bounds), or null. */
  private local(p: Program, addr: bigint, length: number, lkey: number): Uint8Array | null {
    for (const mr of p.mrs.values()) {
      if (mr.lkey !== lkey) continue;
      const offset = addr - mr.addr;
      if (offset < 0n || offset + BigInt(length) > BigInt(mr.bytes.length)) return null;
      return mr.bytes.subarray(Number(offset), Number(offset) + length);
    }
    return null;
  }

  private pollCq(p: Program, t: Thread, handle: number, max: number): Answer | Waiter {
    const cq = p.cqs.get(handle);
    if (cq === undefined) return { err: E.EINVAL };
    const take = (): Answer => {
      const n = Math.min(max, cq.wcs.length);
      const out = new Uint8Array(8 + n * WC_BYTES);
      new DataView(out.buffer).setUint32(0, n, true);
      for (let i = 0; i < n; i++) out.set(cq.wcs.shift()!, 8 + i * WC_BYTES);
      return { err: 0, body: out };
    };
    if (cq.wcs.length > 0) {
      t.polledEmpty = false;
      return take();
    }
    // With threads, the first empty poll in a row answers at once (see the header).
    if (!t.polledEmpty && p.threads.filter((x) => !x.done).length > 1) {
      t.polledEmpty = true;
      return take();
    }
    // An empty poll is a wait for the next thing the program could see (see the header).
    const seen = p.seen;
    return { type: T.pollCq, ready: () => p.seen !== seen, answer: take };
  }

  private createQp(p: Program, b: DataView): Answer {
    const qpType = b.getUint32(0, true);
    if (qpType !== 2) return { err: E.EOPNOTSUPP };
    const sendCq = p.cqs.get(b.getUint32(4, true));
    const recvCq = p.cqs.get(b.getUint32(8, true));
    if (sendCq === undefined || recvCq === undefined) return { err: E.EINVAL };
    const srqHandle = b.getUint32(12, true);
    const srq = srqHandle === 0 ? null : (p.srqs.get(srqHandle) ?? null);
    if (srqHandle !== 0 && srq === null) return { err: E.EINVAL };
    if (this.nextQp >= QPS_PER_HOST) return { err: E.ENOMEM };
    const qpn = NATIVE_QPN | (this.hostIndex << 10) | this.nextQp++;
    const qp: Qp = { qpn, sendCq, recvCq, state: QPS.reset, sigAll: b.getUint32(36, true) !== 0, pathMtu: null, destQpn: null, destIp: null, rqPsn: 0, sqPsn: 0, retryCnt: null, rnrRetry: null, maxRdAtomic: null, dscp: ROCE_DSCP, early: [], srq, sending: false, receiving: false };
    p.qps.set(qpn, qp);
    return { err: 0, body: u32s(qpn, 0) };
  }

  private modifyQp(p: Program, b: DataView): Answer {
    const qp = p.qps.get(b.getUint32(0, true));
    if (qp === undefined) return { err: E.EINVAL };
    const mask = b.getUint32(4, true);
    const f = (offset: number) => b.getUint32(offset, true);
    if (mask & QP_PATH_MTU) qp.pathMtu = 128 << f(12);
    if (mask & QP_DEST_QPN) qp.destQpn = f(16);
    if (mask & QP_RQ_PSN) qp.rqPsn = f(20) & 0xff_ffff;
    if (mask & QP_SQ_PSN) qp.sqPsn = f(24) & 0xff_ffff;
    if (mask & QP_AV) {
      qp.destIp = f(32);
      // The traffic class's DSCP, when the program set one (perftest's --tclass); RoCE's otherwise.
      const tclass = f(40);
      if (tclass !== 0) qp.dscp = tclass >>> 2;
    }
    if (mask & QP_MAX_QP_RD_ATOMIC) qp.maxRdAtomic = f(44);
    if (mask & QP_RETRY_CNT) qp.retryCnt = f(60);
    if (mask & QP_RNR_RETRY) qp.rnrRetry = f(64);
    if (!(mask & QP_STATE)) return { err: 0 };
    const to = f(8);
    if (to === QPS.rtr && !qp.receiving) {
      const peer = this.peerOf(qp);
      if (peer === null) return { err: E.EINVAL };
      this.host.nic.addAppReceiver(this.end(qp, qp.qpn, peer), this.overrides(qp, qp.rqPsn));
      this.byResponderQpn.set(qp.qpn, { program: p, qp });
      qp.receiving = true;
      for (const buffer of qp.early.splice(0)) this.host.nic.postAppReceive(qp.qpn, buffer);
    }
    if (to === QPS.rts && !qp.sending) {
      const peer = this.peerOf(qp);
      if (peer === null || qp.destQpn === null) return { err: E.EINVAL };
      this.host.nic.addAppSender(this.end(qp, qp.destQpn, peer), this.overrides(qp, qp.sqPsn));
      this.byRequesterQpn.set(qp.destQpn, { program: p, qp });
      qp.sending = true;
    }
    if (to === QPS.err && qp.state !== QPS.err) {
      // Its posted receives complete as flushed (rdma_disconnect moves a QP to ERR: rping's CQ thread ends on them).
      // (On an SRQ they are the queue's, and stay.)
      const nic = qp.receiving && qp.srq === null ? (this.host.nic.receiverQps.find((r) => r.end.qpn === qp.qpn)?.receives ?? []) : [];
      for (const buffer of [...nic.splice(0), ...qp.early.splice(0)]) {
        const wrId = this.receiveIds.get(buffer);
        if (wrId !== undefined) this.push(p, qp.recvCq, wc(wrId, WC_STATUS.flushed, WC_OP.recv, 0, 0, qp.qpn, qp.destQpn ?? 0, 0));
      }
    }
    qp.state = to;
    return { err: 0 };
  }

  private peerOf(qp: Qp): HostPeer | null {
    return qp.destIp === null ? null : (this.peersByIp.get(qp.destIp) ?? null);
  }

  private end(qp: Qp, qpn: number, peer: HostPeer) {
    return { qpn, key: `native:${qp.qpn}`, peer, probe: false, dscp: qp.dscp, rateCapBps: null, memory: true };
  }

  private overrides(qp: Qp, initialPsn: number): QpOverrides {
    return { initialPsn, mtu: qp.pathMtu, retryCount: qp.retryCnt, rnrRetry: qp.rnrRetry, maxRdAtomic: qp.maxRdAtomic, ...(qp.srq === null ? {} : { srq: qp.srq }) };
  }

  private postSend(p: Program, body: Uint8Array): Answer {
    const { qpn, wrs } = proto.decodePostSend(body);
    const qp = p.qps.get(qpn);
    if (qp === undefined || !qp.sending || qp.destQpn === null) return { err: E.EINVAL, body: proto.PostRep.encode({ posted: 0 }) };
    for (const [i, wr] of wrs.entries()) {
      let local: Uint8Array | null = null;
      if (wr.inlineLen > 0) local = wr.inline;
      else if (wr.sgList.length > 0) {
        const parts: Uint8Array[] = [];
        for (const sge of wr.sgList) {
          const part = this.local(p, sge.addr, sge.length, sge.lkey);
          if (part === null) return { err: E.EINVAL, body: proto.PostRep.encode({ posted: i }) };
          parts.push(part);
        }
        // One SGE is the program's buffer, read as each packet leaves; several are gathered now.
        local = parts.length === 1 ? parts[0]! : concat(parts);
      }
      const bytes = local?.length ?? 0;
      const work = appWork(wr.opcode, local, bytes, wr.remoteAddr, wr.rkey, bswap32(wr.immData), wr.compareAdd, wr.swap);
      if (work === null) return { err: E.EINVAL, body: proto.PostRep.encode({ posted: i }) };
      const id = this.host.postAppWork(qp.destQpn, work);
      this.pending.set(id, { program: p, qp, wrId: wr.wrId, signaled: qp.sigAll || (wr.sendFlags & SEND_SIGNALED) !== 0, opcode: wr.opcode, bytes });
    }
    return { err: 0, body: proto.PostRep.encode({ posted: wrs.length }) };
  }

  /** Receives on a QP, or on a shared receive queue (`srq`: the body's qpn is the SRQ's handle). */
  private postRecv(p: Program, body: Uint8Array, srq = false): Answer {
    const { qpn, wrs } = proto.decodePostRecv(body, srq ? proto.RL.POST_SRQ_RECV : proto.RL.POST_RECV);
    const qp = srq ? undefined : p.qps.get(qpn);
    const shared = srq ? p.srqs.get(qpn) : undefined;
    // A QP on an SRQ takes no receives of its own (verbs refuses them too).
    if (srq ? shared === undefined : qp === undefined || qp.state === QPS.reset || qp.srq !== null) return { err: E.EINVAL, body: proto.PostRep.encode({ posted: 0 }) };
    for (const [i, wr] of wrs.entries()) {
      if (wr.numSge > 1) {
        logUnsupported(p, this.ctx.nowPs, 'ibv_post_recv (more than one SGE)');
        return { err: E.EOPNOTSUPP, body: proto.PostRep.encode({ posted: i }) };
      }
      let buffer: Uint8Array = new Uint8Array(0);
      const sge = wr.sgList[0];
      if (wr.numSge === 1 && sge !== undefined) {
        const part = this.local(p, sge.addr, sge.length, sge.lkey);
        if (part === null) return { err: E.EINVAL, body: proto.PostRep.encode({ posted: i }) };
        buffer = part;
      }
      // Each receive's own view, so the NIC's answer names it even when two cover the same bytes.
      buffer = buffer.subarray(0);
      this.receiveIds.set(buffer, wr.wrId);
      if (shared !== undefined) {
        shared.buffers.push(buffer);
        shared.pool.count++;
      } else if (qp!.receiving) this.host.postAppReceive(qp!.qpn, buffer);
      else qp!.early.push(buffer);
    }
    return { err: 0, body: proto.PostRep.encode({ posted: wrs.length }) };
  }
}
