/**
 * HPCC's in-band network telemetry at a switch (issue 26): a data packet that carries an INT
 * header (`intMode` hops: its sender runs `cc: hpcc`) gets one record per egress it leaves by,
 * as HPCC ns-3's switch-node.cc `SwitchNotifyDequeue` pushes one (`IntHeader::PushHop`): the time,
 * the port's transmitted bytes before this packet (`m_txBytes`), the bytes queued on the port after
 * it left (`GetQueue()->GetNBytesTotal()`, every queue of the port) and the port's line rate. ACKs
 * are not stamped (HPCC stamps UDP only); they carry their data packet's records back.
 *
 * The record holds what HPCC's bit fields hold (int-header.h `IntHop::Set`, INT_MULTI 1): time in
 * ns modulo 2^24, bytes in 128-byte units modulo 2^20, queue in 80-byte units modulo 2^17. The
 * line rate is the port's own: HPCC codes only 25, 50, 100, 200 and 400 Gb/s in 3 bits (and reads
 * any other as 25 Gb/s); rocelab keeps every rate exact. The byte counter counts the frames the
 * port's queues sent; HPCC's also counts the pause frames, which rocelab sends beside the queues.
 */
import { FrameKind, INT_MAX_HOPS, IntMode, type Frame, type IntHop } from '@rocelab/wire';

const TIME_WRAP_NS = 2 ** 24;
const BYTE_UNIT = 128;
const BYTES_WRAP_UNITS = 2 ** 20;
const QLEN_UNIT = 80;
const QLEN_WRAP_UNITS = 2 ** 17;

/** One record as HPCC's `IntHop::Set` stores it, decoded to bytes and ps. */
export function intHop(nowPs: number, txBytes: number, qlenBytes: number, lineRateBps: number): IntHop {
  return {
    qlenBytes: (Math.floor(qlenBytes / QLEN_UNIT) % QLEN_WRAP_UNITS) * QLEN_UNIT,
    txBytes: (Math.floor(txBytes / BYTE_UNIT) % BYTES_WRAP_UNITS) * BYTE_UNIT,
    tsPs: (Math.floor(nowPs / 1000) % TIME_WRAP_NS) * 1000,
    lineRateBps,
  };
}

/**
 * Push a record on a leaving data packet with an INT header. HPCC writes a sixth hop over the
 * first (`nhop % maxHop`) and its sender then ignores the header; rocelab keeps five and drops the
 * rest (paths in rocelab's Clos pods have at most five switch egresses).
 */
export function stampInt(frame: Frame, hop: IntHop): void {
  if (frame.int.length >= INT_MAX_HOPS) return;
  frame.int = [...frame.int, hop];
}

/** Whether `frame` takes a record: a data packet whose sender asked for INT hops. */
export function wantsInt(frame: Frame): boolean {
  return frame.intMode === IntMode.hops && frame.kind === FrameKind.data;
}
