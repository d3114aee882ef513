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
 *
 * This file schedules the programs and their threads and answers their session requests (hello,
 * log, sleeps, waits, threads, sockets through program-sockets.ts); the verbs and the device's
 * objects are program-verbs.ts, the channel's numbers program-abi.ts, the per-program records
 * program-state.ts.
 */
import type { AppEvents, AppReceive, Completion, HostPeer, MemoryRegions } from '@rocelab/rnic';
import type { Host } from '@rocelab/host';
import type { NodeContext } from '@rocelab/sim';
import type { PodSpec, ProgramSpec } from '@rocelab/topology';
import { outputTail, type ProgramReport } from '@rocelab/results';
import { ProgramChannel, ThreadChannel, proto, type Request } from '@rocelab/native';
import { hostNames } from './qp-plan.js';
import { ProgramSockets } from './program-sockets.js';
import { E, MAX_HOSTS, MTU_CODE, T, YIELD_SEEN, u32s } from './program-abi.js';
import { logLine, logUnsupported, type Answer, type Program, type Thread, type Waiter } from './program-state.js';
import { ProgramVerbs } from './program-verbs.js';

type ProgramStatus = ProgramReport['status'];

/** The TSC's virtual frequency: what /proc/cpuinfo says under rocelab (so perftest's figures are the same everywhere). */
export const TSC_KHZ = 2_000_000;

export class ProgramHost implements AppEvents {
  private readonly programs: Program[] = [];
  private readonly hostIndex: number;
  private readonly peersByIp = new Map<number, HostPeer>();
  private readonly sockets: ProgramSockets;
  /** The programs' verbs objects (MRs, CQs, QPs), and what the NIC tells them. */
  private readonly verbs: ProgramVerbs;

  constructor(
    private readonly ctx: NodeContext,
    private readonly host: Host<ProgramHost>,
    specs: readonly ProgramSpec[],
    memory: MemoryRegions,
    pod: PodSpec,
  ) {
    this.hostIndex = hostNames(pod).indexOf(ctx.name);
    if (this.hostIndex < 0 || this.hostIndex >= MAX_HOSTS) throw new Error(`${ctx.name}: native programs run on the first ${MAX_HOSTS} hosts of a pod`);
    for (const n of pod.nodes) if (n.role === 'host') this.peersByIp.set(n.ip, { name: n.name, ip: n.ip, mac: n.mac });
    this.verbs = new ProgramVerbs(ctx, host, memory, this.hostIndex, this.peersByIp);
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

  onCompletion(qpn: number, wrId: number, c: Completion): void {
    this.verbs.onCompletion(qpn, wrId, c);
  }

  onReceive(qpn: number, r: AppReceive): void {
    this.verbs.onReceive(qpn, r);
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
    logLine(p, this.ctx.nowPs, line);
  }

  // --- a program's requests: its session here, its verbs in ProgramVerbs ---------------------------

  private handle(p: Program, t: Thread, req: Request): Answer | Waiter {
    const b = new DataView(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    switch (req.type) {
      case T.hello:
        return { err: 0, body: this.hello() };
      case T.log:
        this.log(p, new TextDecoder().decode(req.body));
        return { err: 0 };
      case T.unsupported:
        logUnsupported(p, this.ctx.nowPs, proto.decodeText(req.body));
        return { err: 0 };
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
        const verb = this.verbs.handle(p, t, req, b);
        if (verb !== null) return verb;
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
}
