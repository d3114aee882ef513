/**
 * The sending side of one `flow` workload: a stream of WRITE packets, paced at the flow's
 * rate when it has one. It makes each packet only when the scheduler asks for it, so a 10 GB
 * flow costs no memory up front.
 */
import { FrameKind, newFrame, serializedBytes, type ByteAccounting, type Frame } from '@rocelab/wire';
import { serializationPs } from '@rocelab/sim';
import type { FlowWorkload } from '@rocelab/workload';
import { nextPsn, packetCount, payloadOf, writeOpcode } from './segmentation.js';

export interface FlowEndpoints {
  srcMac: number;
  dstMac: number;
  srcIp: number;
  dstIp: number;
}

export type FlowState = 'waiting' | 'active' | 'done';

export class FlowSender {
  state: FlowState = 'waiting';
  startPs = -1;
  /** Earliest time the pacer lets the next packet go. */
  nextSendPs = 0;
  packetsSent = 0;
  bytesSent = 0;
  lastSendPs = -1;
  private psn = 0;
  readonly packets: number;
  readonly priority: number;

  constructor(
    readonly flow: FlowWorkload,
    private readonly ends: FlowEndpoints,
    private readonly mtu: number,
    priority: number,
    private readonly accounting: ByteAccounting,
  ) {
    this.packets = packetCount(flow.sizeBytes, mtu);
    this.priority = priority;
  }

  /** Destination QP (24 bits): one per flow. */
  get qp(): number {
    return (this.flow.index + 1) & 0xffffff;
  }

  start(nowPs: number): void {
    this.state = 'active';
    this.startPs = nowPs;
    this.nextSendPs = nowPs;
  }

  /** Next packet at `nowPs`; `ipId` is the NIC's per-packet IP identification. */
  nextPacket(nowPs: number, ipId: number): Frame {
    const i = this.packetsSent;
    const payloadBytes = payloadOf(i, this.flow.sizeBytes, this.mtu);
    const last = i === this.packets - 1;
    const frame = newFrame(FrameKind.data, {
      srcMac: this.ends.srcMac,
      dstMac: this.ends.dstMac,
      srcIp: this.ends.srcIp,
      dstIp: this.ends.dstIp,
      dscp: this.flow.dscp,
      ecn: 2, // ECT(0): RoCEv2 NICs mark data ECN-capable for DCQCN
      ipId,
      udpSrcPort: 49152 + (this.flow.index % 16384),
      opcode: writeOpcode(i, this.packets),
      destQp: this.qp,
      psn: this.psn,
      ackReq: last,
      dmaLength: i === 0 ? this.flow.sizeBytes : 0,
      payloadBytes,
    });
    this.psn = nextPsn(this.psn);
    this.packetsSent++;
    this.bytesSent += payloadBytes;
    this.lastSendPs = nowPs;
    if (this.flow.rateBps !== null) this.nextSendPs = nowPs + serializationPs(serializedBytes(frame, this.accounting), this.flow.rateBps);
    if (last) this.state = 'done';
    return frame;
  }
}
