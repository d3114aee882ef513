/**
 * Time limits of every HTTP server rocelab runs: the controller's port (HTTP and the members'
 * WebSocket), each node's /metrics, and each member's link server. Node's defaults leave a
 * connection that never finishes its request open for a minute (headers) to five minutes
 * (request) and never close an idle socket; probing held 150 half-open connections on a
 * metrics port and on the controller's port for 75 s and none was closed. With these limits a
 * peer that does not finish its request headers in `headersTimeoutMs` gets 408 and is closed.
 *
 * A WebSocket is not affected once upgraded: `ws` turns the socket's idle timeout off, and the
 * connection leaves the HTTP server's request checks (links may wait up to 60 s for a batch).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { WebSocketServer, type ServerOptions } from 'ws';

export interface HttpLimits {
  /** From the connection (or the previous request) to the end of the request headers. */
  headersTimeoutMs: number;
  /** From the connection to the end of the whole request, body included. */
  requestTimeoutMs: number;
  /** How long a kept-alive connection may wait for its next request. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic either way for this long is destroyed (not a WebSocket). */
  idleTimeoutMs: number;
  /** How often Node checks the header and request deadlines (its default, 30 s, lets them slip by that much). */
  checkIntervalMs: number;
}

/**
 * Every request rocelab serves is a few hundred bytes of headers sent at once (a scrape,
 * /status, a WebSocket upgrade) or a fault of at most 64 KiB: 10 s for the headers and 30 s
 * for the whole request are ample on any network that can run a pod, and bound what a slow or
 * idle client holds to 10 s. Keep-alive 5 s is Node's own default (Prometheus reconnects each
 * 15 s scrape anyway). Checking once a second costs a walk over the open connections.
 */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  checkIntervalMs: 1_000,
};

/** The environment variable that overrides the limits (tests, or a network slower than assumed). */
export const HTTP_LIMITS_ENV = 'ROCELAB_HTTP_LIMITS_MS';

const KEYS = { headers: 'headersTimeoutMs', request: 'requestTimeoutMs', keepAlive: 'keepAliveTimeoutMs', idle: 'idleTimeoutMs', check: 'checkIntervalMs' } as const;

export class HttpLimitsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpLimitsError';
  }
}

/**
 * The limits, with `ROCELAB_HTTP_LIMITS_MS="headers=500,request=1000,keepAlive=500,idle=1000,check=50"`
 * (any subset) applied over the defaults. Throws HttpLimitsError on a value that does not parse.
 */
export function httpLimitsFromEnv(env: NodeJS.ProcessEnv): HttpLimits {
  const text = env[HTTP_LIMITS_ENV];
  if (text === undefined || text === '') return DEFAULT_HTTP_LIMITS;
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS };
  const form = `KEY=MS[,KEY=MS…] with KEY one of ${Object.keys(KEYS).join(', ')} and MS a positive integer`;
  for (const item of text.split(',')) {
    const [key, value] = item.split('=') as [string, string | undefined];
    const n = Number(value);
    if (!(key in KEYS) || value === undefined || !Number.isSafeInteger(n) || n <= 0) {
      throw new HttpLimitsError(`${HTTP_LIMITS_ENV}=${JSON.stringify(text)}: expected ${form}, got ${JSON.stringify(item)}`);
    }
    limits[KEYS[key as keyof typeof KEYS]] = n;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new HttpLimitsError(`${HTTP_LIMITS_ENV}=${JSON.stringify(text)}: expected headers ≤ request (Node refuses otherwise), got ${limits.headersTimeoutMs} > ${limits.requestTimeoutMs}`);
  }
  return limits;
}

/** An HTTP server with these limits (not listening yet). */
export function createHardenedServer(limits: HttpLimits, listener?: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    listener,
  );
  // Without a 'timeout' listener Node destroys a socket idle this long.
  server.setTimeout(limits.idleTimeoutMs);
  return server;
}

/**
 * A WebSocket server on its own hardened HTTP server, listening on `host:port`, or on the Unix
 * socket `path`. Closing the WebSocket server closes the HTTP server too, as
 * `new WebSocketServer({host, port})` does with the one it makes.
 */
export async function listenWebSocket(o: ({ host: string; port: number } | { path: string }) & { limits: HttpLimits; options: ServerOptions }): Promise<WebSocketServer> {
  const http = createHardenedServer(o.limits);
  const wss = new WebSocketServer({ ...o.options, server: http });
  wss.once('close', () => http.close());
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    if ('path' in o) http.listen(o.path, () => resolve());
    else http.listen(o.port, o.host, () => resolve());
  });
  return wss;
}
