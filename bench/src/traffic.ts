/**
 * What the link benchmark sends: the batches one direction of a loaded 40 Gb/s link emits in
 * one window of the window protocol (DESIGN §3), made of realistic RoCEv2 data frames.
 */
import { serializationPs, PS_PER_US } from '@rocelab/sim';
import { Ecn, FrameKind, newFrame, Opcode, serializedBytes, type Frame, type LinkBatch } from '@rocelab/wire';

export const LINK_RATE_BPS = 40e9;
export const PAYLOAD_BYTES = 1024;
/** The window the batch size is derived from: ~ the 1 µs latency of the fixtures' links. */
export const WINDOW_PS = PS_PER_US;

const DATA_FIELDS: Partial<Frame> = {
  srcMac: 0x02_00_0a_00_01_01,
  dstMac: 0x02_00_0a_00_01_fe,
  srcIp: 0x0a_00_01_01, // 10.0.1.1
  dstIp: 0x0a_00_02_01, // 10.0.2.1
  dscp: 26,
  ecn: Ecn.ect0,
  ttl: 64,
  udpSrcPort: 49_153,
  opcode: Opcode.writeMiddle,
  destQp: 0x11,
  payloadBytes: PAYLOAD_BYTES,
};

function dataFrame(psn: number, ipId: number, ackReq: boolean): Frame {
  const frame = newFrame(FrameKind.data, DATA_FIELDS);
  frame.psn = psn;
  frame.ipId = ipId;
  frame.ackReq = ackReq;
  return frame;
}

/** A 1024 B data frame serializes in 221.2 ns at 40 Gb/s: 1 µs holds ≈ 4.5 of them → 5. */
export const FRAMES_PER_BATCH = Math.round(WINDOW_PS / serializationPs(serializedBytes(dataFrame(0, 0, false)), LINK_RATE_BPS));

/**
 * Builds each batch from fresh frames, as a node does (new PSN, IP ID, arrival time and
 * origin sequence every time), so encoding never sees the same object twice. All data
 * frames: they are the largest messages and the commonest on a loaded link.
 */
export class Traffic {
  private psn = 0;
  private ipId = 0;
  private seq = 0;
  private window = 0;

  constructor(
    private readonly lease: number,
    private readonly framesPerBatch = FRAMES_PER_BATCH,
  ) {}

  next(): LinkBatch {
    const window = this.window++;
    const frames: Frame[] = [];
    const arrivalPs: number[] = [];
    const originSeq: number[] = [];
    const fcsBad: boolean[] = [];
    const serializePs = WINDOW_PS / this.framesPerBatch;
    for (let i = 0; i < this.framesPerBatch; i++) {
      frames.push(dataFrame(this.psn, this.ipId, i === this.framesPerBatch - 1));
      this.psn = (this.psn + 1) & 0xff_ffff;
      this.ipId = (this.ipId + 1) & 0xffff;
      // A frame sent in window w arrives one latency (= one window) later.
      arrivalPs.push((window + 1) * WINDOW_PS + Math.round((i + 1) * serializePs));
      originSeq.push(this.seq++);
      fcsBad.push(false);
    }
    return { lease: this.lease, window, frames, arrivalPs, originSeq, fcsBad };
  }
}

/** The bench's own conventions on top of real Batch messages, carried in `lease`. */
export const Lane = {
  /** Pipelined frames; the receiver acks every ACK_EVERY batches. */
  stream: 1,
  /** Receiver → sender: `window` = frames decoded so far (an empty batch). */
  ack: 2,
  /** Lockstep: the receiver answers each batch with one batch of its own. */
  ping: 3,
} as const;

export const ACK_EVERY = 16;

/** The one link between the two processes, named as the topology names links. */
export const LINK_NAME = 'a:p0--b:p0';
