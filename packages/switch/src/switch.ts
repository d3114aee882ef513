/**
 * A switch (ToR, leaf or spine): the dataplane mechanisms composed behind the engine's
 * `NodeModel`. Each frame is classified (DSCP → priority), forwarded (L2 tables for directly
 * attached hosts, L3 ECMP routes otherwise), admitted by the MMU (which may pause the ingress
 * upstream), queued in one of the egress port's 8 queues and, when the link pulls it, marked
 * by ECN at dequeue. A PFC watchdog polls every lossless queue. Every frame taken in is
 * forwarded, held, or dropped with a reason.
 */
import { FrameKind, PFC_PRIORITIES, cloneFrame, frameBytes, type ByteAccounting, type Frame } from '@rocelab/wire';
import { DROP_REASONS, dropReasonIndex, type DropReason, type NodeContext, type NodeModel, type Rng } from '@rocelab/sim';
import { EgressFaults } from './egress-faults.js';
import { intHop, stampInt, wantsInt } from './int-stamp.js';
import { Classifier } from './classifier.js';
import { markingQueues, shouldMark, type EcnConfig } from './ecn.js';
import { ecmpConfigOf, Forwarding, NO_ROUTE, type EcmpConfig, type Route } from './forwarding.js';
import { L2Tables } from './mac-table.js';
import { Mmu, type GroupPfc } from './mmu.js';
import { PfcGenerator } from './pfc.js';
import { PfcWatchdog, type WatchdogAction } from './pfc-watchdog.js';
import type { SwitchPlan } from './plan.js';
import type { SwitchSettings } from './profiles.js';
import { EgressScheduler } from './scheduler.js';
import { Tagger, type PortDirection } from './tagger.js';

/** A host attached to this switch: L2 delivery by ARP and MAC tables. */
export interface AttachedHost {
  ip: number;
  mac: number;
  port: number;
}

export interface SwitchConfig {
  mac: number;
  /** MAC of the node behind each port (the next hop after rewrite). */
  peerMacs: readonly number[];
  routes: readonly Route[];
  attachedHosts: readonly AttachedHost[];
  settings: SwitchSettings;
  plan: SwitchPlan;
  accounting: ByteAccounting;
  /** Which way each port faces in the Clos (`portDirections`); needed only with `settings.tagger`. */
  portDirections?: readonly PortDirection[];
}

/**
 * A switch-level fault or configuration change, in base units and port indices (the fault table
 * in @rocelab/topology resolves a file's or an API call's fault to these). `change: null`
 * restores what the settings said (the end of a fault with `for`).
 */
export type SwitchFault =
  | { kind: 'macFlush'; mac: number | null }
  | { kind: 'arpExpire'; ip: number | null }
  | { kind: 'pfc'; port: number | null; priority: number; change: GroupPfc | null }
  | { kind: 'ecn'; port: number | null; priority: number | null; change: (Partial<EcnConfig> & { enabled?: boolean }) | null }
  | { kind: 'watchdog'; change: { enabled: boolean; action?: WatchdogAction } | null }
  /** A port's egress (one queue of it, or all: priority null) stops, or runs again (`on: false`). */
  | { kind: 'egressStuck'; port: number; priority: number | null; on: boolean }
  /** A port's egress (one queue, or all) drains at `bps`; null: at its link's rate again. */
  | { kind: 'egressSlow'; port: number; priority: number | null; bps: number | null }
  /** A port pauses its neighbour on `priority` (null: the lossless priorities) whatever its buffer says, or stops (`on: false`). */
  | { kind: 'pauseStorm'; port: number; priority: number | null; on: boolean }
  /** `dscpMisconfig` (issue 24): `dscp` (null: all) arriving on `port` (null: all) classifies to `priority`; null: the settings' map again. */
  | { kind: 'dscp'; port: number | null; dscp: number | null; priority: number | null }
  /** `ecmpMisconfig` (issue 24): another ECMP hash, seed or set of fields; null: the settings' again. */
  | { kind: 'ecmp'; change: Partial<EcmpConfig> | null };

const POLL_TIMER = 0;
/** A queued frame's scheduler tag: its ingress port and ingress priority group (with Tagger its queue may differ from the group). */
const TAG_SHIFT = 3;
const PG_MASK = PFC_PRIORITIES - 1;
const refreshTimer = (port: number, pg: number): number => 1 + port * PFC_PRIORITIES + pg;
/** After every refresh timer: one per port, the end of a slow egress's gap between frames. */
const slowTimer = (ports: number, port: number): number => 1 + ports * PFC_PRIORITIES + port;

