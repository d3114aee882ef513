/**
 * @rocelab/telemetry — metrics (prom-client, one Registry per node, read at scrape time) and
 * logs (pino JSON on stderr). The only package that touches prom-client or pino.
 */
export * from './logger.js';
export * from './collectors.js';
export * from './node-metrics.js';
export * from './serve.js';
