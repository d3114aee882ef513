/**
 * An RC requester's configuration (PHYSICS §5.2, IB semantics): its recovery, timeouts and
 * retry counts, the first PSN and the READs and atomics it may have in flight, with the defaults
 * that are the requester's own (the other RC defaults are in defaults.ts) and the check a
 * configuration passes before a requester is built on it (rc-requester.ts).
 */
import { PSN_MASK } from './psn.js';
import type { SelectiveRepeatConfig } from './selective-repeat.js';

/**
 * go-back-N resends from the lost packet; go-back-0 resends the whole message (Guo et al.,
 * SIGCOMM 2016); selectiveRepeat resends only the holes the responder's SACKs show, under a BDP
 * cap on packets in flight (IRN, Mittal et al., SIGCOMM 2018; selective-repeat.ts).
 */
export type Recovery = 'goBackN' | 'goBack0' | 'selectiveRepeat';

/** Retransmission default: go-back-N (DESIGN §9). The other RC defaults are in defaults.ts. */
export const DEFAULT_RECOVERY: Recovery = 'goBackN';
/**
 * READs in flight at once (IB `max_rd_atomic`, the initiator depth): 16, what mlx5 devices
 * report as `max_qp_rd_atom` (`1 << log_max_ra_req_qp`, 4 on ConnectX-4/5).
 */
export const DEFAULT_MAX_RD_ATOMIC = 16;

/** `rnrRetry` 7 means retry forever (IBTA; PHYSICS §5.2; Linux rxe `rnr_retry != 7`). */
export const RNR_RETRY_INFINITE = 7;

export interface RequesterConfig {
  /** Payload bytes per packet. */
  mtu: number;
  recovery: Recovery;
  /** Local ACK timeout; null = none (hpcc-ns3 has no RTO, PHYSICS §5.3). */
  ackTimeoutPs: number | null;
  /** 0..7: RTO retransmissions allowed; the expiry after the last one errors the QP (IB `retry_cnt`). */
  retryCount: number;
  /** 0..7: RNR retries allowed, 7 = infinite (IB `rnr_retry`). */
  rnrRetry: number;
  /** 24-bit PSN of the first packet. */
  initialPsn: number;
  /** 0..255: READs whose responses have not all come (IB `max_rd_atomic`); default 16. */
  maxRdAtomic?: number;
  /** With `recovery: selectiveRepeat`: the BDP cap and IRN's two timeouts (they replace `ackTimeoutPs`). */
  selectiveRepeat?: SelectiveRepeatConfig;
}

/** Throws a RangeError naming every field out of range. */
export function checkRequesterConfig(c: RequesterConfig): void {
  const bad: string[] = [];
  const inRange = (v: number, lo: number, hi: number): boolean => Number.isInteger(v) && v >= lo && v <= hi;
  if (!(Number.isSafeInteger(c.mtu) && c.mtu > 0)) bad.push(`mtu must be a positive integer, got ${c.mtu}`);
  if (c.recovery !== 'goBackN' && c.recovery !== 'goBack0' && c.recovery !== 'selectiveRepeat') bad.push(`recovery must be goBackN, goBack0 or selectiveRepeat, got ${String(c.recovery)}`);
  if (c.recovery === 'selectiveRepeat' && c.selectiveRepeat === undefined) bad.push('recovery selectiveRepeat needs its selectiveRepeat parameters (BDP cap, timeouts)');
  if (c.ackTimeoutPs !== null && !(Number.isSafeInteger(c.ackTimeoutPs) && c.ackTimeoutPs > 0)) bad.push(`ackTimeoutPs must be null or a positive integer, got ${c.ackTimeoutPs}`);
  if (!inRange(c.retryCount, 0, 7)) bad.push(`retryCount must be 0..7, got ${c.retryCount}`);
  if (!inRange(c.rnrRetry, 0, 7)) bad.push(`rnrRetry must be 0..7, got ${c.rnrRetry}`);
  if (!inRange(c.initialPsn, 0, PSN_MASK)) bad.push(`initialPsn must be 0..0xFFFFFF, got ${c.initialPsn}`);
  if (c.maxRdAtomic !== undefined && !inRange(c.maxRdAtomic, 0, 255)) bad.push(`maxRdAtomic must be 0..255, got ${c.maxRdAtomic}`);
  if (bad.length > 0) throw new RangeError(`RC requester config: ${bad.join('; ')}`);
}
