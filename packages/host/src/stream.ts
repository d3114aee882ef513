/**
 * One reliable, ordered byte stream between two hosts (issue 25): what a native program's TCP
 * socket to a pod address becomes. A pure state machine (STYLE §2): told the time, fed segments
 * and the program's operations, it says which segments to send and when it wants its timer.
 *
 * Why not the host's NewReno stack (tcp-stack.ts): that stack's connections are planned before
 * the run (a QP number each, a timer id each, results and metrics per connection) and carry
 * sizes, not bytes. A program's exchange is a few hundred bytes on connections made at run time;
 * it needs bytes, ports, a handshake and a close, not congestion control. So this is a small
 * transport of its own, TCP's segments without TCP's adaptivity, which keeps it short and its
 * timing a function of the fabric alone:
 *
 * - the handshake is SYN, SYN-ACK, ACK; the initial sequence number is 0 at both ends
 *   (deterministic; ports are never reused while a connection lives, see streams.ts);
 * - go-back-N: at most `windowBytes` unacknowledged, every segment acknowledged at once, an
 *   out-of-order segment dropped and answered with a duplicate ACK;
 * - a fixed retransmission timer (`initialRtoPs`, doubled on each expiry up to `maxRtoPs`,
 *   reset by progress), no RTT estimate; after `maxRetries` expiries in a row the connection
 *   fails (ETIMEDOUT), except a SYN, which is retried for ever: a SYN is held by its destination
 *   until a program listens there, and a client never races its server;
 * - FIN after the queued data; a RST fails the connection (ECONNRESET);
 * - no receive window: what arrives in order is kept until the program reads it (the programs
 *   this is for read what they are sent), and a writer blocks on `sendBufferBytes`.
 */
import { TcpFlag } from '@rocelab/wire';
import { ByteQueue } from './byte-queue.js';

export interface StreamConfig {
  mssBytes: number;
  /** Bytes sent and not acknowledged, at most. */
  windowBytes: number;
  /** Bytes a program may have written and not had acknowledged; a write beyond waits. */
  sendBufferBytes: number;
  initialRtoPs: number;
  maxRtoPs: number;
  /** Expiries in a row after which an established connection fails (a SYN never does). */
  maxRetries: number;
}

/**
 * Defaults: 64 KiB in flight (TCP's window without scaling, RFC 9293), a 256 KiB send buffer,
 * a 1 ms first RTO (the RTO floor of `timing: drill`, tcp-stack's; a path's RTT is microseconds)
 * doubling to 64 ms, and 15 retries (Linux's `tcp_retries2`).
 */
export const STREAM_DEFAULTS: Omit<StreamConfig, 'mssBytes'> = {
  windowBytes: 65_536,
  sendBufferBytes: 262_144,
  initialRtoPs: 1_000_000_000,
  maxRtoPs: 64_000_000_000,
  maxRetries: 15,
};

/** A segment as this machine sees it: sequence and ACK numbers unwrapped (the host wraps them to 32 bits). */
export interface Segment {
  seq: number;
  ack: number;
  flags: number;
  data: Uint8Array;
}

export type StreamState = 'synSent' | 'synReceived' | 'established' | 'failed';
export type StreamError = 'reset' | 'timedOut';

/** What became of a segment, for the conservation audit: it brought something, or nothing new (a duplicate, or out of order). */
export type SegmentVerdict = 'accepted' | 'duplicate';

const NO_DATA = new Uint8Array(0);
const ISS = 0;

export class StreamConnection {
  state: StreamState;
  error: StreamError | null = null;
  // Send side, in data bytes (byte i has sequence number ISS + 1 + i).
  private readonly sendBuf = new ByteQueue();
  private acked = 0;
  private nxt = 0;
  private synAcked = false;
  private synOut = false;
  private finQueued = false;
  private finOut = false;
  private finAcked = false;
  // Receive side.
  private readonly recvBuf = new ByteQueue();
  private rcvNxt = 0;
  private peerFin = false;
  private ackOwed = false;
  // The retransmission timer.
  private rtoPs: number;
  private retries = 0;
  private rtoAtPs: number | null = null;

