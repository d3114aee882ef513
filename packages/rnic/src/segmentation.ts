/**
 * Segmentation of an RDMA WRITE into MTU-sized packets (IBTA; PHYSICS §5.1): one packet is
 * WRITE ONLY; more are FIRST, MIDDLE…, LAST. The first (or only) packet carries the RETH.
 * A READ's responses are cut the same way (RESPONSE ONLY, or FIRST, MIDDLE…, LAST).
 * `requestPacket` builds any packet of a posted work request from its position, which is how
 * the requester (rc-requester.ts) sends and resends them without keeping the packets.
 */
import { Opcode } from '@rocelab/wire';
import { isAtomic, type RequesterPacket, type WorkRequest } from './work-request.js';

/** Packets of a message of `sizeBytes` at `mtu` (a zero-byte WRITE is one empty packet). */
export function packetCount(sizeBytes: number, mtu: number): number {
  return sizeBytes === 0 ? 1 : Math.ceil(sizeBytes / mtu);
}

/** WRITE opcodes by position; `immediate`: the last (or only) packet carries 4 bytes of immediate data and consumes a receive. */
export function writeOpcode(index: number, count: number, immediate = false): number {
  if (count === 1) return immediate ? Opcode.writeOnlyImmediate : Opcode.writeOnly;
  if (index === 0) return Opcode.writeFirst;
  if (index === count - 1) return immediate ? Opcode.writeLastImmediate : Opcode.writeLast;
  return Opcode.writeMiddle;
}

/** Payload of packet `index`: full MTUs, the remainder last. */
export function payloadOf(index: number, sizeBytes: number, mtu: number): number {
  return Math.min(mtu, sizeBytes - index * mtu);
}

/** SEND opcodes by position (a SEND carries no RETH; it consumes a posted receive). */
export function sendOpcode(index: number, count: number, immediate = false): number {
  if (count === 1) return immediate ? Opcode.sendOnlyImmediate : Opcode.sendOnly;
  if (index === 0) return Opcode.sendFirst;
  if (index === count - 1) return immediate ? Opcode.sendLastImmediate : Opcode.sendLast;
  return Opcode.sendMiddle;
}

/** READ response opcodes by position; FIRST, LAST and ONLY carry an AETH, MIDDLE none (IBTA; PHYSICS §5.1). */
export function readResponseOpcode(index: number, count: number): number {
  if (count === 1) return Opcode.readResponseOnly;
  if (index === 0) return Opcode.readResponseFirst;
  return index === count - 1 ? Opcode.readResponseLast : Opcode.readResponseMiddle;
}

/**
 * Packet `i` of the `count` packets of `wr`, at `psn`: a READ request asks for the message from
 * that packet's first byte on; an atomic is one packet with its AtomicETH; a WRITE or SEND
 * packet carries its slice of the message, the RETH on a WRITE's first, AckReq and any
 * immediate data on the last.
 */
export function requestPacket(wr: WorkRequest, i: number, count: number, psn: number, mtu: number, retransmission: boolean): RequesterPacket {
  const write = wr.opcode === 'write';
  const offsetBytes = i * mtu;
  if (wr.opcode === 'read') {
    return { psn, opcode: Opcode.readRequest, payloadBytes: 0, dmaLength: wr.sizeBytes - offsetBytes, offsetBytes, ackReq: false, wrId: wr.id, retransmission };
  }
  if (isAtomic(wr.opcode)) {
    const opcode = wr.opcode === 'fetchAdd' ? Opcode.fetchAdd : Opcode.compareSwap;
    return { psn, opcode, payloadBytes: 0, dmaLength: 8, offsetBytes: 0, ackReq: true, wrId: wr.id, retransmission, atomic: wr.atomic! };
  }
  const last = i === count - 1;
  const immediate = wr.immediate !== undefined;
  const packet: RequesterPacket = {
    psn,
    opcode: write ? writeOpcode(i, count, immediate) : sendOpcode(i, count, immediate),
    payloadBytes: payloadOf(i, wr.sizeBytes, mtu),
    dmaLength: write && i === 0 ? wr.sizeBytes : 0,
    offsetBytes,
    ackReq: last,
    wrId: wr.id,
    retransmission,
  };
  if (immediate && last) packet.immediate = wr.immediate!;
  return packet;
}
