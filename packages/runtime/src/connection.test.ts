import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { encodeEnvelope, FrameKind, newFrame, PROTOCOL_VERSION, rdmaFields, type Envelope, type Hello } from '@rocelab/wire';
import { pino } from 'pino';
import WebSocket, { WebSocketServer } from 'ws';
import { podKey } from './auth.js';
import { CloseCode, Connection, HandshakeError, MessageTooLarge, WS_OPTIONS, type HelloCheck, type Identity } from './connection.js';

const lines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });

const KEY = podKey('test-token');
const server = (node: string): Identity => ({ node, role: 'member', link: '', nodes: [], linkUrl: '', metricsUrls: [] });
const client = (node: string, link = ''): Identity => ({ node, role: 'member', link, nodes: [node], linkUrl: '', metricsUrls: [] });

/** A server that accepts connections with `check` and echoes every message back. */
async function echoServer(check: HelloCheck = () => null, key = KEY) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...WS_OPTIONS });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const accepted: Connection[] = [];
  const refused: HandshakeError[] = [];
  wss.on('connection', (ws) => {
    Connection.accept(ws, key, server('srv'), check, log).then(
      (conn) => {
        accepted.push(conn);
        conn.listen(
          (env) => conn.send(env),
          () => undefined,
        );
      },
      (err: HandshakeError) => refused.push(err),
    );
  });
  after(() => wss.close());
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, accepted, refused };
}

function closed(conn: Connection): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => conn.listen(() => undefined, (code, reason) => resolve({ code, reason })));
}

