/**
 * A host's byte streams (issue 25): the TCP a native program speaks to other pods' addresses
 * (its out-of-band exchange of QP numbers, addresses and rkeys), carried through the fabric as
 * frames in virtual time, so it is deterministic and the same in one process and across them.
 *
 * Each stream is a `StreamConnection` (stream.ts, which says why this is not the NewReno stack).
 * This is the host's table of them: listeners by port, connections by (local port, peer address,
 * peer port), ephemeral ports from 32768 up (never one a live connection or listener holds), and
 * the segments as frames: kind 5 (data) or 6 (no data), the ports in `udpSrcPort`/`tcpDstPort`,
 * the flags in `tcpFlags` (never 0, which tells them from the planned TCP connections' frames),
 * the bytes in `rdma.data`. They leave through the NIC's reply queue (before RDMA data, on their
 * DSCP's priority, honouring its pauses; default DSCP 0, lossy) and arrive through the TCP
 * stack's receive path (its receive latency).
 *
 * A SYN to a port nobody listens on is **held** (counted as a queued frame) and answered when a
 * program listens there: a client never races its server. Every frame that arrives is delivered
 * (it brought something: data, an ACK, a SYN, a FIN, a RST), or dropped as `out_of_sequence` (a
 * duplicate or out of order) or `misdelivered` (no such connection; answered with a RST).
 *
 * Nothing here runs for a host without streams: the one timer is registered at the first
 * stream (after every other timer of the host, which keeps every id and trace hash of pods
 * without programs).
 */
import { FrameKind, TcpFlag, newFrame, rdmaFields, type Frame } from '@rocelab/wire';
import { armTimer, type NodeContext, type TimerTable } from '@rocelab/sim';
import { StreamConnection, type Segment, type StreamConfig, type StreamError, type StreamState } from './stream.js';
import { unwrapSeq } from './tcp-requester.js';

const PORT = 0;
const FIRST_EPHEMERAL_PORT = 32_768; // Linux's ip_local_port_range
const LAST_EPHEMERAL_PORT = 60_999;

/** A listener or a connection, as the program's sockets name it. */
export type StreamHandle = number;

export interface HostStreamsDeps {
  ip: number;
  mac: number;
  /** Every frame's first hop (the ToR). */
  gatewayMac: number;
  /** DSCP of every stream frame (0: best effort, lossy, as TCP is in a RoCE fabric). */
  dscp: number;
  config: StreamConfig;
  timers: TimerTable;
  /** Hands a frame to the NIC (its reply queue) and kicks the port. */
  send(frame: Frame): void;
}

/** What a program can see of a handle (a socket's state for poll, read, write and accept). */
export interface StreamStatus {
  kind: 'listener' | 'connection';
  state: StreamState | 'listening';
  error: StreamError | null;
  /** Bytes to read now. */
  readable: number;
  /** The peer closed and everything was read: a read returns end of file. */
  atEof: boolean;
  /** Bytes a write takes now. */
  sendSpace: number;
  /** Connections a listener has ready to accept. */
  acceptable: number;
  localPort: number;
  remoteIp: number;
  remotePort: number;
}

interface Listener {
  kind: 'listener';
  port: number;
  /** Established connections nobody accepted yet, oldest first; and those still in their handshake. */
  ready: StreamHandle[];
  handshaking: Set<StreamHandle>;
}

interface Connection {
  kind: 'connection';
  conn: StreamConnection;
  localPort: number;
  remoteIp: number;
  remotePort: number;
  /** The listener it came to (until accepted), or null. */
  listener: StreamHandle | null;
  /** Opened by `connect` (else accepted on a listener). */
  client: boolean;
  /** The program closed its handle: forget the connection once it finished. */
  closed: boolean;
}

/** A SYN that came before its listener. */
interface HeldSyn {
  frame: Frame;
  seg: Segment;
}

export class StreamAddressInUse extends Error {
  readonly code = 'address_in_use';
}

export class HostStreams {
  private readonly handles = new Map<StreamHandle, Listener | Connection>();
  private readonly listeners = new Map<number, StreamHandle>();
  private readonly byTuple = new Map<string, StreamHandle>();
  private readonly held = new Map<number, HeldSyn[]>();
  private heldCount = 0;
  private nextHandle = 1;
  private nextEphemeral = FIRST_EPHEMERAL_PORT;
  private timer: number | null = null;
  /** Told after anything a program could see of `handle` may have changed (its sockets re-check their waits). */
  onChange: ((handle: StreamHandle) => void) | null = null;
  readonly stats = { segmentsSent: 0, segmentsReceived: 0, retransmissionTimeouts: 0, held: 0, resets: 0 };

