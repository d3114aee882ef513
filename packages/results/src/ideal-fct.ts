/**
 * The ideal completion time of one message on an empty fabric: the exact time rocelab's own
 * models would take if this message were alone — no queueing behind other traffic, no pause,
 * no congestion control reaction — so a loss-free message alone on its path has slowdown 1.
 *
 * It is the store-and-forward pipeline of the models, packet by packet: the sender NIC starts a
 * packet when the wire is free (and its pacing gap has passed, for a flow with a rate cap), every
 * hop serializes it after it fully arrived and after the previous packet left, the receiver's
 * host memory drains it, and the responder ACKs (coalesced as the NIC does) back over the
 * reverse path, where the sender's memory drains the last ACK: that instant is the completion.
 * The arithmetic is the engine's (`wireTimePs`, the pod's byte accounting), so it is exact.
 */
import { packetCount, payloadOf, readResponseOpcode, sendOpcode, writeOpcode, type WorkOpcode } from '@rocelab/rnic';
import { wireTimePs, type WireModel } from '@rocelab/sim';
import { FrameKind, Opcode, frameBytes, newFrame, serializedBytes, type Frame } from '@rocelab/wire';

export interface Hop {
  rateBps: number;
  latencyPs: number;
}

export interface IdealFctInput {
  sizeBytes: number;
  opcode: WorkOpcode;
  mtu: number;
  wire: WireModel;
  /** Links from the sender to the receiver, the sender's own first; and back. */
  forward: readonly Hop[];
  reverse: readonly Hop[];
  /** Rates at which each host's memory drains its NIC's receive buffer. */
  receiverDrainBps: number;
  senderDrainBps: number;
  /** The responder ACKs every `ackEvery` in-order packets, and always the last one. */
  ackEvery: number;
  /** A flow's pacing rate below the line rate, or null. */
  rateCapBps: number | null;
  /**
   * A TCP connection's message (issue 14), and the sender's and receiver's stack latencies: the
   * write reaches the stream after `writeLatencyPs`, each segment and ACK is processed
   * `receiveLatencyPs` after it is drained, every segment is ACKed. No congestion window: like
   * the RDMA case, the ideal is the fabric at line rate.
   */
  tcp?: { writeLatencyPs: number; receiveLatencyPs: number };
}

/** Picoseconds from posting the message to its completion, alone on an empty fabric. */
export function idealFctPs(m: IdealFctInput): number {
  if (m.forward.length === 0 || m.reverse.length === 0) throw new RangeError('ideal FCT: a path needs at least one link each way');
  const n = packetCount(m.sizeBytes, m.mtu);
  if (m.opcode === 'read') return idealReadPs(m, n);
  if (m.opcode === 'fetchAdd' || m.opcode === 'compareSwap') {
    // One request with its AtomicETH, answered by an Atomic ACK (AETH and the original word).
    const request = newFrame(FrameKind.data, { opcode: m.opcode === 'fetchAdd' ? Opcode.fetchAdd : Opcode.compareSwap });
    return lastAckDrainedPs(m, pipeline(m, [request], m.forward, m.receiverDrainBps, 0), FrameKind.ack, Opcode.atomicAcknowledge);
  }
  if (m.tcp !== undefined) return idealTcpPs(m, m.tcp, n);
  const frames = Array.from({ length: n }, (_, i) => {
    const opcode = m.opcode === 'write' ? writeOpcode(i, n) : sendOpcode(i, n);
    return newFrame(FrameKind.data, { opcode, payloadBytes: payloadOf(i, m.sizeBytes, m.mtu), dmaLength: m.opcode === 'write' && i === 0 ? m.sizeBytes : 0 });
  });
  const drained = pipeline(m, frames, m.forward, m.receiverDrainBps, 0);
  const ackAtPs: number[] = [];
  let sinceAck = 0;
  drained.forEach((atPs, i) => {
    if (++sinceAck >= m.ackEvery || i === n - 1) {
      ackAtPs.push(atPs);
      sinceAck = 0;
    }
  });
  return lastAckDrainedPs(m, ackAtPs);
}

/**
 * Picoseconds from posting a WRITE or SEND to its last byte drained into the receiver's memory,
 * alone on an empty fabric: what a program watching that memory sees (perftest's ib_write_lat
 * reports it as its latency, half its round trip).
 */
export function idealDeliveryPs(m: IdealFctInput): number {
  if (m.forward.length === 0) throw new RangeError('ideal delivery: a path needs at least one link');
  if (m.opcode !== 'write' && m.opcode !== 'send') throw new RangeError(`ideal delivery: a WRITE or SEND, got ${m.opcode}`);
  const n = packetCount(m.sizeBytes, m.mtu);
  const frames = Array.from({ length: n }, (_, i) => {
    const opcode = m.opcode === 'write' ? writeOpcode(i, n) : sendOpcode(i, n);
    return newFrame(FrameKind.data, { opcode, payloadBytes: payloadOf(i, m.sizeBytes, m.mtu), dmaLength: m.opcode === 'write' && i === 0 ? m.sizeBytes : 0 });
  });
  return pipeline(m, frames, m.forward, m.receiverDrainBps, 0).at(-1)!;
}

