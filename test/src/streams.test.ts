/**
 * Host streams through a real fabric (issue 25: the out-of-band TCP of native programs): two
 * echo exchanges in the Clos fixture, under its RDMA incast, one of them a connect that comes
 * before its listener. Run in one engine, and with every node in an engine of its own whose
 * frames cross between engines encoded and decoded by the wire codec, as between processes:
 * every node's trace hash is the same, the bytes arrive intact, and every frame is counted.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Host, StreamHandle } from '@rocelab/host';
import { buildEngine, podContext, type PodEngine } from '@rocelab/runtime';
import { parseTopology, type PodSpec } from '@rocelab/topology';
import { decodeEnvelope, encodeEnvelope } from '@rocelab/wire';
import { fixture } from './harness.js';

const US = 1_000_000;
const END_PS = 3000 * US;
const LISTEN_LATE_PS = 50 * US;
const MESSAGE = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 31 + 7) & 0xff);

interface Echo {
  client: string;
  server: string;
  port: number;
  /** The server listens at 0, or only at LISTEN_LATE_PS (its client's SYN is held until then). */
  late: boolean;
}

const ECHOES: readonly Echo[] = [
  { client: 'h1', server: 'h3', port: 18_515, late: true },
  { client: 'h4', server: 'h2', port: 5000, late: false },
];

/** Each echo's programs, woken by their hosts: the client writes MESSAGE and closes when it has it back; the server echoes until EOF and closes. */
function programs(pod: PodSpec, hostOf: (name: string) => Host) {
  const ipOf = (name: string) => pod.nodes.find((n) => n.name === name)!.ip!;
  const results = ECHOES.map(() => ({ back: [] as number[], echoed: 0, clientClosed: false, serverClosed: false }));
  const listeners: Array<() => void> = [];
  ECHOES.forEach((e, k) => {
    const r = results[k]!;
    const cs = hostOf(e.client).streams;
    const ss = hostOf(e.server).streams;
    let written = 0;
    const c: StreamHandle = cs.connect(ipOf(e.server), e.port);
    let l: StreamHandle | null = null;
    let s: StreamHandle | null = null;
    const pending: number[] = [];
    const client = () => {
      if (r.clientClosed || cs.status(c).state !== 'established') return;
      written += cs.write(c, MESSAGE.subarray(written));
      for (let b = cs.read(c, 4096); b.length > 0; b = cs.read(c, 4096)) r.back.push(...b);
      if (r.back.length === MESSAGE.length) {
        cs.close(c);
        r.clientClosed = true;
      }
    };
    const server = () => {
      if (l === null || r.serverClosed) return;
      s ??= ss.accept(l);
      if (s === null) return;
      for (let b = ss.read(s, 4096); b.length > 0; b = ss.read(s, 4096)) pending.push(...b);
      const n = ss.write(s, Uint8Array.from(pending));
      pending.splice(0, n);
      r.echoed += n;
      if (pending.length === 0 && ss.status(s).atEof) {
        ss.close(s);
        ss.close(l);
        r.serverClosed = true;
      }
    };
    const chain = (host: Host, f: () => void) => {
      const before = host.streams.onChange;
      host.streams.onChange = (h) => {
        before?.(h);
        f();
      };
    };
    chain(hostOf(e.client), client);
    chain(hostOf(e.server), server);
    const listen = () => {
      l = ss.listen(e.port);
      server();
    };
    if (e.late) listeners.push(listen);
    else listen();
  });
  return { results, listenLate: () => listeners.forEach((f) => f()) };
}

function load(): PodSpec {
  const file = fixture('switch/clos.yaml');
  return parseTopology(readFileSync(file, 'utf8'), file);
}

function audit(engines: readonly PodEngine[]) {
  let sent = 0;
  let accounted = 0;
  for (const e of engines) {
    for (const i of e.hostedIndices) {
      const s = e.context(i).stats;
      sent += s.sent;
      accounted += s.delivered + s.droppedTotal() + e.heldFrames(i);
    }
  }
  return { sent, accounted };
}

/** Engines that together host the pod, run in windows; frames between them go through the wire codec. */
function runSplit(pod: PodSpec, engines: readonly PodEngine[], windowPs: number, fromPs: number, toPs: number): void {
  const hostOf = new Map<number, PodEngine>();
  for (const e of engines) for (const i of e.hostedIndices) hostOf.set(i, e);
  for (let t = fromPs; t < toPs; t += windowPs) {
    const end = Math.min(toPs, t + windowPs);
    for (const e of engines) e.runUntil(end);
    for (const e of engines) {
      for (const i of e.hostedIndices) {
        for (const port of pod.nodes[i]!.ports) {
          const peer = hostOf.get(port.peerNode)!;
          if (peer === e) continue;
          const out = e.takeOutbox(i, port.index);
          const env = decodeEnvelope(encodeEnvelope({ type: 'batch', batch: { lease: 0, window: 0, ...out } }));
          assert.ok(env.type === 'batch');
          peer.deliverRemote(port.peerNode, port.peerPort, env.batch);
        }
      }
    }
  }
}

function hostIn(engines: readonly PodEngine[], pod: PodSpec) {
  return (name: string): Host => {
    const i = pod.nodes.find((n) => n.name === name)!.index;
    const model = engines.find((e) => e.hostedIndices.includes(i))!.model(i);
    assert.ok(model?.kind === 'host');
    return model;
  };
}

test('two echo exchanges through the Clos under its incast: intact, a held SYN answered when the listener comes, the same trace hash in one engine and in one engine per node with the codec between them', () => {
  const pod = load();
  const pc = podContext(pod, pod.seed);
  const all = pod.nodes.map((n) => n.index);

  const one = buildEngine(pc, all);
  const p1 = programs(pod, hostIn([one], pod));
  one.runUntil(LISTEN_LATE_PS);
  assert.equal(hostIn([one], pod)('h3').streams.heldFrames, 1, "h1's SYN waits for h3's listener");
  p1.listenLate();
  one.runUntil(END_PS);

  const split = all.map((i) => buildEngine(pc, [i]));
  const p2 = programs(pod, hostIn(split, pod));
  runSplit(pod, split, US, 0, LISTEN_LATE_PS);
  p2.listenLate();
  runSplit(pod, split, US, LISTEN_LATE_PS, END_PS);

  for (const r of [...p1.results, ...p2.results]) {
    assert.deepEqual(Uint8Array.from(r.back), MESSAGE);
    assert.equal(r.echoed, MESSAGE.length);
    assert.ok(r.clientClosed && r.serverClosed);
  }
  const digests = (engines: readonly PodEngine[]) => all.map((i) => Buffer.from(engines.find((e) => e.hostedIndices.includes(i))!.digest(i)).toString('hex'));
  assert.deepEqual(digests(split), digests([one]));
  for (const engines of [[one], split]) {
    const { sent, accounted } = audit(engines);
    assert.equal(sent, accounted, 'conservation');
  }
  const h3 = hostIn([one], pod)('h3').streams.stats;
  assert.equal(h3.held, 1);
  const segments = ECHOES.reduce((n, e) => n + hostIn([one], pod)(e.client).streams.stats.segmentsSent, 0);
  assert.ok(segments >= 2 * 20, `${segments} segments from the clients`);
});
