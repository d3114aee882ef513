/**
 * What an RC requester is asked to do and what it answers (PHYSICS §5.2, IB semantics): the work
 * requests posted to it, the packets they become, and their completions with IB's statuses.
 * rc-requester.ts keeps the state; the NIC, the responder and the completion trace share these.
 */
import { NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR } from './aeth.js';

export type WorkOpcode = 'write' | 'send' | 'read' | 'fetchAdd' | 'compareSwap';

/** What an atomic carries to the responder (the AtomicETH): the word's address and rkey, the add or compare operand, the swap value. */
export interface AtomicOperands {
  address: bigint;
  rkey: number;
  operand: bigint;
  swap: bigint;
}

export interface WorkRequest {
  id: number;
  opcode: WorkOpcode;
  /** An atomic's is 8. */
  sizeBytes: number;
  postedPs: number;
  /** Atomics only. */
  atomic?: AtomicOperands;
  /**
   * WRITE and SEND only: 32 bits of immediate data on the last packet (WRITE or SEND with
   * immediate). The responder hands it to the receive it consumes, which a WRITE otherwise needs none of.
   */
  immediate?: number;
}

/** READs and atomics: answered by responses rather than ACKs, and limited by `maxRdAtomic`. */
export const isReadOrAtomic = (opcode: WorkOpcode): boolean => opcode === 'read' || opcode === 'fetchAdd' || opcode === 'compareSwap';
export const isAtomic = (opcode: WorkOpcode): boolean => opcode === 'fetchAdd' || opcode === 'compareSwap';

/** One packet to transmit; the NIC adds addresses, IP ID, DSCP and pacing. */
export interface RequesterPacket {
  psn: number;
  opcode: number;
  payloadBytes: number;
  /** The RETH's DMA length: a WRITE's first packet (the message), a READ request (what it asks for); else 0. */
  dmaLength: number;
  /** Where in the message this packet's bytes start (a READ request: the first byte it asks for). */
  offsetBytes: number;
  /** Set on the last packet of a message. */
  ackReq: boolean;
  wrId: number;
  /** This PSN went out before (the PSN is below the highest ever sent). */
  retransmission: boolean;
  /** An atomic request's AtomicETH. */
  atomic?: AtomicOperands;
  /** The immediate data on the last packet of a WRITE or SEND with immediate. */
  immediate?: number;
}

/**
 * IB work-completion statuses: the WR that hit the error gets its cause; the QP then errors and
 * every other posted WR is `flushed` (`IBV_WC_WR_FLUSH_ERR`).
 */
export type CompletionStatus = 'success' | 'retryExceeded' | 'rnrRetryExceeded' | 'remoteInvalidRequest' | 'remoteAccessError' | 'remoteOperationalError' | 'flushed';

export interface Completion {
  wrId: number;
  opcode: WorkOpcode;
  sizeBytes: number;
  postedPs: number;
  completedPs: number;
  status: CompletionStatus;
  /** A successful atomic: the word as it was before the operation. */
  atomicOriginal?: bigint;
}

/** A posted, uncompleted work request and the PSNs (as seqs) its packets take. */
export interface Message {
  wr: WorkRequest;
  firstSeq: number;
  count: number;
  /** An atomic's Atomic ACK value, once it came. */
  original?: bigint;
}

/** The completion of `m` at `nowPs` with `status` (an atomic's original word only on success). */
export function completion(m: Message, nowPs: number, status: CompletionStatus): Completion {
  const c: Completion = { wrId: m.wr.id, opcode: m.wr.opcode, sizeBytes: m.wr.sizeBytes, postedPs: m.wr.postedPs, completedPs: nowPs, status };
  if (status === 'success' && m.original !== undefined) c.atomicOriginal = m.original;
  return c;
}

/** NAK code → completion status, as Linux rxe maps them (unknown codes are remote operational errors). */
export function remoteErrorStatus(syndrome: number): CompletionStatus {
  if (syndrome === NAK_INVALID_REQUEST) return 'remoteInvalidRequest';
  if (syndrome === NAK_REMOTE_ACCESS_ERROR) return 'remoteAccessError';
  return 'remoteOperationalError';
}
