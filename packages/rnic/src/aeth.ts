/**
 * AETH syndromes and the RC timers they encode (PHYSICS §5.1, §5.3). The syndrome is the AETH's
 * first byte: bits 7–5 say what it is (000 ACK, 001 RNR NAK, 011 NAK; 010 and 1xx are reserved),
 * bits 4–0 carry the credit count, the RNR timer code or the NAK code (IBTA; Linux `AETH_TYPE_MASK`).
 */
import { PS_PER_US } from '@rocelab/sim';

const TYPE_MASK = 0xe0;
const VALUE_MASK = 0x1f;
const TYPE_ACK = 0x00;
const TYPE_RNR_NAK = 0x20;
const TYPE_NAK = 0x60;

/** ACK credit count 0x1F: "unlimited" (end-to-end credits not in use). */
export const CREDITS_UNLIMITED = 0x1f;

/** NAK codes (PHYSICS §5.1; Linux `AETH_NAK_*`). */
export const NAK_PSN_SEQUENCE_ERROR = 0x60;
export const NAK_INVALID_REQUEST = 0x61;
export const NAK_REMOTE_ACCESS_ERROR = 0x62;
export const NAK_REMOTE_OPERATIONAL_ERROR = 0x63;
export const NAK_INVALID_RD_REQUEST = 0x64;

/** `reserved` (types 010 and 1xx) is no valid response; a requester treats it as a fatal NAK, as Linux rxe does. */
export type SyndromeKind = 'ack' | 'rnrNak' | 'nak' | 'reserved';

export const ackSyndrome = (credits: number = CREDITS_UNLIMITED): number => TYPE_ACK | (credits & VALUE_MASK);

export const rnrNakSyndrome = (timerCode: number): number => TYPE_RNR_NAK | (timerCode & VALUE_MASK);

export function syndromeKind(syndrome: number): SyndromeKind {
  switch (syndrome & TYPE_MASK) {
    case TYPE_ACK:
      return 'ack';
    case TYPE_RNR_NAK:
      return 'rnrNak';
    case TYPE_NAK:
      return 'nak';
    default:
      return 'reserved';
  }
}

/** The low 5 bits: credits (ACK), RNR timer code (RNR NAK) or NAK code. */
export const syndromeValue = (syndrome: number): number => syndrome & VALUE_MASK;

/**
 * Minimum RNR NAK timer by code, in µs (IBTA vol 1 Table 45; PHYSICS §5.3). Code 0 is the
 * longest (655.36 ms); then 10, 20, 30, 40 µs and on, alternately ×1.5 and ×4/3. Kept in µs so every entry is exact.
 */
const RNR_TIMER_US: readonly number[] = [
  655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920,
  2_560, 3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520,
];

/** How long an RNR NAK with `code` (0..31) tells the requester to wait, in ps. */
export function rnrTimerPs(code: number): number {
  const us = RNR_TIMER_US[code];
  if (!Number.isInteger(code) || us === undefined) throw new RangeError(`RNR timer code must be an integer 0..31, got ${code}`);
  return us * PS_PER_US;
}

/** 4.096 µs, the unit of the local ACK timeout (PHYSICS §5.3). */
const ACK_TIMEOUT_UNIT_PS = 4_096_000;

/**
 * Local ACK timeout for the 5-bit QP attribute `exponent`: 4.096 µs × 2^exponent, or null for 0,
 * which means "wait forever" (PHYSICS §5.3; Linux qib `4096UL * (1UL << qp->timeout)`).
 */
export function localAckTimeoutPs(exponent: number): number | null {
  if (!(Number.isInteger(exponent) && exponent >= 0 && exponent <= 31)) throw new RangeError(`local ACK timeout exponent must be an integer 0..31, got ${exponent}`);
  return exponent === 0 ? null : ACK_TIMEOUT_UNIT_PS * 2 ** exponent;
}
