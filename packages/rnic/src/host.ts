/**
 * The first-cut host (rocelab issue 2): sends its `flow` workloads as paced streams of WRITE
 * packets, round robin among the flows that may send, and counts what arrives. A frame not
 * addressed to this host (IP or MAC) is dropped as `misdelivered`. The RC transport, DCQCN
 * and NIC-side PFC come with the NIC issue.
 */
import { DEFAULT_DSCP_MAP, FrameKind, PFC_MAX_QUANTA, PFC_PRIORITIES, PFC_QUANTUM_BITS, pfcFrame, type ByteAccounting, type DscpMap, type Frame } from '@rocelab/wire';
import { serializationPs, type NodeContext, type NodeModel } from '@rocelab/sim';
import type { FlowWorkload } from '@rocelab/workload';
import { FlowSender } from './flow-sender.js';

export interface HostPeer {
  name: string;
  ip: number;
  mac: number;
}

export interface HostConfig {
  ip: number;
  mac: number;
  /** MAC of the ToR behind the host's single port (the first hop). */
  gatewayMac: number;
  /** Flows this host sends. */
  flows: readonly FlowWorkload[];
  /** Every host of the pod by name, to address flows. */
  hosts: ReadonlyMap<string, HostPeer>;
  accounting: ByteAccounting;
  dscpMap?: DscpMap;
  /** Priorities the NIC pauses in a pause storm (the lossless ones; default {3}, DESIGN §9). */
  losslessPriorities?: readonly number[];
}

/** What arrived from one flow (keyed by its QP). */
export interface FlowReceipt {
  flow: number;
  packets: number;
  bytes: number;
  firstPs: number;
  lastPs: number;
}

const PORT = 0;
/** Timer ids: 0 paces, 1 repeats a pause storm, 2 + i starts flow i. */
const PACING_TIMER = 0;
const STORM_TIMER = 1;
const FLOW_TIMER = 2;

/** A host-level fault. */
export type HostFault = { kind: 'nicPauseStorm' };

export class Host implements NodeModel {
  private readonly senders: FlowSender[];
  private readonly receipts = new Map<number, FlowReceipt>();
  private rr = 0;
  private ipId = 0;
  bytesReceived = 0;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: HostConfig,
  ) {
    if (ctx.ports.length !== 1) throw new Error(`host ${ctx.name} needs exactly one port, has ${ctx.ports.length}`);
    const mtu = ctx.ports[PORT]!.out.mtu;
    const dscpMap = config.dscpMap ?? DEFAULT_DSCP_MAP;
    this.senders = config.flows.map((flow, slot) => {
      const peer = config.hosts.get(flow.to);
      if (peer === undefined) throw new Error(`flow ${flow.index}: unknown destination ${flow.to}`);
      const ends = { srcMac: config.mac, dstMac: config.gatewayMac, srcIp: config.ip, dstIp: peer.ip };
      const sender = new FlowSender(flow, ends, mtu, dscpMap[flow.dscp]!, config.accounting);
      ctx.setTimer(FLOW_TIMER + slot, this.startTime(flow));
      return sender;
    });
  }

  onTimer(nowPs: number, timer: number): void {
    if (timer === STORM_TIMER) return this.stormPause(nowPs);
    if (timer !== PACING_TIMER) this.senders[timer - FLOW_TIMER]!.start(nowPs);
    this.ctx.kick(PORT);
  }

  onFault(nowPs: number, fault: unknown): void {
    if ((fault as HostFault).kind === 'nicPauseStorm') this.stormPause(nowPs);
  }

  /**
   * A malfunctioning NIC (Guo et al., SIGCOMM 2016): it pauses its ToR with the largest quanta
   * and renews the pause every half pause time, forever, whatever its receive buffer says.
   */
  private stormPause(nowPs: number): void {
    const priorities = this.config.losslessPriorities ?? [3];
    const quanta = Array.from({ length: PFC_PRIORITIES }, (_, p) => (priorities.includes(p) ? PFC_MAX_QUANTA : 0));
    const enable = priorities.reduce((mask, p) => mask | (1 << p), 0);
    this.ctx.sendControl(PORT, pfcFrame(enable, quanta));
    const halfPausePs = Math.floor((PFC_MAX_QUANTA * serializationPs(PFC_QUANTUM_BITS / 8, this.ctx.ports[PORT]!.out.rateBps)) / 2);
    this.ctx.setTimer(STORM_TIMER, nowPs + halfPausePs);
  }

  nextFrame(_port: number, nowPs: number, pausedMask: number): Frame | null {
    const n = this.senders.length;
    let wakePs = Infinity;
    for (let k = 0; k < n; k++) {
      const i = (this.rr + k) % n;
      const sender = this.senders[i]!;
      if (sender.state !== 'active' || (pausedMask & (1 << sender.priority)) !== 0) continue;
      if (sender.nextSendPs > nowPs) {
        wakePs = Math.min(wakePs, sender.nextSendPs);
        continue;
      }
      this.rr = (i + 1) % n;
      const frame = sender.nextPacket(nowPs, this.ipId);
      this.ipId = (this.ipId + 1) & 0xffff;
      this.ctx.originate(frame);
      return frame;
    }
    if (wakePs !== Infinity) {
      const pending = this.ctx.timerDeadlinePs(PACING_TIMER);
      if (pending === null || pending > wakePs) this.ctx.setTimer(PACING_TIMER, wakePs);
    }
    return null;
  }

  onFrame(nowPs: number, port: number, frame: Frame): void {
    if (frame.dstIp !== this.config.ip || frame.dstMac !== this.config.mac) {
      this.ctx.drop(frame, 'misdelivered', port);
      return;
    }
    this.ctx.deliver(frame);
    if (frame.kind !== FrameKind.data) return;
    this.bytesReceived += frame.payloadBytes;
    let receipt = this.receipts.get(frame.destQp);
    if (receipt === undefined) {
      receipt = { flow: frame.destQp - 1, packets: 0, bytes: 0, firstPs: nowPs, lastPs: nowPs };
      this.receipts.set(frame.destQp, receipt);
    }
    receipt.packets++;
    receipt.bytes += frame.payloadBytes;
    receipt.lastPs = nowPs;
  }

  heldFrames(): number {
    return 0;
  }

  results(): { sent: object[]; received: FlowReceipt[] } {
    return {
      sent: this.senders.map((s) => ({
        flow: s.flow.index,
        to: s.flow.to,
        sizeBytes: s.flow.sizeBytes,
        startPs: s.startPs,
        packetsSent: s.packetsSent,
        bytesSent: s.bytesSent,
        lastSendPs: s.lastSendPs,
      })),
      received: [...this.receipts.values()].sort((a, b) => a.flow - b.flow),
    };
  }

  private startTime(flow: FlowWorkload): number {
    if (flow.start.kind === 'at') return flow.start.atPs;
    return this.ctx.rng(`workload:${flow.index}`).uniformInt(flow.start.minPs, flow.start.maxPs);
  }
}
