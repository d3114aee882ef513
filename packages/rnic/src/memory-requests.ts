/**
 * Requests on a memory-backed QP (issue 13): the in-order request is checked against the host's
 * registered memory first (rkey, bounds, access, a receive large enough; IBTA vol 1 §10.6, Linux
 * rxe `mr_check_range`) and refused with its NAK if it fails; what is accepted then moves its
 * bytes into a region or a posted receive. A READ's bytes are read when it is executed.
 */
import { NO_BYTES, Opcode, carriesReth, u64Of, type Frame } from '@rocelab/wire';
import { NAK_INVALID_REQUEST, NAK_REMOTE_ACCESS_ERROR } from './aeth.js';
import type { AccessError, MemoryRegions } from './memory-region.js';
import type { AppReceive, ReceiverQp, SharedReceives } from './nic-types.js';
import type { ReadResponses, ResponderResult } from './rc-responder.js';

/** The responder's verdict on `frame`, its bytes moved; a SEND or WRITE with immediate that consumed a receive is handed to `onReceive`. */
export function memoryRequest(nowPs: number, r: ReceiverQp, frame: Frame, memory: MemoryRegions, onReceive: (receive: AppReceive) => void): ResponderResult {
  const { resp } = r;
  const fields = frame.rdma;
  const op = frame.opcode;
  if (op === Opcode.fetchAdd || op === Opcode.compareSwap) {
    const atomic = { address: BigInt(fields?.va ?? 0), rkey: fields?.rkey ?? 0, operand: u64Of(fields?.operand ?? NO_BYTES), swap: u64Of(fields?.swap ?? NO_BYTES) };
    return resp.onAtomic(nowPs, frame.psn, op === Opcode.fetchAdd ? 'fetchAdd' : 'compareSwap', atomic, memory);
  }
  const inOrder = resp.state === 'ready' && frame.psn === resp.expectedPsn;
  const offset = resp.messageOffset;
  const send = op <= Opcode.sendOnlyImmediate;
  if (inOrder) {
    const refusal = memoryRefusal(r, frame, offset, send, memory);
    if (refusal !== null) return resp.refuse(frame.psn, refusal);
  }
  const posted = r.srq?.pool.count ?? 0;
  const result = resp.onPacket(nowPs, frame.psn, op, frame.payloadBytes, frame.ackReq, frame.dmaLength, fields?.immediate ?? 0);
  if (r.srq !== undefined) claimShared(r, r.srq, posted);
  const data = fields?.data ?? NO_BYTES;
  if (result.verdict === 'accepted' && data.length > 0) {
    if (send) r.receives[0]!.set(data, offset);
    else r.writeTarget!.bytes.set(data, r.writeTarget!.offset + offset);
  }
  if (result.receive !== undefined) {
    const buffer = r.receives.shift()!;
    const { opcode, bytes, immediate } = result.receive;
    onReceive({ opcode, bytes, immediate, buffer });
  }
  return result;
}

/**
 * On a shared receive queue, the message that took a receive (the pool's count went down) takes the
 * queue's oldest buffer for itself; a message given up (go-back-0) puts its buffer back first.
 */
function claimShared(r: ReceiverQp, srq: SharedReceives, before: number): void {
  if (srq.pool.count < before) r.receives.push(srq.buffers.shift()!);
  else if (srq.pool.count > before) srq.buffers.unshift(r.receives.pop()!);
}

/** Why the in-order request `frame` cannot be executed against memory (a NAK syndrome), or null. */
function memoryRefusal(r: ReceiverQp, frame: Frame, offset: number, send: boolean, memory: MemoryRegions): number | null {
  const op = frame.opcode;
  if (send) {
    // Its receive is the oldest posted one; none is RNR, which the responder answers itself.
    // On a shared receive queue the buffer is the queue's oldest until the first packet claims it.
    const buffer = r.receives[0] ?? r.srq?.buffers[0];
    return buffer !== undefined && offset + frame.payloadBytes > buffer.length ? NAK_INVALID_REQUEST : null;
  }
  if (!carriesReth(op)) return null;
  const fields = frame.rdma;
  const read = op === Opcode.readRequest;
  const where = memory.locate(BigInt(fields?.va ?? 0), frame.dmaLength, fields?.rkey ?? 0, read ? 'remoteRead' : 'remoteWrite');
  if (typeof where === 'string') return accessSyndrome(where);
  if (!read) r.writeTarget = where;
  return null;
}

/** The bytes a READ request asks for, as they are now. A duplicate is executed again without a check: the first execution passed it, and a region is never deregistered. */
export function readData(memory: MemoryRegions, read: ReadResponses, request: Frame): Uint8Array {
  const bytes = memory.read(BigInt(request.rdma?.va ?? 0), read.lengthBytes, request.rdma?.rkey ?? 0);
  return typeof bytes === 'string' ? new Uint8Array(read.lengthBytes) : bytes.slice();
}

/** The NAK a refused memory access gets (Linux rxe: a misaligned atomic is an invalid request, the rest remote access errors). */
function accessSyndrome(error: AccessError): number {
  return error === 'misaligned' ? NAK_INVALID_REQUEST : NAK_REMOTE_ACCESS_ERROR;
}