async function rejection(promise: Promise<unknown>): Promise<HandshakeError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof HandshakeError, `expected a HandshakeError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the handshake to be refused');
}

const status: Envelope = {
  type: 'status',
  status: { virtualPs: 5, dilation: 0, windowsPerSecond: 0, nodesUp: 1, nodesTotal: 2, lagSeconds: 0, state: 'running', windows: 3 },
};

test('both sides prove the pod token, then envelopes flow both ways', async () => {
  const { url, accepted } = await echoServer();
  const conn = await Connection.connect(url, KEY, client('h1'), log);
  assert.equal(conn.peer?.node, 'srv');
  const echoed = new Promise<Envelope>((resolve) => conn.listen(resolve, () => undefined));
  conn.send(status);
  assert.deepEqual(await echoed, status);
  assert.equal(accepted[0]?.peer?.node, 'h1');
  conn.close(CloseCode.normal, 'done');
});

test('a message over the 4 MiB a peer accepts is refused before it leaves, naming its size, and the connection carries on', async () => {
  const { url } = await echoServer();
  const conn = await Connection.connect(url, KEY, client('h1'), log);
  const echoed: Envelope[] = [];
  conn.listen((env) => echoed.push(env), () => undefined);
  // 40,000 frames of 128 payload bytes each: fewer than a batch may hold (65,536), more bytes than a message.
  const frame = newFrame(FrameKind.data, { destQp: 0xffffff, psn: 0xabcdef, payloadBytes: 128, rdma: rdmaFields({ data: new Uint8Array(128).fill(7) }) });
  const frames = Array.from({ length: 40_000 }, () => frame);
  const huge: Envelope = { type: 'pair', pair: { lease: 1, window: 1, links: [{ link: 0, frames, arrivalPs: frames.map(() => 5), originSeq: frames.map((_, i) => i), fcsBad: frames.map(() => false) }] } };
  assert.throws(() => conn.send(huge), (err: unknown) => err instanceof MessageTooLarge && /a pair message of \d+ bytes to srv: a peer accepts at most 4194304 bytes/.test(err.message));
  conn.send(status);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(echoed, [status]);
  conn.close(CloseCode.normal, 'done');
});

test('what is sent in one tick leaves in one write when the tick ends, or at once on flush', async () => {
  const { url } = await echoServer();
  const conn = await Connection.connect(url, KEY, client('h1'), log);
  const socket = (conn as unknown as { ws: { _socket: { writableCorked: number } } }).ws._socket;
  const echoed: Envelope[] = [];
  conn.listen((env) => echoed.push(env), () => undefined);
  conn.send(status);
  conn.send(status);
  assert.equal(socket.writableCorked, 1, 'held while the tick runs');
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(socket.writableCorked, 0, 'released when it ends');
  conn.send(status);
  conn.flush();
  assert.equal(socket.writableCorked, 0, 'flush releases it at once');
  for (let i = 0; i < 100 && echoed.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(echoed.length, 3, 'every message arrived');
  conn.close(CloseCode.normal, 'done');
});

test('a peer with another pod token is refused with a clear reason, in both directions', async () => {
  const { url, refused } = await echoServer();
  const err = await rejection(Connection.connect(url, podKey('other-token'), client('h1'), log));
  assert.equal(err.code, CloseCode.auth);
  assert.match(err.reason, /bad proof from h1: the pod token differs/);
  assert.equal(refused[0]?.code, CloseCode.auth);

  const impostor = await echoServer(() => null, podKey('other-token'));
  const back = await rejection(Connection.connect(impostor.url, KEY, client('h1'), log));
  assert.equal(back.code, CloseCode.auth);
});

test('a client speaking another protocol version is refused with both versions named', async () => {
  const { url, refused } = await echoServer();
  const ws = new WebSocket(url, WS_OPTIONS);
  const closing = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.once('message', () => {
    const hello: Hello = { ...client('h1'), protocolVersion: PROTOCOL_VERSION + 1, nonce: new Uint8Array(16), proof: new Uint8Array(32) };
    ws.send(encodeEnvelope({ type: 'hello', hello }));
  });
  const { code, reason } = await closing;
  assert.equal(code, CloseCode.version);
  assert.equal(reason, `protocol version ${PROTOCOL_VERSION + 1} is not supported; this node speaks ${PROTOCOL_VERSION}`);
  assert.equal(refused.length, 1);
});

test('a server speaking another protocol version is refused by the client', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...WS_OPTIONS });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  after(() => wss.close());
  wss.on('connection', (ws) => {
    const hello: Hello = { ...server('old'), protocolVersion: 0, nonce: new Uint8Array(16), proof: new Uint8Array(0) };
    ws.send(encodeEnvelope({ type: 'hello', hello }));
  });
  const err = await rejection(Connection.connect(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, KEY, client('h1'), log));
  assert.equal(err.code, CloseCode.version);
  assert.match(err.reason, new RegExp(`server speaks protocol version 0; this node speaks ${PROTOCOL_VERSION}`));
});

test('an unknown node is refused by the server’s check with its reason', async () => {
  const { url } = await echoServer((hello) => (hello.node === 'h9' ? { code: CloseCode.unknownPeer, reason: 'unknown node h9: pod tree has no such node' } : null));
  const err = await rejection(Connection.connect(url, KEY, client('h9'), log));
  assert.equal(err.code, CloseCode.unknownPeer);
  assert.equal(err.reason, 'closed during handshake: unknown node h9: pod tree has no such node');
});

test('a malformed or truncated message closes only that connection, with a logged reason', async () => {
  const { url, accepted } = await echoServer();
  const bad = await Connection.connect(url, KEY, client('h1'), log);
  const good = await Connection.connect(url, KEY, client('h2'), log);
  const serverSide = accepted.find((c) => c.peer?.node === 'h1')!;
  const serverClosed = new Promise<{ code: number; reason: string }>((resolve) => {
    // Watch the server's end: replace its echo handler, keep the close.
    serverSide.listen(() => undefined, (code, reason) => resolve({ code, reason }));
  });
  const clientClosed = closed(bad);
  const encoded = encodeEnvelope(status);
  bad.sendRaw(encoded.subarray(0, encoded.length - 3)); // truncated
  const s = await serverClosed;
  assert.equal(s.code, CloseCode.malformed);
  assert.match(s.reason, /^malformed message: truncated: /);
  assert.equal((await clientClosed).code, CloseCode.malformed);
  assert.ok(lines.some((l) => l.includes('malformed message: closing the connection') && l.includes('"peer":"h1"')));

  // The other connection (and the server) keep working.
  const echoed = new Promise<Envelope>((resolve) => good.listen(resolve, () => undefined));
  good.send(status);
  assert.deepEqual(await echoed, status);
  good.close(CloseCode.normal, 'done');
});

test('a text message or garbage bytes are malformed too', async () => {
  const { url } = await echoServer();
  for (const payload of ['hello', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f])]) {
    const conn = await Connection.connect(url, KEY, client('h1'), log);
    const done = closed(conn);
    conn.sendRaw(payload);
    assert.equal((await done).code, CloseCode.malformed);
  }
});

test('heartbeat: a peer that answers no ping (its socket open, as a stopped process leaves it) is given up on after the limit, with one ping outstanding; one that answers is kept', { timeout: 20_000 }, async () => {
  for (const autoPong of [true, false]) {
    // autoPong false: the peer's kernel takes the pings, nothing answers them.
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...WS_OPTIONS, autoPong });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    let pings = 0;
    wss.on('connection', (ws) => {
      ws.on('ping', () => pings++);
      void Connection.accept(ws, KEY, server('srv'), () => null, log).then((c) => c.listen(() => undefined, () => undefined));
    });
    const conn = await Connection.connect(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, KEY, client('h1'), log);
    const ended = closed(conn);
    const stop = conn.heartbeat(600, 100);
    try {
      const outcome = await Promise.race([ended, new Promise<null>((r) => setTimeout(() => r(null), 1_500))]);
      if (autoPong) {
        assert.equal(outcome, null, 'a peer that answers is never given up on');
        assert.ok(conn.isOpen);
        assert.ok(pings >= 5, `pinged every interval while answered (${pings})`);
      } else {
        assert.equal(outcome?.code, CloseCode.timeout);
        assert.match(outcome.reason, /^no answer to pings for \d+ s while this end ran on time \(hang timeout 600 ms\)$/);
        // One ping outstanding, not one per interval: a peer stopped for minutes must not find a
        // burst of them (ws terminates a connection with more than 60 automatic pongs pending).
        assert.equal(pings, 1, 'pings sent to a peer that does not answer');
      }
    } finally {
      stop();
      conn.close(CloseCode.normal, 'done');
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  }
});