  constructor(
    private readonly ctx: NodeContext,
    private readonly deps: HostStreamsDeps,
  ) {}

  // --- what a program does ----------------------------------------------------------------------

  /** Listens on `port` (0: an ephemeral one); SYNs held for it are answered now. Throws StreamAddressInUse. */
  listen(port: number): StreamHandle {
    const local = port === 0 ? this.ephemeralPort() : port;
    if (this.portInUse(local)) throw new StreamAddressInUse(`port ${local} is in use on this host`);
    const h = this.add({ kind: 'listener', port: local, ready: [], handshaking: new Set() });
    this.listeners.set(local, h);
    const syns = this.held.get(local);
    if (syns !== undefined) {
      this.held.delete(local);
      this.heldCount -= syns.length;
      for (const { frame, seg } of syns) this.answerSyn(h, frame, seg);
    }
    return h;
  }

  /** Opens a connection to `remoteIp:remotePort` from an ephemeral port (or `localPort`); its SYN leaves now. */
  connect(remoteIp: number, remotePort: number, localPort = 0): StreamHandle {
    const local = localPort === 0 ? this.ephemeralPort() : localPort;
    if (this.byTuple.has(tupleKey(local, remoteIp, remotePort))) throw new StreamAddressInUse(`port ${local} already has a connection to ${remoteIp}:${remotePort}`);
    const h = this.add({ kind: 'connection', conn: new StreamConnection(this.deps.config, 'client'), localPort: local, remoteIp, remotePort, listener: null, client: true, closed: false });
    this.byTuple.set(tupleKey(local, remoteIp, remotePort), h);
    this.flush(h);
    return h;
  }

  /** The oldest established connection on a listener, or null. */
  accept(listener: StreamHandle): StreamHandle | null {
    const l = this.listener(listener);
    const h = l.ready.shift();
    if (h === undefined) return null;
    this.connection(h).listener = null;
    return h;
  }

  /** Writes what fits of `bytes`; how many bytes it took (0: the send buffer is full, or the stream is closed or failed). */
  write(handle: StreamHandle, bytes: Uint8Array): number {
    const c = this.connection(handle);
    const n = c.conn.write(bytes);
    if (n > 0) this.flush(handle);
    return n;
  }

  /** Up to `maxBytes` of what arrived in order (empty: nothing yet, or end of file: see `status`). */
  read(handle: StreamHandle, maxBytes: number): Uint8Array {
    return this.connection(handle).conn.read(maxBytes);
  }

  /** No more writes: a FIN follows what was written. */
  shutdown(handle: StreamHandle): void {
    const c = this.connection(handle);
    if (c.conn.sendSpace === 0 && c.conn.state === 'failed') return;
    c.conn.shutdown();
    this.flush(handle);
  }

  /** The program is done with the handle: a connection closes gracefully (FIN) and is forgotten when finished; a listener's unaccepted connections are reset. */
  close(handle: StreamHandle): void {
    const entry = this.handles.get(handle);
    if (entry === undefined) return;
    if (entry.kind === 'listener') {
      this.listeners.delete(entry.port);
      this.handles.delete(handle);
      for (const h of [...entry.ready, ...entry.handshaking]) this.reset(h);
      return;
    }
    entry.closed = true;
    if (entry.conn.state !== 'failed') {
      entry.conn.shutdown();
      this.flush(handle);
    }
    this.forgetIfDone(handle);
  }

  status(handle: StreamHandle): StreamStatus {
    const entry = this.handles.get(handle);
    if (entry === undefined) throw new Error(`no stream handle ${handle} on this host`);
    if (entry.kind === 'listener') {
      return { kind: 'listener', state: 'listening', error: null, readable: 0, atEof: false, sendSpace: 0, acceptable: entry.ready.length, localPort: entry.port, remoteIp: 0, remotePort: 0 };
    }
    const c = entry.conn;
    return { kind: 'connection', state: c.state, error: c.error, readable: c.readable, atEof: c.atEof, sendSpace: c.established ? c.sendSpace : 0, acceptable: 0, localPort: entry.localPort, remoteIp: entry.remoteIp, remotePort: entry.remotePort };
  }

  /** Whether a program on this host could be told about `handle` (it was not closed). */
  has(handle: StreamHandle): boolean {
    const entry = this.handles.get(handle);
    return entry !== undefined && !(entry.kind === 'connection' && entry.closed);
  }

