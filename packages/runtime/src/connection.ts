/**
 * One authenticated WebSocket carrying protobuf envelopes: the shape of every link and of
 * every member's control channel. Bad input from a peer never crashes the node: a wrong
 * version, a bad proof or an unknown peer is refused in the handshake, and a malformed or
 * truncated message later closes this connection with a clear reason; the rest keeps running.
 *
 * Handshake: the server speaks first (Hello with its nonce), the client answers (Hello with its
 * identity, its nonce and a proof over both), the server answers with its own proof.
 */
import { decodeEnvelope, DEFAULT_DECODE_LIMITS, encodeEnvelope, PROTOCOL_VERSION, WireError, type Envelope, type Hello } from '@rocelab/wire';
import type { Logger } from '@rocelab/telemetry';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { checkProof, makeProof, newNonce } from './auth.js';
import { LIVENESS_INTERVAL_MS, SilenceWatch } from './liveness.js';
import { refusalReporterFor, type RefusalReporter } from './refusal-reporter.js';

/** Application close codes (4000–4999), documented in docs/errors.md. */
export const CloseCode = {
  normal: 1000,
  shutdown: 4000,
  version: 4001,
  auth: 4002,
  unknownPeer: 4003,
  malformed: 4004,
  protocol: 4005,
  timeout: 4006,
} as const;

/** Every rocelab socket: no compression, bounded messages (the decoder's limit). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
export const WS_OPTIONS = { perMessageDeflate: false, maxPayload: MAX_PAYLOAD_BYTES } as const;

export const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * A message larger than any peer accepts (`DecodeLimits.maxMessageBytes`): refused here, before
 * it leaves, rather than by the peer, which would close the connection as misbehaving.
 */
export class MessageTooLarge extends Error {}

export class HandshakeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'HandshakeError';
  }
}

/** The server's verdict on a client's Hello: null = welcome, else refuse with this. */
export type HelloCheck = (hello: Hello) => { code: number; reason: string } | null;

/** What a side says about itself in its Hello. */
export type Identity = Omit<Hello, 'protocolVersion' | 'nonce' | 'proof'>;

const EMPTY = new Uint8Array(0);

/** The string both proofs cover: the client's claimed node and link. */
export const identityOf = (hello: Pick<Hello, 'node' | 'link'>): string => `${hello.node}|${hello.link}`;

type Phase = 'handshake' | 'open' | 'closed';

export class Connection {
  private phase: Phase = 'handshake';
  private hellosLeft: number;
  private readonly hellos: Array<Hello | HandshakeError> = [];
  private helloWaiter: ((item: Hello | HandshakeError) => void) | null = null;
  private handler: ((envelope: Envelope) => void) | null = null;
  private readonly early: Envelope[] = [];
  private closeHandler: (code: number, reason: string) => void = () => undefined;
  /** The heartbeat's ear: any message from the peer is a sign of life too. */
  private signOfLife: () => void = () => undefined;
  private readonly timer: NodeJS.Timeout;
  /** The peer's Hello once the handshake is done. */
  peer: Hello | null = null;

  private constructor(
    private readonly ws: WebSocket,
    expectedHellos: number,
    private readonly log: Logger,
  ) {
    this.hellosLeft = expectedHellos;
    ws.on('message', (data: Buffer, isBinary: boolean) => this.receive(data, isBinary));
    ws.on('close', (code: number, reason: Buffer) => this.finish(code, reason.toString() || `closed (${code})`));
    ws.on('error', (err: Error) => log.warn({ err: err.message, peer: this.peer?.node }, 'connection error'));
    this.timer = setTimeout(() => this.pushHello(new HandshakeError(CloseCode.timeout, `no handshake within ${HANDSHAKE_TIMEOUT_MS} ms`)), HANDSHAKE_TIMEOUT_MS);
  }