  /** A client (its SYN goes first) or a server answering the SYN `syn`. */
  constructor(
    private readonly config: StreamConfig,
    role: 'client' | 'server',
    syn?: Segment,
  ) {
    this.rtoPs = config.initialRtoPs;
    if (role === 'client') {
      this.state = 'synSent';
    } else {
      if (syn === undefined || (syn.flags & TcpFlag.syn) === 0) throw new Error('a server stream starts from the SYN it answers');
      this.state = 'synReceived';
      this.rcvNxt = syn.seq + 1;
    }
  }

  // --- the program's side --------------------------------------------------------------------

  /** Bytes the program may still write before it has to wait. */
  get sendSpace(): number {
    if (this.finQueued || this.state === 'failed') return 0;
    return Math.max(0, this.config.sendBufferBytes - this.sendBuf.length);
  }

  /** Takes what fits of `bytes` into the send buffer; how many it took. */
  write(bytes: Uint8Array): number {
    if (this.finQueued) throw new Error('write after shutdown');
    const n = Math.min(bytes.length, this.sendSpace);
    if (n > 0) this.sendBuf.push(bytes.slice(0, n));
    return n;
  }

  /** Bytes received in order and not read yet. */
  get readable(): number {
    return this.recvBuf.length;
  }

  /** The peer closed its side and everything it sent has been read. */
  get atEof(): boolean {
    return this.peerFin && this.recvBuf.length === 0;
  }

  read(maxBytes: number): Uint8Array {
    return this.recvBuf.take(maxBytes);
  }

  /** The program's side is done writing: a FIN follows the queued data. */
  shutdown(): void {
    this.finQueued = true;
  }

  get established(): boolean {
    return this.state === 'established';
  }

  /** Both directions are closed and acknowledged, or the connection failed: nothing more will happen. */
  get finished(): boolean {
    return this.state === 'failed' || (this.finAcked && this.peerFin && !this.ackOwed);
  }

  /** A RST (or a timeout) ends it at once. */
  fail(error: StreamError): void {
    this.state = 'failed';
    this.error ??= error;
    this.sendBuf.clear();
    this.rtoAtPs = null;
    this.ackOwed = false;
  }

  // --- the wire's side -----------------------------------------------------------------------

  /** The sequence number expected next and the first unacknowledged one: what 32-bit wire numbers are unwrapped near. */
  get rcvNext(): number {
    return this.rcvNxt;
  }

  get sndUna(): number {
    return ISS + (this.synAcked ? 1 : 0) + this.acked;
  }

  /** When the retransmission timer wants to run; null: nothing outstanding. */
  deadlinePs(): number | null {
    return this.rtoAtPs;
  }

  private get outstanding(): boolean {
    if (this.state === 'failed') return false;
    return (this.synOut && !this.synAcked) || this.nxt > this.acked || (this.finOut && !this.finAcked);
  }

  /** The segments to send now (the caller sends them in this order), arming the timer if something is outstanding. */
  take(nowPs: number): Segment[] {
    const out: Segment[] = [];
    if (this.state === 'failed') return out;
    const ack = this.rcvNxt;
    if (!this.synAcked && !this.synOut) {
      this.synOut = true;
      out.push(this.state === 'synSent' ? { seq: ISS, ack: 0, flags: TcpFlag.syn, data: NO_DATA } : { seq: ISS, ack, flags: TcpFlag.syn | TcpFlag.ack, data: NO_DATA });
    }
    if (this.state === 'established') {
      const total = this.acked + this.sendBuf.length;
      while (this.nxt < total && this.nxt - this.acked < this.config.windowBytes) {
        const n = Math.min(this.config.mssBytes, total - this.nxt, this.config.windowBytes - (this.nxt - this.acked));
        out.push({ seq: ISS + 1 + this.nxt, ack, flags: TcpFlag.ack | TcpFlag.psh, data: this.sendBuf.peek(this.nxt - this.acked, n) });
        this.nxt += n;
      }
      if (this.finQueued && !this.finOut && this.nxt === total) {
        this.finOut = true;
        out.push({ seq: ISS + 1 + total, ack, flags: TcpFlag.fin | TcpFlag.ack, data: NO_DATA });
      }
    }
    if (this.ackOwed && out.length === 0 && this.state !== 'synSent') out.push({ seq: ISS + 1 + this.nxt + (this.finOut ? 1 : 0), ack, flags: TcpFlag.ack, data: NO_DATA });
    this.ackOwed = false;
    if (this.outstanding) this.rtoAtPs ??= nowPs + this.rtoPs;
    else this.rtoAtPs = null;
    return out;
  }

