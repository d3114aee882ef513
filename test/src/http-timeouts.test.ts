/**
 * Every HTTP server of a running pod closes connections that never finish their request: the
 * controller's port (HTTP and WebSocket), each node's /metrics, and each member's link server.
 * Limits are shortened through ROCELAB_HTTP_LIMITS_MS; the pod's own WebSockets (control and
 * links) must outlive all of them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { test } from 'node:test';
import { Controller } from '@rocelab/controller';
import { httpLimitsFromEnv, linkName, MemberProcess } from '@rocelab/runtime';
import { loadTopologyFile } from '@rocelab/topology';
import { pino } from 'pino';
import { fixture, split } from './harness.js';

process.env.ROCELAB_HTTP_LIMITS_MS = 'headers=300,request=600,keepAlive=300,idle=800,check=50';
const LIMITS = httpLimitsFromEnv(process.env);
/** Header limit + a few checks + scheduling slack. */
const CLOSE_WITHIN_MS = LIMITS.headersTimeoutMs + 10 * LIMITS.checkIntervalMs + 700;

const PARTIAL = ['', 'GET /metr', 'GET /status HTTP/1.1\r\nHost: x\r\n', 'GET /control HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'];

/** `n` connections sending part of a request; each one's time to be closed (Infinity past `boundMs`). */
async function halfOpen(url: string, n: number, boundMs = 5_000): Promise<number[]> {
  const { hostname, port } = new URL(url);
  const start = performance.now();
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      new Promise<number>((resolve) => {
        const socket = connect(Number(port), hostname, () => socket.write(PARTIAL[i % PARTIAL.length]!));
        const bound = setTimeout(() => {
          socket.destroy();
          resolve(Infinity);
        }, boundMs);
        socket.on('error', () => undefined);
        socket.resume();
        socket.on('close', () => {
          clearTimeout(bound);
          resolve(performance.now() - start);
        });
      }),
    ),
  );
}

test('the controller, every /metrics and every link server close half-open connections within the header limit; the pod runs on', { timeout: 60_000 }, async () => {
  const pod = loadTopologyFile(fixture('tree.yaml'));
  const log = pino({ level: 'silent' });
  const token = randomBytes(16).toString('hex');
  const members = split(pod, 2);
  const controller = new Controller({ pod, seed: 1, durationPs: null, dilation: 1000, token, expected: members, mode: 'workers', log });
  const { url, httpUrl } = await controller.listen();
  const processes = members.map((m) => new MemberProcess({ pod, id: m.id, nodes: m.nodes, controllerUrl: url, token, metrics: { host: '127.0.0.1' }, log }));
  try {
    const started = await Promise.all(processes.map((m) => m.start()));
    await controller.running;
    const servers = [
      ['controller', httpUrl],
      ...started.flatMap((s, i) => [[`${members[i]!.id} links`, s.linkUrl] as const, ...s.metricsUrls.map((u, j) => [`${members[i]!.nodes[j]} /metrics`, u] as const)]),
    ] as const;
    assert.equal(servers.length, 1 + 2 + pod.nodes.length);
    const results = await Promise.all(servers.map(async ([name, at]) => [name, await halfOpen(at, 30)] as const));
    for (const [name, times] of results) {
      const slowest = Math.max(...times);
      assert.ok(slowest <= CLOSE_WITHIN_MS, `${name}: a half-open connection stayed ${slowest === Infinity ? 'open' : `${slowest.toFixed(0)} ms`} (limit ${CLOSE_WITHIN_MS} ms)`);
    }
    // The control connections and the link between the members outlived every limit.
    const status = (await (await fetch(`${httpUrl}/status`)).json()) as { state: string; nodesUp: number };
    assert.deepEqual([status.state, status.nodesUp], ['running', pod.nodes.length]);
    const link = pod.links.find((l) => members[0]!.nodes.includes(l.a.node) !== members[0]!.nodes.includes(l.b.node))!;
    const name = linkName(link);
    assert.ok(processes.some((m) => m.linkConnection(name)?.isOpen === true), `link ${name} is still open`);
    // Paced at 1,000 and maybe in an idle stretch (a lease then spans up to 400 ms of wall time),
    // on a machine busy with other tests: give it a few seconds to show it still advances.
    const before = controller.status().windows;
    for (let i = 0; i < 60 && controller.status().windows === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(controller.status().windows > before, 'windows still advance');
  } finally {
    controller.stop();
    await Promise.all(processes.map((m) => m.stop()));
    await controller.close();
  }
});