/** A TCP message: its segments from the write on, each processed and ACKed, the last ACK processed at the sender. */
function idealTcpPs(m: IdealFctInput, tcp: NonNullable<IdealFctInput['tcp']>, n: number): number {
  if (m.sizeBytes === 0) return tcp.writeLatencyPs;
  const segments = Array.from({ length: n }, (_, i) => newFrame(FrameKind.tcpData, { payloadBytes: payloadOf(i, m.sizeBytes, m.mtu) }));
  const drained = pipeline(m, segments, m.forward, m.receiverDrainBps, tcp.writeLatencyPs);
  return lastAckDrainedPs(m, drained.map((atPs) => atPs + tcp.receiveLatencyPs), FrameKind.tcpAck) + tcp.receiveLatencyPs;
}

/**
 * A READ: its request crosses to the responder and drains there; the responses, paced like the
 * requester's data (they take the connection's rate cap too), cross back; the last one drained
 * at the requester completes it.
 */
function idealReadPs(m: IdealFctInput, n: number): number {
  const request = newFrame(FrameKind.data, { opcode: Opcode.readRequest, dmaLength: m.sizeBytes });
  const executedPs = pipeline(m, [request], m.forward, m.receiverDrainBps, 0)[0]!;
  const responses = Array.from({ length: n }, (_, i) => newFrame(FrameKind.data, { opcode: readResponseOpcode(i, n), payloadBytes: m.sizeBytes === 0 ? 0 : payloadOf(i, m.sizeBytes, m.mtu) }));
  return pipeline(m, responses, m.reverse, m.senderDrainBps, executedPs).at(-1)!;
}

/**
 * Packets sent back to back from `startPs` over `hops`, store and forward, each drained at the
 * far end at `drainBps`: when each one was drained. A rate cap spaces their starts.
 */
function pipeline(m: IdealFctInput, frames: readonly Frame[], hops: readonly Hop[], drainBps: number, startAtPs: number): number[] {
  const accounting = m.wire.accounting;
  const doneAt = new Array<number>(hops.length).fill(startAtPs); // when each hop last finished serializing
  const paced = m.rateCapBps !== null && m.rateCapBps < hops[0]!.rateBps;
  let prevStartPs = startAtPs;
  let prevGapPs = 0;
  let drainedPs = 0;
  return frames.map((frame, i) => {
    const wireBytes = serializedBytes(frame, accounting);
    const startPs = i === 0 ? startAtPs : Math.max(doneAt[0]!, paced ? prevStartPs + prevGapPs : 0);
    let arrivalPs = startPs;
    for (let h = 0; h < hops.length; h++) {
      const beginPs = h === 0 ? startPs : Math.max(arrivalPs, doneAt[h]!);
      doneAt[h] = beginPs + wireTimePs(wireBytes, hops[h]!.rateBps, m.wire);
      arrivalPs = doneAt[h]! + hops[h]!.latencyPs;
    }
    drainedPs = Math.max(arrivalPs, drainedPs) + wireTimePs(frameBytes(frame, accounting), drainBps, m.wire);
    prevStartPs = startPs;
    prevGapPs = paced ? wireTimePs(wireBytes, m.rateCapBps!, m.wire) : 0;
    return drainedPs;
  });
}

/** The ACKs leave the receiver when generated (its wire is otherwise idle) and drain at the sender. */
function lastAckDrainedPs(m: IdealFctInput, ackAtPs: readonly number[], kind: typeof FrameKind.ack | typeof FrameKind.tcpAck = FrameKind.ack, opcode: number = Opcode.acknowledge): number {
  const ack = kind === FrameKind.ack ? newFrame(FrameKind.ack, { opcode }) : newFrame(FrameKind.tcpAck);
  const wireBytes = serializedBytes(ack, m.wire.accounting);
  const drainPs = wireTimePs(frameBytes(ack, m.wire.accounting), m.senderDrainBps, m.wire);
  const doneAt = new Array<number>(m.reverse.length).fill(0);
  let drainedPs = 0;
  for (const atPs of ackAtPs) {
    let arrivalPs = atPs;
    m.reverse.forEach((hop, h) => {
      doneAt[h] = Math.max(arrivalPs, doneAt[h]!) + wireTimePs(wireBytes, hop.rateBps, m.wire);
      arrivalPs = doneAt[h] + hop.latencyPs;
    });
    drainedPs = Math.max(arrivalPs, drainedPs) + drainPs;
  }
  return drainedPs;
}
