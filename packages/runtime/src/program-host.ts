/**
 * Native programs on a host (issue 25): unmodified verbs programs (perftest, ibv_rc_pingpong, a
 * user's own C) run as child processes of the host's member, each on the rocelab0 device
 * (packages/native), and this is the device's other half: it keeps their PDs, MRs, CQs,
 * completion channels and QPs, and turns their verbs into the NIC's memory-backed QPs, the same
 * RC state machines, DCQCN and PFC as every other flow.
 *
 * Lockstep: a program runs only inside an engine event of its host, and the engine waits for it
 * (the channel is synchronous): its virtual time stands still while it runs. It runs until it
 * waits (a poll of an empty CQ, a CQ event, a sleep, a spin); the wait is answered from a later
 * event, when its condition holds. So what a program does, and when, is the same in every run,
 * every mode and on every machine, whatever the machine's load.
 *
 * A wait "for anything" (an empty poll, a spin) ends at the next thing the program could see
 * happen, not at a state it could already see: a program that polls one CQ while another holds
 * entries it ignores still moves forward in virtual time instead of spinning in place.
 *
 * Threads (native/c/core/threads.c): each thread a program starts has a channel of its own. The
 * program waits only when every one of its threads waits; the host resumes one thread at a time,
 * the first ready one in thread-creation order (the main thread first), and runs it until it waits
 * again before it looks at the others. So the interleaving of a program's threads depends only on
 * what they ask and when their waits end, never on the OS scheduler. What is not guaranteed: a
 * thread that blocks outside rocelab (a mutex held across a wait, a condition variable, a pipe
 * between threads) stalls its program until the wall-time timeout stops it. In a program with
 * more than one thread, an empty poll of a CQ answers "nothing" once and waits only when repeated
 * with nothing in between (rping's CQ thread polls until empty, then waits for its next event).
 */
import type { AppEvents, AppReceive, Completion, HostPeer, MemoryRegions, QpOverrides, RemoteAccess, SharedReceives } from '@rocelab/rnic';
import { ROCE_DSCP } from '@rocelab/wire';
import type { Host } from '@rocelab/host';
import type { NodeContext } from '@rocelab/sim';
import type { PodSpec, ProgramSpec } from '@rocelab/topology';
import { PROGRAM_LOG_MAX_LINES, outputTail, type ProgramReport } from '@rocelab/results';
import { ProgramChannel, ThreadChannel, binding, proto, type Request } from '@rocelab/native';
import { hostNames } from './qp-plan.js';
import { ProgramSockets } from './program-sockets.js';

type ProgramStatus = ProgramReport['status'];

// ---- the channel's messages (packages/native/c/include/rocelab_proto.h) -----------------------

