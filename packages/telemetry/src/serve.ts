/**
 * A minimal HTTP endpoint for Prometheus: GET /metrics serves one registry. Ports are chosen
 * by the OS (port 0) unless given, so tests and `npm start` never collide on fixed ports.
 * `createServer` lets the caller give the server its limits (the runtime's http-limits).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsEndpoint {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serve `registry` (or a function returning it; null answers 503 while the node starts). */
export async function serveMetrics(
  registry: Registry | (() => Registry | null),
  options: { host?: string; port?: number; advertiseHost?: string; createServer?: (listener: RequestListener) => Server } = {},
): Promise<MetricsEndpoint> {
  const server: Server = (options.createServer ?? createServer)((req, res) => {
    if (req.method !== 'GET' || (req.url !== '/metrics' && !req.url?.startsWith('/metrics?'))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try GET /metrics\n');
      return;
    }
    const current = typeof registry === 'function' ? registry() : registry;
    if (current === null) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('starting: metrics appear once the node runs\n');
      return;
    }
    current.metrics().then(
      (text) => res.writeHead(200, { 'content-type': current.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = options.advertiseHost ?? (host === '0.0.0.0' ? '127.0.0.1' : host);
  return {
    url: `http://${shown}:${port}/metrics`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