  // --- the wire ----------------------------------------------------------------------------------

  /** A stream frame past the host's receive path. */
  onFrame(nowPs: number, frame: Frame): void {
    this.stats.segmentsReceived++;
    const h = this.byTuple.get(tupleKey(frame.tcpDstPort, frame.srcIp, frame.udpSrcPort));
    if (h !== undefined) {
      const c = this.connection(h);
      const seg: Segment = { seq: unwrapSeq(frame.tcpSeq, c.conn.rcvNext), ack: unwrapSeq(frame.tcpAck, c.conn.sndUna), flags: frame.tcpFlags, data: frame.rdma?.data ?? new Uint8Array(0) };
      const wasEstablished = c.conn.established;
      const verdict = c.conn.onSegment(nowPs, seg);
      if (verdict === 'accepted') this.ctx.deliver(frame);
      else this.ctx.drop(frame, 'out_of_sequence', PORT);
      if (!wasEstablished && c.conn.established && c.listener !== null) this.ready(c.listener, h);
      this.flush(h);
      this.changed(h);
      this.forgetIfDone(h);
      return;
    }
    const seg: Segment = { seq: frame.tcpSeq, ack: frame.tcpAck, flags: frame.tcpFlags, data: new Uint8Array(0) };
    if ((frame.tcpFlags & (TcpFlag.syn | TcpFlag.ack | TcpFlag.rst)) === TcpFlag.syn) {
      const listener = this.listeners.get(frame.tcpDstPort);
      if (listener !== undefined) return this.answerSyn(listener, frame, seg);
      return this.hold(frame, seg);
    }
    this.ctx.drop(frame, 'misdelivered', PORT);
    if ((frame.tcpFlags & TcpFlag.rst) === 0) this.sendRst(frame);
  }

  /** SYNs held for a listener that has not come yet. */
  get heldFrames(): number {
    return this.heldCount;
  }

  /** Whether any stream ever existed here (its reports may then say so). */
  get active(): boolean {
    return this.nextHandle > 1 || this.stats.segmentsReceived > 0;
  }

  // --- inside --------------------------------------------------------------------------------

  private hold(frame: Frame, seg: Segment): void {
    const port = frame.tcpDstPort;
    const list = this.held.get(port) ?? [];
    // The client's SYN again (its timer ran out while it was held): the first is kept.
    if (list.some((s) => s.frame.srcIp === frame.srcIp && s.frame.udpSrcPort === frame.udpSrcPort)) return this.ctx.drop(frame, 'out_of_sequence', PORT);
    list.push({ frame, seg });
    this.held.set(port, list);
    this.heldCount++;
    this.stats.held++;
  }

  private answerSyn(listener: StreamHandle, frame: Frame, seg: Segment): void {
    this.ctx.deliver(frame);
    const l = this.listener(listener);
    const h = this.add({ kind: 'connection', conn: new StreamConnection(this.deps.config, 'server', seg), localPort: l.port, remoteIp: frame.srcIp, remotePort: frame.udpSrcPort, listener, client: false, closed: false });
    this.byTuple.set(tupleKey(l.port, frame.srcIp, frame.udpSrcPort), h);
    l.handshaking.add(h);
    this.flush(h);
  }

  private ready(listener: StreamHandle, h: StreamHandle): void {
    const l = this.listener(listener);
    l.handshaking.delete(h);
    l.ready.push(h);
    this.changed(listener);
  }

  private reset(h: StreamHandle): void {
    const c = this.connection(h);
    if (c.conn.state !== 'failed') this.send(this.frame(c, { seq: c.conn.sndUna + c.conn.stats.inFlightBytes, ack: c.conn.rcvNext, flags: TcpFlag.rst | TcpFlag.ack, data: new Uint8Array(0) }));
    c.conn.fail('reset');
    c.closed = true;
    this.stats.resets++;
    this.forgetIfDone(h);
  }

  /** A RST answering a segment of no connection here (RFC 9293 §3.10.7.1: its sequence number is the segment's ACK). */
  private sendRst(to: Frame): void {
    const frame = this.blankFrame(to.srcIp, to.tcpDstPort, to.udpSrcPort, 0);
    frame.tcpSeq = to.tcpAck;
    frame.tcpFlags = TcpFlag.rst;
    this.send(frame);
    this.stats.resets++;
  }

  /** Sends what the connection has to send, and keeps the timer on the earliest deadline. */
  private flush(h: StreamHandle): void {
    const c = this.connection(h);
    for (const seg of c.conn.take(this.ctx.nowPs)) this.send(this.frame(c, seg));
    this.arm();
  }

