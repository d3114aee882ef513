/**
 * The frames a host sends, addressed: its own MAC and IP, its ToR's MAC as the first hop, the
 * peer's IP, the connection's DSCP and QP, and the UDP ports that give ECMP its entropy (RoCEv2's,
 * or the connection's own: a responder's swap its requester's, so ACKs and CNPs carry them swapped).
 * And what goes in them beyond the headers: a responder's reply (ACK, NAK, Atomic ACK), a CNP,
 * and the RDMA fields of a memory-backed QP's request.
 */
import { FrameKind, Opcode, carriesReth, newFrame, rdmaFields, u64Bytes, type Frame, type RdmaFields } from '@rocelab/wire';
import type { AppWork, QpEnd } from './nic-types.js';
import type { ResponderReply } from './rc-responder.js';

/** A host's addresses on the wire. */
export interface HostAddress {
  ip: number;
  mac: number;
  /** The ToR's MAC: every frame's first hop. */
  gatewayMac: number;
}

/** RoCEv2 sets the UDP source port per QP for ECMP entropy (PHYSICS §5.1). */
export function udpSourcePort(qpn: number): number {
  return 49152 + (qpn % 16384);
}

/** A new frame of `kind` on the connection `end`: addresses, first hop, DSCP, QP, ECMP entropy. */
export function frameTo(address: HostAddress, kind: FrameKind, end: QpEnd): Frame {
  const frame = newFrame(kind);
  frame.srcMac = address.mac;
  frame.dstMac = address.gatewayMac;
  frame.srcIp = address.ip;
  frame.dstIp = end.peer.ip;
  frame.dscp = end.dscp;
  if (end.udpPorts === undefined) frame.udpSrcPort = udpSourcePort(end.qpn);
  else {
    frame.udpSrcPort = end.udpPorts.src;
    frame.udpDstPort = end.udpPorts.dst;
  }
  frame.destQp = end.qpn;
  return frame;
}

/** A responder's reply on `end`: ACK, NAK (with the IRN SACK) or Atomic ACK; `cnpFlag` is hpcc-ns3's CNP on the ACK (PHYSICS §1.6). */
export function replyFrame(address: HostAddress, end: QpEnd, reply: NonNullable<ResponderReply>, cnpFlag: boolean): Frame {
  const ack = frameTo(address, FrameKind.ack, end);
  ack.opcode = reply.kind === 'atomicAck' ? Opcode.atomicAcknowledge : Opcode.acknowledge;
  ack.psn = reply.psn;
  ack.msn = reply.msn;
  ack.syndrome = reply.kind === 'nak' ? reply.syndrome : 0;
  if (reply.kind === 'nak' && reply.sackPsn !== undefined) ack.sackPsn = reply.sackPsn;
  ack.becn = cnpFlag;
  if (reply.kind === 'atomicAck') ack.rdma = rdmaFields({ original: u64Bytes(reply.original) });
  return ack;
}

/** A CNP to the sender of `end`, on the CNP's own DSCP. */
export function cnpFrame(address: HostAddress, end: QpEnd, cnpDscp: number): Frame {
  const cnp = frameTo(address, FrameKind.cnp, end);
  cnp.dscp = cnpDscp;
  cnp.opcode = Opcode.cnp;
  cnp.becn = true;
  return cnp;
}

/**
 * The RDMA fields a memory-backed QP's request packet carries: a WRITE's or SEND's bytes (copied
 * as the packet leaves: the application may change its buffer afterwards), the RETH of a WRITE's
 * first packet and of a READ request (its address advanced to the first byte it asks for), an
 * atomic's AtomicETH, and the immediate data of a last packet.
 */
export function requestFields(work: AppWork, opcode: number, offsetBytes: number, payloadBytes: number, immediate: number | undefined): RdmaFields {
  const fields = rdmaFields({ immediate: immediate ?? 0 });
  if (work.atomic !== undefined) {
    fields.va = Number(work.atomic.address);
    fields.rkey = work.atomic.rkey;
    fields.operand = u64Bytes(work.atomic.operand);
    fields.swap = u64Bytes(work.atomic.swap);
    return fields;
  }
  if (carriesReth(opcode)) {
    fields.va = Number(work.remote?.address ?? 0n) + (opcode === Opcode.readRequest ? offsetBytes : 0);
    fields.rkey = work.remote?.rkey ?? 0;
  }
  if (payloadBytes > 0 && work.local !== null) fields.data = work.local.slice(offsetBytes, offsetBytes + payloadBytes);
  return fields;
}
