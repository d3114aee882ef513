/**
 * Segmentation of an RDMA WRITE into MTU-sized packets (IBTA; PHYSICS §5.1): one packet is
 * WRITE ONLY; more are FIRST, MIDDLE…, LAST. The first (or only) packet carries the RETH.
 * A READ's responses are cut the same way (RESPONSE ONLY, or FIRST, MIDDLE…, LAST).
 */
import { Opcode } from '@rocelab/wire';

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