  private send(frame: Frame): void {
    this.stats.segmentsSent++;
    this.deps.send(frame);
  }

  private frame(c: Connection, seg: Segment): Frame {
    const frame = this.blankFrame(c.remoteIp, c.localPort, c.remotePort, seg.data.length);
    frame.tcpSeq = seg.seq % 2 ** 32;
    frame.tcpAck = seg.ack % 2 ** 32;
    frame.tcpFlags = seg.flags;
    if (seg.data.length > 0) frame.rdma = rdmaFields({ data: seg.data });
    return frame;
  }

  private blankFrame(remoteIp: number, localPort: number, remotePort: number, payloadBytes: number): Frame {
    const frame = newFrame(payloadBytes > 0 ? FrameKind.tcpData : FrameKind.tcpAck);
    frame.srcMac = this.deps.mac;
    frame.dstMac = this.deps.gatewayMac;
    frame.srcIp = this.deps.ip;
    frame.dstIp = remoteIp;
    frame.dscp = this.deps.dscp;
    frame.udpSrcPort = localPort;
    frame.tcpDstPort = remotePort;
    frame.payloadBytes = payloadBytes;
    return frame;
  }

  /** The one timer, registered at the first need (after every timer the host had). */
  private arm(): void {
    let earliest: number | null = null;
    for (const entry of this.handles.values()) {
      if (entry.kind !== 'connection') continue;
      const d = entry.conn.deadlinePs();
      if (d !== null && (earliest === null || d < earliest)) earliest = d;
    }
    if (earliest === null && this.timer === null) return;
    this.timer ??= this.deps.timers.register((nowPs) => this.onTimer(nowPs));
    armTimer(this.ctx, this.timer, earliest);
  }

  private onTimer(nowPs: number): void {
    for (const [h, entry] of [...this.handles]) {
      if (entry.kind !== 'connection') continue;
      const d = entry.conn.deadlinePs();
      if (d === null || d > nowPs) continue;
      this.stats.retransmissionTimeouts++;
      entry.conn.onTimer(nowPs);
      for (const seg of entry.conn.take(nowPs)) this.send(this.frame(entry, seg));
      this.changed(h);
      this.forgetIfDone(h);
    }
    this.arm();
  }

  private forgetIfDone(h: StreamHandle): void {
    const entry = this.handles.get(h);
    if (entry === undefined || entry.kind !== 'connection' || !entry.closed || !entry.conn.finished) return;
    this.handles.delete(h);
    this.byTuple.delete(tupleKey(entry.localPort, entry.remoteIp, entry.remotePort));
  }

  private changed(h: StreamHandle): void {
    if (this.has(h)) this.onChange?.(h);
  }

  private add(entry: Listener | Connection): StreamHandle {
    const h = this.nextHandle++;
    this.handles.set(h, entry);
    return h;
  }

  /** A listener's port, or the local port of a connection this host opened (accepted ones share their listener's port, as in TCP). */
  private portInUse(port: number): boolean {
    if (this.listeners.has(port)) return true;
    for (const entry of this.handles.values()) if (entry.kind === 'connection' && entry.client && entry.localPort === port) return true;
    return false;
  }

  private ephemeralPort(): number {
    const span = LAST_EPHEMERAL_PORT - FIRST_EPHEMERAL_PORT + 1;
    for (let i = 0; i < span; i++) {
      const port = this.nextEphemeral;
      this.nextEphemeral = port === LAST_EPHEMERAL_PORT ? FIRST_EPHEMERAL_PORT : port + 1;
      if (!this.portInUse(port) && ![...this.handles.values()].some((e) => e.kind === 'connection' && e.localPort === port)) return port;
    }
    throw new StreamAddressInUse(`every ephemeral port (${FIRST_EPHEMERAL_PORT}..${LAST_EPHEMERAL_PORT}) is in use on this host`);
  }

  private listener(h: StreamHandle): Listener {
    const entry = this.handles.get(h);
    if (entry?.kind !== 'listener') throw new Error(`stream handle ${h} is not a listener`);
    return entry;
  }

  private connection(h: StreamHandle): Connection {
    const entry = this.handles.get(h);
    if (entry?.kind !== 'connection') throw new Error(`stream handle ${h} is not a connection`);
    return entry;
  }
}

function tupleKey(localPort: number, remoteIp: number, remotePort: number): string {
  return `${localPort}/${remoteIp}/${remotePort}`;
}