const T = {
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
const YIELD_SEEN = 1;

const E = { EPERM: 1, ENOENT: 2, EIO: 5, EBADF: 9, ENOMEM: 12, EFAULT: 14, EINVAL: 22, ENOSPC: 28, EOPNOTSUPP: 95 } as const;

/** ibverbs enums the host reads or writes (verbs.h). */
const WR = { write: 0, writeImm: 1, send: 2, sendImm: 3, read: 4, cas: 5, faa: 6 } as const;
const WC_OP = { send: 0, write: 1, read: 2, cas: 3, faa: 4, recv: 128, recvImm: 129 } as const;
const WC_STATUS: Record<Completion['status'], number> = { success: 0, flushed: 5, remoteInvalidRequest: 9, remoteAccessError: 10, remoteOperationalError: 11, retryExceeded: 12, rnrRetryExceeded: 13 };
const WC_WITH_IMM = 2;
const SEND_SIGNALED = 2;
const QPS = { reset: 0, init: 1, rtr: 2, rts: 3, sqd: 4, sqe: 5, err: 6 } as const;
/** enum ibv_qp_attr_mask (verbs.h). */
const QP_STATE = 1 << 0;
const QP_AV = 1 << 7;
const QP_PATH_MTU = 1 << 8;
const QP_RETRY_CNT = 1 << 10;
const QP_RNR_RETRY = 1 << 11;
const QP_RQ_PSN = 1 << 12;
const QP_MAX_QP_RD_ATOMIC = 1 << 13;
const QP_SQ_PSN = 1 << 16;
const QP_DEST_QPN = 1 << 20;
const ACCESS_REMOTE_WRITE = 2;
const ACCESS_REMOTE_READ = 4;
const ACCESS_REMOTE_ATOMIC = 8;

const WC_BYTES = 40;
const MAX_POLL = Math.floor((65536 - 64) / WC_BYTES);
const MTU_CODE: Record<number, number> = { 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5 };

/** Native QP numbers: the top bit set (planned QPs number from 2), then the host's index, then its count (pod-unique, so a requester is found by its peer's number). */
const NATIVE_QPN = 0x80_0000;
const QPS_PER_HOST = 1 << 10;
const MAX_HOSTS = 1 << 13;
/** The TSC's virtual frequency: what /proc/cpuinfo says under rocelab (so perftest's figures are the same everywhere). */
export const TSC_KHZ = 2_000_000;


interface Mr {
  handle: number;
  lkey: number;
  rkey: number;
  /** The program's address of the first registered byte, and the registered bytes themselves (the shared pages). */
  addr: bigint;
  bytes: Uint8Array;
}

interface Cq {
  handle: number;
  wcs: Uint8Array[];
  channel: number;
  armed: boolean;
}

interface Qp {
  qpn: number;
  sendCq: Cq;
  recvCq: Cq;
  state: number;
  sigAll: boolean;
  pathMtu: number | null;
  destQpn: number | null;
  destIp: number | null;
  rqPsn: number;
  sqPsn: number;
  retryCnt: number | null;
  rnrRetry: number | null;
  maxRdAtomic: number | null;
  dscp: number;
  /** Receives posted before RTR (ibv_rc_pingpong posts them in INIT): handed to the responder when it exists. */
  early: Uint8Array[];
  /** Its shared receive queue, if it was created on one. */
  srq: SharedReceives | null;
  sending: boolean;
  receiving: boolean;
}

interface PendingWr {
  program: Program;
  qp: Qp;
  wrId: bigint;
  signaled: boolean;
  opcode: number;
  bytes: number;
}

type Answer = { err: number; body?: Uint8Array };
interface Waiter {
  type: number;
  ready(): boolean;
  answer(): Answer;
  /** A poll with a timeout: ready at this virtual instant at the latest. */
  deadlinePs?: number;
}

/** One thread of a program: the main thread (index 0, the program's channel) or one it started. */
interface Thread {
  index: number;
  channel: ProgramChannel | ThreadChannel;
  waiter: Waiter | null;
  sleepUntilPs: number | null;
  /** To be served without a reply first: the program just started, or the thread's RL_THREAD_START is unread. */
  fresh: boolean;
  done: boolean;
  /** An empty poll was answered at once (a program with threads): the next one in a row waits. */
  polledEmpty: boolean;
}

interface Program {
  spec: ProgramSpec;
  channel: ProgramChannel;
  threads: Thread[];
  /** Bumped by RL_THREAD_WAKE and by a thread's end: ends the RL_THREAD_YIELDs of the program. */
  wakes: number;
  outcome: ProgramReport;
  mrs: Map<number, Mr>;
  cqs: Map<number, Cq>;
  channels: Map<number, number[]>;
  srqs: Map<number, SharedReceives>;
  qps: Map<number, Qp>;
  nextHandle: number;
  /** Bumped by everything the program could see happen: a wait for anything ends at the next bump. */
  seen: number;
  done: boolean;
}

export class ProgramHost implements AppEvents {
  private readonly programs: Program[] = [];
  private readonly hostIndex: number;
  private readonly peersByIp = new Map<number, HostPeer>();
  private readonly byRequesterQpn = new Map<number, { program: Program; qp: Qp }>();
  private readonly byResponderQpn = new Map<number, { program: Program; qp: Qp }>();
  private readonly pending = new Map<number, PendingWr>();
  /** Each posted receive buffer's work request id: the NIC names the buffer a message consumed (on an SRQ, whichever QP took it). */
  private readonly receiveIds = new WeakMap<Uint8Array, bigint>();
  private nextQp = 1;
  private readonly sockets: ProgramSockets;

  constructor(
    private readonly ctx: NodeContext,
    private readonly host: Host<ProgramHost>,
    specs: readonly ProgramSpec[],
    private readonly memory: MemoryRegions,
    pod: PodSpec,
  ) {
    this.hostIndex = hostNames(pod).indexOf(ctx.name);
    if (this.hostIndex < 0 || this.hostIndex >= MAX_HOSTS) throw new Error(`${ctx.name}: native programs run on the first ${MAX_HOSTS} hosts of a pod`);
    for (const n of pod.nodes) if (n.role === 'host') this.peersByIp.set(n.ip, { name: n.name, ip: n.ip, mac: n.mac });
    const me = [...this.peersByIp.values()].find((h) => h.name === ctx.name)!;
    // Socket news (a connection, bytes, a close) reach a waiting program at the same instant, through the app's timer.
    this.sockets = new ProgramSockets({ streams: host.streams, ip: me.ip, isPodAddress: (ip) => this.peersByIp.has(ip), nowPs: () => ctx.nowPs }, (id) => {
      const p = this.programs[id];
      if (p === undefined) return;
      p.seen++;
      this.host.app.wakeAt(this.ctx.nowPs);
    });
    for (const spec of specs) this.programs.push(this.start(spec));
    host.app.wakeAt(ctx.nowPs);
  }

  /** Every program's outcome as of now (a running one's output so far). */
  outcomes(): ProgramReport[] {
    return this.programs.map((p) => ({ ...p.outcome, stdout: outputTail(p.channel.stdout()), stderr: outputTail(p.channel.stderr()), log: [...p.outcome.log], unsupported: { ...p.outcome.unsupported } }));
  }

  /** The run ended: programs still waiting are stopped (their status says so). */
  stopAll(): void {
    for (const p of this.programs) {
      if (p.done) continue;
      p.channel.kill();
      const what = (t: Thread) => (t.waiter === null ? 'running' : `waiting in ${proto.rlTypeName(t.waiter.type)}`);
      const live = p.threads.filter((t) => !t.done);
      const waiting = live.length === 1 ? what(live[0]!) : live.map((t) => `thread ${t.index} ${what(t)}`).join(', ');
      this.finish(p, 'running', null);
      this.log(p, `still ${waiting} when the run ended: stopped`);
    }
  }

  // --- AppEvents (from the NIC, through the host's app scheduler) ----------------------------------

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

  /** A WRITE, atomic or READ response landed in registered memory: a program spinning on memory may see it. */
  onMemory(): void {
    for (const p of this.programs) p.seen++;
  }

  run(nowPs: number): void {
    for (const p of this.programs) {
      // One thread at a time, the first ready one in creation order, until none is (see the header).
      while (!p.done) {
        const t = p.threads.find((x) => !x.done && (x.fresh || (x.waiter !== null && x.waiter.ready())));
        if (t === undefined) break;
        if (t.fresh) t.fresh = false;
        else {
          const w = t.waiter!;
          t.waiter = null;
          t.sleepUntilPs = null;
          const a = w.answer();
          t.channel.reply(w.type, a.err, BigInt(nowPs), a.body);
        }
        this.serve(p, t);
      }
    }
    this.armSleep();
  }

  // --- serving one program until it waits -------------------------------------------------------

  private start(spec: ProgramSpec): Program {
    // A virtual PID and a seeded random stream (identity.c): what programs seed their PSNs with is the same every run.
    const identity = { ROCELAB_PID: String(1000 + this.hostIndex * 64 + spec.index), ROCELAB_RANDOM_SEED: String(this.ctx.rng(`program:${spec.index}`).nextU32()) };
    const channel = new ProgramChannel({ argv: spec.argv, env: { ...spec.env, ...identity }, cwd: spec.cwd });
    const outcome: ProgramReport = { node: spec.node, index: spec.index, argv: spec.argv, status: 'running', exitCode: null, signal: null, startedPs: this.ctx.nowPs, exitedPs: null, stdout: '', stderr: '', log: [], unsupported: {}, error: null };
    const main: Thread = { index: 0, channel, waiter: null, sleepUntilPs: null, fresh: true, done: false, polledEmpty: false };
    return { spec, channel, threads: [main], wakes: 0, outcome, mrs: new Map(), cqs: new Map(), channels: new Map(), srqs: new Map(), qps: new Map(), nextHandle: 1, seen: 0, done: false };
  }

  /** Runs thread `t` of `p` until it waits, ends, or the program ends. */
  private serve(p: Program, t: Thread): void {
    for (;;) {
      let req: Request | null;
      try {
        req = t.channel.next(p.spec.timeoutMs);
      } catch (e) {
        p.channel.kill();
        return this.finish(p, 'failed', `${(e as Error).message} (a program must reach a verb that waits within ${p.spec.timeoutMs} ms of wall time; programs: [{timeout}] raises it)`);
      }
      if (req === null) {
        if (t.index === 0) return this.finish(p, 'exited', null);
        // A thread's channel closed without its last word: the process is gone (another thread
        // exited it). The main thread's pending request will never be answered; its channel says how it ended.
        t.done = true;
        p.channel.abandon();
        for (let i = 0; i < 1000 && p.channel.next(p.spec.timeoutMs) !== null; i++) p.channel.abandon();
        return this.finish(p, 'exited', null);
      }
      if (req.type === T.threadExit) {
        t.done = true;
        t.channel.close();
        p.wakes++;
        return;
      }
      if (req.type !== T.pollCq) t.polledEmpty = false;
      let out: Answer | Waiter;
      try {
        out = this.handle(p, t, req);
      } catch (e) {
        this.log(p, `request ${req.type}: ${(e as Error).message}`);
        out = { err: E.EINVAL };
      }
      if ('ready' in out) {
        if (!out.ready()) {
          t.waiter = out;
          return;
        }
        out = out.answer();
      }
      t.channel.reply(req.type, out.err, BigInt(this.ctx.nowPs), out.body);
    }
  }

  private finish(p: Program, status: ProgramStatus, error: string | null): void {
    p.done = true;
    for (const t of p.threads) {
      t.done = true;
      t.waiter = null;
      t.sleepUntilPs = null;
      if (t.index !== 0) t.channel.close();
    }
    this.sockets.closeAll(this.programs.indexOf(p));
    p.outcome.status = status;
    p.outcome.exitedPs = this.ctx.nowPs;
    p.outcome.error = error;
    if (error !== null) this.log(p, `error: ${error}`);
    const exit = p.channel.exitStatus();
    if (status !== 'exited' || exit === null) return;
    if (exit.error !== null) {
      p.outcome.status = 'failed';
      p.outcome.error = exit.error;
      this.log(p, `error: ${exit.error}`);
    } else if (exit.signal !== null) {
      p.outcome.status = 'killed';
      p.outcome.signal = exit.signal;
    } else {
      p.outcome.exitCode = exit.code;
    }
  }

  private armSleep(): void {
    let next: number | null = null;
    for (const p of this.programs) {
      if (p.done) continue;
      for (const t of p.threads) {
        if (t.done) continue;
        const at = t.sleepUntilPs ?? t.waiter?.deadlinePs ?? null;
        if (at !== null) next = next === null ? at : Math.min(next, at);
      }
    }
    this.host.app.wakeAt(next);
  }

  private log(p: Program, line: string): void {
    p.outcome.log.push(`${(this.ctx.nowPs / 1e6).toFixed(3)} us ${line}`);
    if (p.outcome.log.length > PROGRAM_LOG_MAX_LINES) p.outcome.log.shift();
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

  // --- the verbs ------------------------------------------------------------------------------

  private handle(p: Program, t: Thread, req: Request): Answer | Waiter {
    const b = new DataView(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    switch (req.type) {
      case T.hello:
        return { err: 0, body: this.hello() };
      case T.log:
        this.log(p, new TextDecoder().decode(req.body));
        return { err: 0 };
      case T.unsupported:
        this.unsupported(p, proto.decodeText(req.body));
        return { err: 0 };
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
      case T.sleepUntil: {
        const until = Number(b.getBigUint64(0, true));
        t.sleepUntilPs = until;
        return { type: T.sleepUntil, ready: () => this.ctx.nowPs >= until, answer: () => ({ err: 0 }) };
      }
      case T.waitAny: {
        const seen = p.seen;
        // With an instant: a program spinning on its clock, which must see time pass even when nothing happens.
        const until = req.body.byteLength >= 8 ? Number(b.getBigUint64(0, true)) : null;
        if (until === null) return { type: T.waitAny, ready: () => p.seen !== seen, answer: () => ({ err: 0 }) };
        return { type: T.waitAny, ready: () => p.seen !== seen || this.ctx.nowPs >= until, answer: () => ({ err: 0 }), deadlinePs: until };
      }
      case T.threadNew: {
        if (req.fd < 0) return { err: E.EBADF };
        const index = p.threads.length;
        p.threads.push({ index, channel: new ThreadChannel(req.fd, `${p.spec.argv[0] ?? 'program'} thread ${index}`), waiter: null, sleepUntilPs: null, fresh: true, done: false, polledEmpty: false });
        return { err: 0, body: u32s(index, 0) };
      }
      case T.threadStart:
        return { err: 0 };
      case T.threadWake:
        p.wakes++;
        return { err: 0 };
      case T.threadYield: {
        const wakes = p.wakes;
        const seen = p.seen;
        const alsoSeen = (b.getUint32(0, true) & YIELD_SEEN) !== 0;
        return { type: T.threadYield, ready: () => p.wakes !== wakes || (alsoSeen && p.seen !== seen), answer: () => ({ err: 0 }) };
      }
      default: {
        if (req.type >= 50 && req.type < 70) {
          const out = this.sockets.handle(this.programs.indexOf(p), req.type, req.body);
          if (!('wait' in out)) return out;
          const w = out.wait;
          return { type: req.type, ready: () => w.ready() || (w.deadlinePs !== undefined && this.ctx.nowPs >= w.deadlinePs), answer: () => w.answer(), ...(w.deadlinePs === undefined ? {} : { deadlinePs: w.deadlinePs }) };
        }
        this.log(p, `request type ${req.type} is not known to this host (a newer device library?)`);
        return { err: E.EOPNOTSUPP };
      }
    }
  }

  private hello(): Uint8Array {
    const port = this.ctx.ports[0]!.out;
    const me = [...this.peersByIp.values()].find((h) => h.name === this.ctx.name)!;
    return proto.HelloRep.encode({ ip: me.ip, mtu: MTU_CODE[port.mtu] ?? 3, mac: me.mac, linkBps: Math.round(port.rateBps), tscKhz: TSC_KHZ, hostIndex: this.hostIndex, node: this.ctx.name });
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
        this.unsupported(p, 'ibv_post_recv (more than one SGE)');
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

  private unsupported(p: Program, name: string): void {
    p.outcome.unsupported[name] = (p.outcome.unsupported[name] ?? 0) + 1;
    this.log(p, `${name} is not supported by rocelab0: it failed with EOPNOTSUPP`);
  }
}

/** A program's work request as the NIC takes it; null for an opcode rocelab0 does not carry. */
function appWork(opcode: number, local: Uint8Array | null, bytes: number, remoteAddr: bigint, rkey: number, imm: number, compareAdd: bigint, swap: bigint) {
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

function wc(wrId: bigint, status: number, opcode: number, bytes: number, imm: number, qpn: number, srcQp: number, flags: number): Uint8Array {
  return proto.Wc.encode({ wrId, status, opcode, byteLen: bytes, immData: bswap32(imm), qpNum: qpn, srcQp, wcFlags: flags, vendorErr: 0 });
}

/** ImmDt is __be32 in the program's structs: the channel carries its bytes as they are, read here as a little-endian word. */
function bswap32(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

function u32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const v = new DataView(out.buffer);
  values.forEach((x, i) => v.setUint32(i * 4, x >>> 0, true));
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of parts) {
    out.set(x, at);
    at += x.length;
  }
  return out;
}