  /**
   * Server side of the handshake on a freshly accepted socket. A refusal is counted in
   * `refusals` (by default the logger's reporter), which logs at most one line per kind per
   * interval: a flood of bad handshakes cannot flood the log.
   */
  static async accept(ws: WebSocket, key: Buffer, self: Identity, check: HelloCheck, log: Logger, refusals: RefusalReporter = refusalReporterFor(log)): Promise<Connection> {
    const conn = new Connection(ws, 1, log);
    const peerAddress = (ws as unknown as { _socket?: { remoteAddress?: string } })._socket?.remoteAddress ?? 'unknown';
    const serverNonce = newNonce();
    ws.send(encodeEnvelope({ type: 'hello', hello: { ...self, protocolVersion: PROTOCOL_VERSION, nonce: serverNonce, proof: EMPTY } }));
    try {
      const hello = await conn.nextHello();
      if (hello.protocolVersion !== PROTOCOL_VERSION) {
        throw new HandshakeError(CloseCode.version, `protocol version ${hello.protocolVersion} is not supported; this node speaks ${PROTOCOL_VERSION}`);
      }
      if (!checkProof(makeProof(key, 'client', identityOf(hello), serverNonce, hello.nonce), hello.proof)) {
        throw new HandshakeError(CloseCode.auth, `bad proof from ${hello.node || '(unnamed)'}: the pod token differs`);
      }
      const refusal = check(hello);
      if (refusal !== null) throw new HandshakeError(refusal.code, refusal.reason);
      const proof = makeProof(key, 'server', identityOf(hello), hello.nonce, serverNonce);
      ws.send(encodeEnvelope({ type: 'hello', hello: { ...self, protocolVersion: PROTOCOL_VERSION, nonce: serverNonce, proof } }));
      conn.peer = hello;
      return conn;
    } catch (err) {
      const e = conn.refuse(err);
      refusals.refused(closeCodeName(e.code), peerAddress, e.reason, 'handshakes refused');
      throw e;
    }
  }

