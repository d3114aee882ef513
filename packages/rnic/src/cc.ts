/**
 * Congestion control of one sending QP (issue 26): what the NIC asks of it (the rate to pace at,
 * when that rate may change by itself, a window of bytes in flight) and what it tells it (bytes
 * sent, CNPs, ACKs with their INT records or echoed time stamps). DCQCN (`DcqcnReactionPoint`),
 * HPCC (`HpccRp`), TIMELY (`TimelyRp`) and DCTCP (`DctcpRp`) implement it; `cc:` in a host's
 * `nic:` settings picks one (HPCC ns-3's CC_MODE 1, 3, 7 and 8).
 */
import type { IntHop as WireIntHop } from '@rocelab/wire';
import { DcqcnReactionPoint } from './dcqcn-rp.js';
import { HpccRp, type HpccParams, type HpccPath } from './hpcc.js';
import { TimelyRp } from './timely.js';
import { DctcpRp } from './dctcp.js';
import type { NicSettings } from './nic-settings.js';

/** What one ACK tells the sender's congestion control. */
export interface AckFeedback {
  nowPs: number;
  /** Cumulative bytes acked on the QP (HPCC's `ack.seq`). */
  ackedBytes: number;
  /** snd_nxt in bytes (HPCC's `qp->snd_nxt`). */
  nextSendBytes: number;
  /** The ACK carries the CNP/ECE flag. */
  ecnEcho: boolean;
  /** HPCC INT, empty otherwise. */
  hops: readonly IntHop[];
  /** TIMELY: the data packet's send timestamp echoed; null without one. */
  sentTsPs: number | null;
}

/** One switch's INT record (the wire's `IntHop`). */
export interface IntHop {
  qlenBytes: number;
  txBytes: number;
  tsPs: number;
  lineRateBps: number;
}

export type CcKind = 'dcqcn' | 'hpcc' | 'timely' | 'dctcp';

export interface CongestionControl {
  readonly kind: CcKind;
  rateBps(nowPs: number): number;
  /** When the rate would change by itself (a timer), or null: the pacer re-measures a running gap then. */
  nextRateChangePs(): number | null;
  onBytesSent(nowPs: number, bytes: number): void;
  onCnp(nowPs: number): void;
  onAck(nowPs: number, fb: AckFeedback): void;
  /** Bytes the QP may have in flight, or null for no limit. */
  windowBytes(): number | null;
}

/** The QP's DCQCN reaction point, for what only DCQCN has (its target rate and α in metrics and traces). */
export function dcqcnOf(cc: CongestionControl | null): DcqcnReactionPoint | null {
  return cc instanceof DcqcnReactionPoint ? cc : null;
}

/** The two declarations must stay one shape: the NIC hands a frame's hops to `onAck` as they are. */
const sameShape = (h: WireIntHop): IntHop => h;
void sameShape;

/** What the runtime knows of the pod's paths (third.cc under GLOBAL_T 1: one base RTT and BDP for every QP). */
/** HPCC ns-3's PACKET_PAYLOAD_SIZE in mix/config.txt: the payload DCTCP's window counts in when no port says otherwise. */
const DEFAULT_PAYLOAD_BYTES = 1000;

export interface CcPath {
  /** The largest base RTT between two hosts (third.cc `maxRtt`), ps. */
  baseRttPs: number;
  /** The largest bandwidth-delay product between two hosts (third.cc `maxBdp`), bytes. */
  bdpBytes: number;
}

/**
 * The QP's window of bytes in flight, from `window:` (HPCC's HAS_WIN and VAR_WIN,
 * rdma-queue-pair.cc `GetWin`): `bytes` (null: the pod's BDP), scaled by `rate / line rate`
 * (at least 1 byte) with `varWin`; null when it is off. HPCC applies it itself (`HpccRp`).
 */
export function windowOf(settings: NicSettings, path: CcPath | null, rateBps: number, lineRateBps: number): number | null {
  const w = settings.window;
  if (!w.enabled) return null;
  const bytes = w.bytes ?? path?.bdpBytes ?? null;
  if (bytes === null) return null;
  return w.varWin ? Math.max(1, Math.floor((bytes * rateBps) / lineRateBps)) : bytes;
}

/**
 * The congestion control `settings.cc` names for a QP on a port of `lineRateBps`, or null for
 * none (DCQCN switched off). `path`: the pod's base RTT and BDP, which HPCC needs (`window.bytes`
 * may stand for the BDP) and TIMELY and DCTCP may. `payloadBytes`: the QP's data bytes per packet,
 * which DCTCP counts its α window in (HPCC ns-3's m_mtu, PACKET_PAYLOAD_SIZE).
 */
export function createCongestionControl(settings: NicSettings, lineRateBps: number, path: CcPath | null, payloadBytes = DEFAULT_PAYLOAD_BYTES): CongestionControl | null {
  switch (settings.cc) {
    case 'dcqcn':
      return settings.dcqcn.enabled ? new DcqcnReactionPoint(settings.dcqcn.params, lineRateBps) : null;
    case 'hpcc':
      return new HpccRp(hpccParams(settings, path), lineRateBps, hpccPath(settings, path));
    case 'timely':
      return new TimelyRp(settings.timely, lineRateBps);
    case 'dctcp':
      return new DctcpRp(settings.dctcp, lineRateBps, payloadBytes);
  }
}

/** HPCC's parameters for a QP: W_AI written in bytes becomes the rate W_AI·8/T (at least 1 bit/s). */
function hpccParams(settings: NicSettings, path: CcPath | null): HpccParams {
  const { waiBytes, ...p } = settings.hpcc;
  if (waiBytes === null || path === null) return p;
  return { ...p, aiBps: Math.max(1, Math.floor((waiBytes * 8e12) / path.baseRttPs)) };
}

function hpccPath(settings: NicSettings, path: CcPath | null): HpccPath {
  const w = settings.window;
  const windowBytes = w.bytes ?? path?.bdpBytes;
  const baseRttPs = path?.baseRttPs;
  if (windowBytes === undefined || baseRttPs === undefined) throw new Error('HPCC needs the pod\'s base RTT and BDP (CcPath); the runtime gives them');
  return { baseRttPs, windowBytes, windowLimits: w.enabled, varWin: w.varWin };
}