  /** A segment of this connection arrived (`take` then says what to answer). */
  onSegment(nowPs: number, seg: Segment): SegmentVerdict {
    if (this.state === 'failed') return 'duplicate';
    if ((seg.flags & TcpFlag.rst) !== 0) {
      this.fail('reset');
      return 'accepted';
    }
    if ((seg.flags & TcpFlag.syn) !== 0) return this.onSyn(seg);
    if (this.state === 'synSent') return 'duplicate'; // nothing but a SYN-ACK is meaningful yet
    let news = false;
    if ((seg.flags & TcpFlag.ack) !== 0) news = this.onAck(nowPs, seg.ack);
    if (this.state !== 'established') return news ? 'accepted' : 'duplicate';
    const fin = (seg.flags & TcpFlag.fin) !== 0;
    if (seg.data.length === 0 && !fin) return 'accepted'; // a pure ACK is consumed, new or not
    this.ackOwed = true;
    const end = seg.seq + seg.data.length + (fin ? 1 : 0);
    if (seg.seq > this.rcvNxt || end <= this.rcvNxt || this.peerFin) return 'duplicate';
    const fresh = seg.data.subarray(this.rcvNxt - seg.seq);
    this.recvBuf.push(fresh.slice());
    this.rcvNxt += fresh.length;
    if (fin) {
      this.peerFin = true;
      this.rcvNxt += 1;
    }
    return 'accepted';
  }

  /** A SYN-ACK completes a client's handshake; a SYN or SYN-ACK seen again means our answer was lost. */
  private onSyn(seg: Segment): SegmentVerdict {
    const synAck = (seg.flags & TcpFlag.ack) !== 0;
    if (this.state === 'synSent' && synAck && seg.ack === ISS + 1) {
      this.synAcked = true;
      this.state = 'established';
      this.rcvNxt = seg.seq + 1;
      this.ackOwed = true;
      this.progress();
      return 'accepted';
    }
    if (this.state === 'synReceived' && !synAck) this.synOut = false; // the client's SYN again: our SYN-ACK again
    else if (this.state === 'established' && synAck) this.ackOwed = true; // our ACK of the SYN-ACK was lost
    return 'duplicate';
  }

  /** Whether the ACK acknowledged anything new. */
  private onAck(nowPs: number, ack: number): boolean {
    let news = false;
    if (!this.synAcked && ack >= ISS + 1) {
      this.synAcked = true;
      if (this.state === 'synReceived') this.state = 'established';
      news = true;
    }
    const ackedData = Math.min(ack - ISS - 1, this.acked + this.sendBuf.length);
    if (ackedData > this.acked) {
      this.sendBuf.drop(ackedData - this.acked);
      this.acked = ackedData;
      if (this.nxt < this.acked) this.nxt = this.acked;
      news = true;
    }
    if (this.finOut && !this.finAcked && ack >= ISS + 2 + this.acked + this.sendBuf.length && this.sendBuf.length === 0) {
      this.finAcked = true;
      news = true;
    }
    if (news) {
      this.progress();
      this.rtoAtPs = this.outstanding ? nowPs + this.rtoPs : null;
    }
    return news;
  }

  private progress(): void {
    this.retries = 0;
    this.rtoPs = this.config.initialRtoPs;
  }

  /** The timer ran out: go back to the first unacknowledged byte (or the SYN, or the FIN). */
  onTimer(nowPs: number): void {
    if (this.rtoAtPs === null || nowPs < this.rtoAtPs) return;
    this.rtoAtPs = null;
    if (!this.outstanding) return;
    this.retries++;
    if (this.retries > this.config.maxRetries && this.state !== 'synSent') return this.fail('timedOut');
    this.rtoPs = Math.min(this.rtoPs * 2, this.config.maxRtoPs);
    if (!this.synAcked) this.synOut = false;
    this.nxt = this.acked;
    if (!this.finAcked) this.finOut = false;
  }

  /** Counters a test or a report may read. */
  get stats(): { retries: number; inFlightBytes: number; queuedBytes: number } {
    return { retries: this.retries, inFlightBytes: this.nxt - this.acked, queuedBytes: this.sendBuf.length };
  }
}
