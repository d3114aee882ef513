import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { createHardenedServer, DEFAULT_HTTP_LIMITS, httpLimitsFromEnv, HttpLimitsError, listenWebSocket, type HttpLimits } from './http-limits.js';
import { WS_OPTIONS } from './connection.js';

const SHORT: HttpLimits = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, idleTimeoutMs: 800, checkIntervalMs: 50 };

/** What a slow-loris client sends and never finishes. */
const HALF_OPEN = ['', 'GET /metr', 'GET /metrics HTTP/1.1\r\nHost: x\r\n', 'GET /control HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'];

/**
 * Opens `n` raw TCP connections that send part of a request and never finish it; resolves with
 * how long each took to be closed by the server. Every socket is destroyed after `boundMs`.
 */
async function halfOpen(port: number, n: number, boundMs: number, host = '127.0.0.1'): Promise<number[]> {
  const start = performance.now();
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      new Promise<number>((resolve) => {
        const socket = connect(port, host, () => socket.write(HALF_OPEN[i % HALF_OPEN.length]!));
        const bound = setTimeout(() => {
          socket.destroy();
          resolve(Infinity);
        }, boundMs);
        socket.on('error', () => undefined);
        socket.resume(); // read the 408 and the end: a paused socket never sees the close
        socket.on('close', () => {
          clearTimeout(bound);
          resolve(performance.now() - start);
        });
      }),
    ),
  );
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

test('the defaults: 10 s for headers, 30 s per request, 5 s keep-alive, 30 s idle, checked every second', () => {
  assert.deepEqual(DEFAULT_HTTP_LIMITS, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, idleTimeoutMs: 30_000, checkIntervalMs: 1_000 });
  const server = createHardenedServer(DEFAULT_HTTP_LIMITS);
  assert.deepEqual([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout, server.timeout], [10_000, 30_000, 5_000, 30_000]);
});

test('half-open requests are closed once the header limit passes; a finished request is answered', { timeout: 10_000 }, async () => {
  const server = createHardenedServer(SHORT, (_req, res) => res.end('ok'));
  const port = await listening(server);
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await answer.text(), 'ok');
    const closed = await halfOpen(port, 40, 3_000);
    for (const ms of closed) assert.ok(ms < SHORT.headersTimeoutMs + 10 * SHORT.checkIntervalMs + 500, `closed after ${ms.toFixed(0)} ms`);
    assert.ok(Math.min(...closed) >= SHORT.headersTimeoutMs - 50, 'not before the limit');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('an upgraded WebSocket outlives every HTTP limit; closing the WebSocket server closes its HTTP server', { timeout: 10_000 }, async () => {
  const wss = await listenWebSocket({ host: '127.0.0.1', port: 0, limits: SHORT, options: WS_OPTIONS });
  const port = (wss.address() as AddressInfo).port;
  wss.on('connection', (ws) => ws.on('message', (data: Buffer) => ws.send(data)));
  const ws = new WebSocket(`ws://127.0.0.1:${port}/link`, WS_OPTIONS);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  await new Promise((resolve) => setTimeout(resolve, SHORT.idleTimeoutMs + SHORT.requestTimeoutMs + 200));
  assert.equal(ws.readyState, WebSocket.OPEN, 'still open after the idle, header and request limits');
  const echo = new Promise<string>((resolve) => ws.once('message', (d: Buffer) => resolve(d.toString())));
  ws.send('still here');
  assert.equal(await echo, 'still here');
  const closed = await halfOpen(port, 12, 3_000);
  for (const ms of closed) assert.ok(ms < 3_000, 'half-open upgrade requests are closed too');
  ws.close();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await assert.rejects(fetch(`http://127.0.0.1:${port}/`), 'nothing listens any more');
});

test('ROCELAB_HTTP_LIMITS_MS overrides some limits; a bad value names the variable and the form', () => {
  assert.equal(httpLimitsFromEnv({}), DEFAULT_HTTP_LIMITS);
  assert.deepEqual(httpLimitsFromEnv({ ROCELAB_HTTP_LIMITS_MS: 'headers=200,check=20' }), { ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 200, checkIntervalMs: 20 });
  assert.throws(() => httpLimitsFromEnv({ ROCELAB_HTTP_LIMITS_MS: 'headers=0' }), (err: unknown) => err instanceof HttpLimitsError && /ROCELAB_HTTP_LIMITS_MS="headers=0": expected KEY=MS.*got "headers=0"/.test(err.message));
  assert.throws(() => httpLimitsFromEnv({ ROCELAB_HTTP_LIMITS_MS: 'body=5' }), /got "body=5"/);
  assert.throws(() => httpLimitsFromEnv({ ROCELAB_HTTP_LIMITS_MS: 'headers=50000' }), /expected headers ≤ request/);
});