  /** Client side: connect, answer the server's nonce with ours and a proof, check the server's proof. */
  static async connect(url: string, key: Buffer, self: Identity, log: Logger): Promise<Connection> {
    const ws = new WebSocket(url, WS_OPTIONS);
    const conn = new Connection(ws, 2, log); // listening before 'open': the server speaks first
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    try {
      const server = await conn.nextHello();
      if (server.protocolVersion !== PROTOCOL_VERSION) {
        throw new HandshakeError(CloseCode.version, `server speaks protocol version ${server.protocolVersion}; this node speaks ${PROTOCOL_VERSION}`);
      }
      const clientNonce = newNonce();
      const proof = makeProof(key, 'client', identityOf(self), server.nonce, clientNonce);
      ws.send(encodeEnvelope({ type: 'hello', hello: { ...self, protocolVersion: PROTOCOL_VERSION, nonce: clientNonce, proof } }));
      const answer = await conn.nextHello();
      if (!checkProof(makeProof(key, 'server', identityOf(self), clientNonce, server.nonce), answer.proof)) {
        throw new HandshakeError(CloseCode.auth, `bad proof from server ${server.node}: the pod token differs`);
      }
      conn.peer = server;
      return conn;
    } catch (err) {
      const e = conn.refuse(err);
      log.warn({ code: e.code, reason: e.reason, url }, 'handshake refused');
      throw e;
    }
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /** Start delivering messages (those that arrived since the handshake come first). */
  listen(onMessage: (envelope: Envelope) => void, onClose: (code: number, reason: string) => void): void {
    this.handler = onMessage;
    this.closeHandler = onClose;
    for (const envelope of this.early.splice(0)) if (this.phase === 'open') onMessage(envelope);
  }

  /** Send one message; returns its encoded size in bytes (0 when the connection is not open). */
  send(envelope: Envelope): number {
    if (this.phase !== 'open') return 0;
    const bytes = encodeEnvelope(envelope);
    const limit = DEFAULT_DECODE_LIMITS.maxMessageBytes;
    if (bytes.length > limit) {
      throw new MessageTooLarge(`a ${envelope.type} message of ${bytes.length} bytes to ${this.peer?.node ?? 'the peer'}: a peer accepts at most ${limit} bytes (a pair message: fewer frames per window on the links between two members, i.e. a shorter lookahead)`);
    }
    this.corkUntilNextTick();
    this.ws.send(bytes);
    return bytes.length;
  }

  /**
   * Messages sent in one tick leave in one write: the socket is corked at the first send and
   * uncorked when the tick ends (or at `flush`), so nothing waits longer than the code that is
   * running anyway.
   */
  private corkedSocket: { uncork(): void } | null = null;
  private corkUntilNextTick(): void {
    if (this.corkedSocket !== null) return;
    const socket = (this.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (socket === undefined) return;
    this.corkedSocket = socket;
    socket.cork();
    process.nextTick(() => this.flush());
  }

  /**
   * What was sent so far leaves now rather than when the tick ends: a member that has its
   * neighbours' batches for the next window already runs that window in the same tick, and a
   * batch held back until then would keep its neighbour idle for the whole window.
   */
  flush(): void {
    const socket = this.corkedSocket;
    if (socket === null) return;
    this.corkedSocket = null;
    socket.uncork();
  }

  /** Send raw bytes (tests use it to play a misbehaving peer). */
  sendRaw(bytes: Uint8Array | string): void {
    this.ws.send(bytes);
  }

  /**
   * Notice a peer that is gone without closing (a stopped or hung process, a cut network): a
   * ping every `intervalMs`; when neither a pong nor a message came for `limitMs` of this
   * process's own running time (`SilenceWatch`: a stall of this process does not count), the
   * connection is closed with `timeout`, so its close handler runs. A slow peer answers within
   * seconds; only one that is stopped or hung stays silent for the limit (minutes by default).
   * Wall time decides only when a dead peer is given up on, never what the pod computes.
   * Returns a function that stops the heartbeat.
   */
  heartbeat(limitMs: number, intervalMs = LIVENESS_INTERVAL_MS): () => void {
    const watch = new SilenceWatch(limitMs, intervalMs, performance.now());
    // One ping outstanding at a time: a peer stopped for minutes finds one ping waiting, not one
    // per interval — `ws` (8.23) terminates a connection on which more than 60 automatic pongs
    // are pending at once, a flood guard that a burst of 90 buffered pings set off after a
    // 3-minute SIGSTOP.
    let pongDue = false;
    const heard = () => watch.heard(performance.now());
    const onPong = () => {
      pongDue = false;
      heard();
    };
    this.signOfLife = heard;
    this.ws.on('pong', onPong);
    const timer = setInterval(() => {
      if (this.phase !== 'open') return stop();
      if (watch.check(performance.now())) {
        stop();
        this.ws.terminate();
        this.finish(CloseCode.timeout, `no answer to pings for ${Math.round(watch.silenceMs / 1000)} s while this end ran on time (hang timeout ${limitMs} ms)`);
        return;
      }
      if (pongDue) return;
      pongDue = true;
      this.ws.ping();
    }, intervalMs);
    timer.unref();
    const stop = () => {
      clearInterval(timer);
      this.ws.off('pong', onPong);
      this.signOfLife = () => undefined;
    };
    return stop;
  }

  close(code: number, reason: string): void {
    if (this.phase === 'closed') return;
    this.ws.close(code, closeReason(reason));
    this.finish(code, reason);
  }

  private receive(data: Buffer, isBinary: boolean): void {
    if (this.phase === 'closed') return;
    let envelope: Envelope;
    try {
      if (!isBinary) throw new WireError('malformed', 'Envelope', 'a binary protobuf message', 'a text message');
      envelope = decodeEnvelope(data);
    } catch (err) {
      const reason = err instanceof WireError ? `${err.code}: ${err.message}` : String(err);
      this.log.warn({ peer: this.peer?.node, link: this.peer?.link || undefined, reason }, 'malformed message: closing the connection');
      if (this.phase === 'handshake') this.pushHello(new HandshakeError(CloseCode.malformed, `handshake: ${reason}`));
      else this.close(CloseCode.malformed, `malformed message: ${reason}`);
      return;
    }
    if (this.phase === 'handshake') {
      if (envelope.type !== 'hello') return this.pushHello(new HandshakeError(CloseCode.protocol, `handshake: expected Hello, got ${envelope.type}`));
      if (--this.hellosLeft === 0) {
        this.phase = 'open';
        clearTimeout(this.timer);
      }
      return this.pushHello(envelope.hello);
    }
    this.signOfLife();
    if (this.handler === null) this.early.push(envelope);
    else this.handler(envelope);
  }

  private pushHello(item: Hello | HandshakeError): void {
    const waiter = this.helloWaiter;
    this.helloWaiter = null;
    if (waiter === null) this.hellos.push(item);
    else waiter(item);
  }

  private nextHello(): Promise<Hello> {
    return new Promise((resolve, reject) => {
      const settle = (item: Hello | HandshakeError) => (item instanceof HandshakeError ? reject(item) : resolve(item));
      const ready = this.hellos.shift();
      if (ready === undefined) this.helloWaiter = settle;
      else settle(ready);
    });
  }

  /** Close the socket with the handshake's failure (the caller logs it). */
  private refuse(err: unknown): HandshakeError {
    const e = err instanceof HandshakeError ? err : new HandshakeError(CloseCode.malformed, err instanceof Error ? err.message : String(err));
    this.close(e.code, e.reason);
    return e;
  }

  private finish(code: number, reason: string): void {
    if (this.phase === 'closed') return;
    const wasHandshake = this.phase === 'handshake';
    this.phase = 'closed';
    clearTimeout(this.timer);
    if (wasHandshake) this.pushHello(new HandshakeError(code, `closed during handshake: ${reason}`));
    else this.closeHandler(code, reason);
  }
}

/** The name of a close code (`auth`, `unknownPeer`, …; the refusal log's `kind`), or `code 1006` for others. */
export function closeCodeName(code: number): string {
  for (const [name, value] of Object.entries(CloseCode)) if (value === code) return name;
  return `code ${code}`;
}

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
export function closeReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = `${text.slice(0, -2)}…`;
  return text;
}