export class Switch implements NodeModel<null, SwitchFault> {
  readonly kind = 'switch';
  private readonly classifier: Classifier;
  private readonly forwarding: Forwarding;
  private readonly l2: L2Tables;
  private readonly local: Map<number, AttachedHost>;
  readonly mmu: Mmu;
  readonly pfc: PfcGenerator;
  /** Per port: frames, each tagged with its ingress port and group (`inPort << TAG_SHIFT | pg`). */
  private readonly queues: EgressScheduler<Frame>[];
  private readonly watchdogs: Array<Array<PfcWatchdog | null>>;
  private readonly ecnRng: Rng;
  /** Per port: bit q set = egress queue q may be ECN-marked (0: marking off). */
  private readonly ecnQueues: number[];
  /** Per (port, queue): the RED parameters, when a fault changed them from the port's. */
  private readonly ecnOverride: Array<EcnConfig | null>;
  /** Per port: its RED parameters, those of its link rate under `ecn.byRate` or else the switch's `ecn`. */
  private readonly ecnOfPort: EcnConfig[];
  /** Per (port, queue): packets sent, ECN marks. */
  readonly txPackets: Float64Array;
  /** Bytes each port sent (HPCC switch-node.cc `m_txBytes`): INT records carry them. */
  private readonly txBytes: Float64Array;
  readonly ecnMarked: Float64Array;
  readonly floodCopies: Float64Array;
  /** Per ingress port: packets of a lossless group the buffer could not take (`buffer`, `headroom_full`): PFC failed to protect them. */
  readonly losslessDrops: Float64Array;
  /**
   * Per (port, drop reason): frames of a lossless priority this switch dropped, for any reason
   * (issue 24: `noLosslessDrops` passed while the watchdog dropped thousands), at the port the
   * drop is counted at (`port * DROP_REASONS.length + dropReasonIndex(reason)`).
   */
  readonly losslessDropped: Float64Array;
  private held = 0;
  /** Tagger, when on; with it, per priority the tag it carries (0: not a tag's priority) and the DSCP a re-tag writes for it. */
  readonly tagger: Tagger | null;
  private readonly tagOfPriority: Uint8Array;
  private readonly dscpOfPriority: Uint8Array;
  private readonly hostPort: Uint8Array;
  /** Stuck and slow egress queues (faults): the queues each port may not start now. */
  readonly egress: EgressFaults;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: SwitchConfig,
  ) {
    const { settings, plan } = config;
    const ports = ctx.ports.length;
    this.classifier = new Classifier(settings.dscpMap, settings.losslessPriorities, ports);
    this.forwarding = new Forwarding(config.routes, ecmpConfigOf(settings, ctx.index));
    this.l2 = new L2Tables({ arpAgeingPs: settings.arpAgeingPs, macAgeingPs: settings.macAgeingPs, losslessFlood: settings.losslessFlood });
    this.local = new Map(config.attachedHosts.map((h) => [h.ip, h]));
    // As after the hosts' first ARP exchange: both tables know every attached host — at pod start,
    // and again when a restarted switch boots (a simplification: a rebooted switch would relearn
    // them from the hosts' next ARP exchange and frames).
    const nowPs = ctx.nowPs;
    for (const h of config.attachedHosts) {
      this.l2.setArp(nowPs, h.ip, h.mac);
      this.l2.learn(nowPs, h.mac, h.port);
    }
    this.mmu = new Mmu(plan.mmu, ports);
    this.pfc = new PfcGenerator(ports, { quanta: settings.pauseQuanta, refreshPs: plan.refreshPs }, {
      send: (port, frame) => ctx.sendControl(port, frame),
      setRefresh: (port, pg, atPs) => (atPs === null ? ctx.cancelTimer(refreshTimer(port, pg)) : ctx.setTimer(refreshTimer(port, pg), atPs)),
    });
    this.queues = ctx.ports.map(
      () => new EgressScheduler<Frame>({ strictPriorities: settings.strictPriorities, weights: settings.weights, quantumBytes: plan.maxFrameBytes }),
    );
    this.watchdogs = ctx.ports.map(() => new Array<PfcWatchdog | null>(PFC_PRIORITIES).fill(null));
    this.armWatchdogs(nowPs, settings.watchdog);
    this.ecnRng = ctx.rng('ecn');
    this.ecnQueues = ctx.ports.map(() => markingQueues(settings.ecn));
    this.ecnOverride = new Array<EcnConfig | null>(ports * PFC_PRIORITIES).fill(null);
    this.ecnOfPort = ctx.ports.map((_, p) => {
      const own = plan.ecnByPort?.[p];
      return own == null ? settings.ecn : { ...settings.ecn, ...own };
    });
    this.txPackets = new Float64Array(ports * PFC_PRIORITIES);
    this.txBytes = new Float64Array(ports);
    this.ecnMarked = new Float64Array(ports * PFC_PRIORITIES);
    this.floodCopies = new Float64Array(ports);
    this.losslessDrops = new Float64Array(ports);
    this.losslessDropped = new Float64Array(ports * DROP_REASONS.length);
    this.tagOfPriority = new Uint8Array(PFC_PRIORITIES);
    this.dscpOfPriority = new Uint8Array(PFC_PRIORITIES);
    this.hostPort = new Uint8Array(ports);
    for (const h of config.attachedHosts) this.hostPort[h.port] = 1;
    this.egress = new EgressFaults(ports, config.accounting);
    const t = settings.tagger;
    if (t === null) {
      this.tagger = null;
    } else {
      if (config.portDirections?.length !== ports) throw new Error(`${ctx.name}: Tagger needs the direction of each of its ${ports} ports`);
      this.tagger = new Tagger(t, config.portDirections);
      t.losslessByTag.forEach((p, k) => (this.tagOfPriority[p] = k + 1));
      // The smallest DSCP of each priority: a re-tag writes it (the checks made sure one exists).
      for (let p = 0; p < PFC_PRIORITIES; p++) this.dscpOfPriority[p] = Math.max(0, settings.dscpMap.indexOf(p));
    }
  }

  /** Every drop of this switch: counted by reason when the group it was classified to (`pg`: a `dscpMisconfig` may have re-mapped it) is lossless here. */
  private drop(frame: Frame, reason: DropReason, port: number, pg = this.classifier.priority(frame)): void {
    if (this.classifier.isLossless(pg)) this.losslessDropped[port * DROP_REASONS.length + dropReasonIndex(reason)]!++;
    this.ctx.drop(frame, reason, port);
  }

  /** A frame's priority here: its queue, group, and lane on a credit link. */
  priorityOf(frame: Frame): number {
    return this.classifier.priority(frame);
  }

  onFrame(nowPs: number, inPort: number, frame: Frame): void {
    this.l2.learn(nowPs, frame.srcMac, inPort);
    if (frame.ttl <= 1) return this.drop(frame, 'ttl', inPort);
    const pg = this.classifier.priorityAt(inPort, frame);
    if (this.watchdogs[inPort]![pg]?.dropping) return this.drop(frame, 'watchdog', inPort, pg);
    const host = this.local.get(frame.dstIp);
    if (host === undefined) {
      const out = this.forwarding.egressPort(frame.srcIp, frame.dstIp, frame.udpSrcPort, frame.udpDstPort);
      if (out === NO_ROUTE) return this.drop(frame, 'no_route', inPort, pg);
      return this.enqueue(nowPs, inPort, pg, out, frame, this.config.peerMacs[out]!);
    }
    const decision = this.l2.lookup(nowPs, frame.dstIp, this.classifier.isLossless(pg));
    switch (decision.kind) {
      case 'unicast':
        return this.enqueue(nowPs, inPort, pg, decision.port, frame, host.mac);
      case 'noArp':
        return this.drop(frame, 'no_route', inPort, pg);
      case 'floodBlocked':
        return this.drop(frame, 'flood_blocked', inPort, pg);
      case 'flood':
        return this.flood(nowPs, inPort, pg, frame, host.mac);
    }
  }

  /** Unknown MAC: a copy to every port but the ingress; each copy is a new packet (DESIGN §5). */
  private flood(nowPs: number, inPort: number, pg: number, frame: Frame, dstMac: number): void {
    let first = true;
    for (let port = 0; port < this.ctx.ports.length; port++) {
      if (port === inPort) continue;
      const copy = first ? frame : cloneFrame(frame);
      if (!first) {
        this.ctx.originate(copy);
        this.floodCopies[port]!++;
      }
      first = false;
      this.enqueue(nowPs, inPort, pg, port, copy, dstMac);
    }
    if (first) this.drop(frame, 'no_route', inPort, pg); // a switch with a single port has nowhere to flood
  }

  private enqueue(nowPs: number, inPort: number, pg: number, outPort: number, frame: Frame, dstMac: number): void {
    const ctx = this.ctx;
    let queue = pg;
    if (this.tagger !== null && this.tagOfPriority[pg] !== 0) {
      // Tagger: a ToR tags what its hosts send (tag 1); a bounce against up-down takes the next tag.
      const v = this.tagger.retag(this.hostPort[inPort] === 1 ? 0 : this.tagOfPriority[pg]!, inPort, outPort);
      if ('drop' in v) return this.drop(frame, 'tagger', inPort, pg);
      queue = v.priority;
      // Each flood copy is re-tagged for its own egress, so the DSCP is written whatever it was.
      frame.dscp = queue === pg && this.classifier.priority(frame) === pg ? frame.dscp : this.dscpOfPriority[queue]!;
    }
    if (this.watchdogs[outPort]![queue]?.dropping) return this.drop(frame, 'watchdog', outPort, queue);
    const bytes = frameBytes(frame, this.config.accounting);
    const verdict = this.mmu.admit(inPort, pg, outPort, queue, bytes);
    if (verdict !== 'admitted') {
      if (this.mmu.isLossless(inPort, pg)) this.losslessDrops[inPort]!++;
      return this.drop(frame, verdict, inPort, pg);
    }
    frame.ttl--;
    frame.srcMac = this.config.mac;
    frame.dstMac = dstMac;
    this.queues[outPort]!.enqueue(queue, frame, bytes, (inPort << TAG_SHIFT) | pg);
    this.held++;
    if (this.mmu.shouldPause(inPort, pg)) this.pfc.xoff(nowPs, inPort, pg);
    ctx.kick(outPort);
  }

  /** A pull of an empty port has no effect (no scheduler turn moves, no wake-up is set). */
  portEmpty(port: number): boolean {
    return this.queues[port]!.nonEmptyQueues() === 0;
  }

  nextFrame(port: number, nowPs: number, pausedMask: number): Frame | null {
    const queues = this.queues[port]!;
    const held = this.egress.heldMask(port, nowPs);
    const frame = queues.take(pausedMask | held);
    if (frame === null) {
      if (held !== 0) this.wakeSlowEgress(port, nowPs, queues.nonEmptyQueues());
      return null;
    }
    // Its egress queue, and the ingress (port, group) that admitted it: the same priority unless Tagger re-tagged it.
    const queue = queues.takenQueue;
    const inPort = queues.takenTag >> TAG_SHIFT;
    const pg = queues.takenTag & PG_MASK;
    this.held--;
    this.mmu.release(inPort, pg, port, queue, queues.takenBytes);
    const slot = port * PFC_PRIORITIES + queue;
    this.txPackets[slot]!++;
    this.egress.sent(port, queue, nowPs, frame);
    // RED on the egress queue as the packet leaves it (HPCC, ZHU: marking at dequeue, PHYSICS §1.7).
    if (frame.kind !== FrameKind.pfc && (this.ecnQueues[port]! & (1 << queue)) !== 0 && shouldMark(frame.ecn, this.mmu.egressBytes(port, queue), this.ecnOverride[slot] ?? this.ecnOfPort[port]!, this.ecnRng)) {
      frame.ecn = 3;
      this.ecnMarked[slot]!++;
    }
    if (wantsInt(frame)) stampInt(frame, intHop(nowPs, this.txBytes[port]!, this.portQueuedBytes(port), this.ctx.ports[port]!.out.rateBps));
    this.txBytes[port]! += queues.takenBytes;
    if (this.pfc.pausing(inPort, pg) && this.mmu.shouldResume(inPort, pg)) this.pfc.xon(nowPs, inPort, pg);
    return frame;
  }

  /** Bytes queued on every egress queue of `port` (HPCC `GetQueue()->GetNBytesTotal()`). */
  private portQueuedBytes(port: number): number {
    let bytes = 0;
    for (let q = 0; q < PFC_PRIORITIES; q++) bytes += this.mmu.egressBytes(port, q);
    return bytes;
  }

  onTimer(nowPs: number, timer: number): void {
    if (timer === POLL_TIMER) return this.pollWatchdogs(nowPs);
    const ports = this.ctx.ports.length;
    if (timer > ports * PFC_PRIORITIES) return this.ctx.kick(timer - 1 - ports * PFC_PRIORITIES);
    const slot = timer - 1;
    this.pfc.onRefresh(nowPs, Math.floor(slot / PFC_PRIORITIES), slot % PFC_PRIORITIES);
  }

  onLinkState(nowPs: number, port: number, up: boolean): void {
    if (!up) this.pfc.forget(nowPs, port);
    else this.pfc.renewStorms(nowPs, port);
  }

  onFault(nowPs: number, fault: SwitchFault): void {
    switch (fault.kind) {
      case 'macFlush':
        return this.l2.flushMacs(fault.mac);
      case 'arpExpire':
        return this.l2.expireArp(fault.ip);
      case 'pfc':
        for (const port of this.portsOf(fault.port)) {
          this.mmu.setGroupPfc(port, fault.priority, fault.change);
          // A group that stopped being lossless, or whose new XON it already meets, resumes now.
          if (this.pfc.pausing(port, fault.priority) && (!this.mmu.isLossless(port, fault.priority) || this.mmu.shouldResume(port, fault.priority))) this.pfc.xon(nowPs, port, fault.priority);
        }
        return;
      case 'ecn':
        return this.setEcn(fault.port, fault.priority, fault.change);
      case 'watchdog':
        return this.armWatchdogs(nowPs, fault.change === null ? this.config.settings.watchdog : { ...this.config.settings.watchdog, ...fault.change });
      case 'egressStuck':
        this.egress.setStuck(nowPs, fault.port, fault.priority, fault.on);
        return this.ctx.kick(fault.port);
      case 'egressSlow':
        this.egress.setSlow(nowPs, fault.port, fault.priority, fault.bps);
        return this.ctx.kick(fault.port);
      case 'pauseStorm':
        for (let pg = 0; pg < PFC_PRIORITIES; pg++) {
          if (fault.priority === null ? !this.classifier.isLossless(pg) : pg !== fault.priority) continue;
          if (fault.on) this.pfc.startStorm(nowPs, fault.port, pg);
          else this.pfc.stopStorm(nowPs, fault.port, pg, this.mmu.shouldPause(fault.port, pg));
        }
        return;
      case 'dscp':
        return this.classifier.remap(fault.port, fault.dscp, fault.priority);
      case 'ecmp': {
        const configured = ecmpConfigOf(this.config.settings, this.ctx.index);
        return this.forwarding.setEcmp(fault.change === null ? configured : { ...configured, ...fault.change });
      }
    }
  }

  /** Nothing could start on a port with held queues: if a slow queue holds frames, kick the port when its gap ends. */
  private wakeSlowEgress(port: number, nowPs: number, nonEmpty: number): void {
    const atPs = this.egress.nextStartPs(port, nowPs, nonEmpty);
    if (atPs !== null) this.ctx.setTimer(slowTimer(this.ctx.ports.length, port), atPs);
  }

  private portsOf(port: number | null): number[] {
    return port === null ? this.ctx.ports.map((p) => p.index) : [port];
  }

  /** ECN of some queues changed (`ecnMisconfig`: on/off, RED parameters), or back to the settings (null). */
  private setEcn(port: number | null, priority: number | null, change: (Partial<EcnConfig> & { enabled?: boolean }) | null): void {
    const configured = markingQueues(this.config.settings.ecn);
    for (const p of this.portsOf(port)) {
      for (let q = 0; q < PFC_PRIORITIES; q++) {
        if (priority !== null && q !== priority) continue;
        const bit = 1 << q;
        const slot = p * PFC_PRIORITIES + q;
        if (change === null) {
          this.ecnQueues[p] = (this.ecnQueues[p]! & ~bit) | (configured & bit);
          this.ecnOverride[slot] = null;
          continue;
        }
        const { enabled, ...red } = change;
        if (enabled !== undefined) this.ecnQueues[p] = enabled ? this.ecnQueues[p]! | bit : this.ecnQueues[p]! & ~bit;
        if (Object.keys(red).length > 0) this.ecnOverride[slot] = { ...(this.ecnOverride[slot] ?? this.ecnOfPort[p]!), ...red };
      }
    }
  }

  /**
   * The PFC watchdog per (port, lossless queue) as `wd` says: created where missing, dropped
   * where it no longer applies (a stormed queue honours pauses again), the action updated, and
   * the poll timer running while any watchdog exists.
   */
  private armWatchdogs(nowPs: number, wd: SwitchSettings['watchdog']): void {
    const hostPorts = new Set(this.config.attachedHosts.map((h) => h.port));
    let any = false;
    this.ctx.ports.forEach((_, port) => {
      for (let q = 0; q < PFC_PRIORITIES; q++) {
        const wanted = wd.enabled && (wd.ports === 'all' || hostPorts.has(port)) && this.classifier.isLossless(q);
        const current = this.watchdogs[port]![q]!;
        if (!wanted) {
          if (current !== null && current.ignoringPauses) this.ctx.transmitters[port]?.ignorePauses(nowPs, q, false);
          this.watchdogs[port]![q] = null;
          continue;
        }
        any = true;
        if (current === null) {
          this.watchdogs[port]![q] = new PfcWatchdog(wd);
        } else {
          current.setAction(wd.action);
          if (current.state === 'stormed') this.ctx.transmitters[port]!.ignorePauses(nowPs, q, current.ignoringPauses);
        }
      }
    });
    if (any && this.ctx.timerDeadlinePs(POLL_TIMER) === null) this.ctx.setTimer(POLL_TIMER, nowPs);
  }

  heldFrames(): number {
    return this.held;
  }

  /** (ingress port, DSCP) pairs a `dscpMisconfig` fault classifies otherwise than the settings (0 without one). */
  get dscpRemapped(): number {
    return this.classifier.remappedEntries;
  }

  /** The ECMP hash, seed and fields in force (an `ecmpMisconfig` fault may have changed them). */
  get ecmp(): EcmpConfig {
    return this.forwarding.ecmp;
  }

  heldFramesByPort(): readonly number[] {
    return this.queues.map((q) => q.length());
  }

  /** Bytes queued in (`port`, `queue`). */
  queueBytes(port: number, queue: number): number {
    return this.queues[port]!.bytes(queue);
  }

  /** The most bytes (`port`, `queue`) ever held. */
  peakQueueBytes(port: number, queue: number): number {
    return this.queues[port]!.peakBytes(queue);
  }

  watchdog(port: number, priority: number): PfcWatchdog | null {
    return this.watchdogs[port]![priority]!;
  }

  private pollWatchdogs(nowPs: number): void {
    const ctx = this.ctx;
    for (let port = 0; port < ctx.ports.length; port++) {
      const tx = ctx.transmitters[port]!;
      const received = tx.receivedPauseMask(nowPs);
      for (let q = 0; q < PFC_PRIORITIES; q++) {
        const wd = this.watchdogs[port]![q];
        if (wd == null) continue;
        const event = wd.poll({
          occupancyBytes: this.queues[port]!.bytes(q),
          txPackets: this.txPackets[port * PFC_PRIORITIES + q]!,
          pfcRxPackets: ctx.stats.ports[port]!.pfcRx[q]!,
          pfcOn2OffPackets: tx.pauseOnTransitions[q]!,
          paused: (received & (1 << q)) !== 0,
        });
        if (event !== 'none') ctx.note(event === 'stormDetected' ? 'pfcwd_storm_detected' : 'pfcwd_storm_restored', port, q, this.config.settings.watchdog.action);
        if (event === 'stormDetected') {
          if (wd.dropping) this.discardQueue(nowPs, port, q);
          if (wd.ignoringPauses) tx.ignorePauses(nowPs, q, true);
        } else if (event === 'stormRestored') {
          tx.ignorePauses(nowPs, q, false);
        }
      }
    }
    ctx.setTimer(POLL_TIMER, nowPs + this.config.settings.watchdog.pollPs);
  }

  /** The watchdog's drop action: everything queued for a stormed queue is discarded (`watchdog`). */
  private discardQueue(nowPs: number, port: number, queue: number): void {
    for (const { item: frame, sizeBytes, tag } of this.queues[port]!.flush(queue)) {
      const inPort = tag >> TAG_SHIFT;
      const pg = tag & PG_MASK;
      this.held--;
      this.mmu.release(inPort, pg, port, queue, sizeBytes);
      this.drop(frame, 'watchdog', port);
      if (this.pfc.pausing(inPort, pg) && this.mmu.shouldResume(inPort, pg)) this.pfc.xon(nowPs, inPort, pg);
    }
  }
}
