/**
 * Each hosted node's /metrics: one registry and one HTTP endpoint per node (DESIGN §6), read
 * from the engine at scrape time. The endpoints start before the engine exists (their URLs go
 * to the controller in Hello); until then they answer 503.
 */
import { dcqcnOf } from '@rocelab/rnic';
import { AppHost } from './app-host.js';
import type { Host } from '@rocelab/host';
import type { Switch } from '@rocelab/switch';
import { createNodeRegistry, serveMetrics, syncAppMetrics, type MetricsEndpoint, type NicMetricsSource, type NodeMetricsSource, type SwitchMetricsSource } from '@rocelab/telemetry';
import { PFC_PRIORITIES } from '@rocelab/wire';
import type { PodSpec } from '@rocelab/topology';
import type { Registry } from 'prom-client';
import type { RequestListener } from 'node:http';
import { createHardenedServer, httpLimitsFromEnv, type HttpLimits } from './http-limits.js';
import { VERSION } from './version.js';
import type { PodEngine, PodModel } from './pod-model.js';

export class NodeMetrics {
  /** Each node's registry, and the model it reads (a node restarted by a `kill`/`restart` gets a new one). */
  private readonly registries = new Map<number, { registry: Registry; model: PodModel | null }>();
  private endpoints: MetricsEndpoint[] = [];

  constructor(
    private readonly pod: PodSpec,
    private readonly hosted: readonly number[],
    private readonly engine: () => PodEngine | null,
    private readonly windows: () => number,
  ) {}

  /**
   * The registry of a hosted node, built on first use once the engine exists, and again when
   * the node booted afresh: its model's counters start over, as a rebooted box's do (the
   * engine's frame counters go on). While the node is dead it shows its last life.
   */
  registry(index: number): Registry | null {
    const engine = this.engine();
    if (engine === null) return null;
    const model = engine.model(index);
    const cached = this.registries.get(index);
    let registry: Registry;
    if (cached !== undefined && (cached.model === model || model === null)) registry = cached.registry;
    else {
      registry = createNodeRegistry({ node: this.pod.nodes[index]!.name, role: this.pod.nodes[index]!.role, version: VERSION }, sourceOf(engine, index, this.windows));
      this.registries.set(index, { registry, model });
    }
    const attached = model?.kind === 'host' ? model.app.attached : null;
    const app = attached instanceof AppHost ? attached : null;
    if (app !== null) syncAppMetrics(registry, app.spec.module, app.metrics);
    return registry;
  }

  /**
   * One endpoint per hosted node, on `basePort + i` (0: ports chosen by the OS), each on an
   * HTTP server with rocelab's time limits (`ROCELAB_HTTP_LIMITS_MS` overrides them).
   */
  async serve(host: string, advertiseHost?: string, basePort = 0, limits: HttpLimits = httpLimitsFromEnv(process.env)): Promise<string[]> {
    const createServer = (listener: RequestListener) => createHardenedServer(limits, listener);
    this.endpoints = await Promise.all(
      this.hosted.map((index, i) =>
        serveMetrics(() => this.registry(index), { host, port: basePort === 0 ? 0 : basePort + i, createServer, ...(advertiseHost === undefined ? {} : { advertiseHost }) }),
      ),
    );
    return this.endpoints.map((e) => e.url);
  }

  async close(): Promise<void> {
    await Promise.all(this.endpoints.map((e) => e.close()));
  }
}

function sourceOf(engine: PodEngine, index: number, windows: () => number): NodeMetricsSource {
  const ctx = engine.context(index);
  const model = engine.model(index);
  return {
    stats: ctx.stats,
    portNames: ctx.ports.map((p) => p.name),
    virtualSeconds: () => engine.horizonPs / 1e12,
    pausedSeconds: (port, p) => ctx.transmitters[port]!.pausedPs(p, engine.horizonPs) / 1e12,
    paused: (port, p) => (ctx.transmitters[port]!.pausedMask(engine.horizonPs) & (1 << p)) !== 0,
    events: () => engine.eventsProcessed(index),
    windows,
    credit: (port) => {
      const c = ctx.transmitters[port]!.credit;
      return c === null ? null : { waitSeconds: (p) => c.waitPs(p, engine.horizonPs) / 1e12, updatesSent: c.updatesSent, updatesReceived: c.updatesReceived };
    },
    linkDirection: (port) => {
      const tx = ctx.transmitters[port]!;
      return { rateBps: tx.currentRateBps, down: tx.down, ipMtuBytes: tx.impairments.ipMtuBytes ?? 0 };
    },
    ...(model?.kind === 'switch' ? { switch: switchSource(model, engine) } : {}),
    ...(model?.kind === 'host' ? { nic: nicSource(model, engine) } : {}),
  };
}

function switchSource(sw: Switch, engine: PodEngine): SwitchMetricsSource {
  const slot = (port: number, p: number) => port * PFC_PRIORITIES + p;
  return {
    queueDepthBytes: (port, p) => sw.queueBytes(port, p),
    ingressBytes: (port, p) => sw.mmu.ingressBytes(port, p),
    headroomBytes: (port, p) => sw.mmu.headroomBytes(port, p),
    sharedUsedBytes: () => sw.mmu.sharedUsedBytes(),
    ecnMarked: (port, p) => sw.ecnMarked[slot(port, p)]!,
    pausingSeconds: (port, p) => sw.pfc.pausingPs(port, p, engine.horizonPs) / 1e12,
    stormed: (port, p) => (sw.watchdog(port, p)?.state === 'stormed' ? 1 : 0),
    stormsDetected: (port, p) => sw.watchdog(port, p)?.detections ?? 0,
    stormsRestored: (port, p) => sw.watchdog(port, p)?.restorations ?? 0,
    floodCopies: (port) => sw.floodCopies[port]!,
    tagger: sw.tagger?.stats ?? null,
    egressStuck: (port, p) => (sw.egress.stuckNow(port, p) ? 1 : 0),
    egressStuckSeconds: (port, p) => sw.egress.stuckPs(port, p, engine.horizonPs) / 1e12,
    egressSlowBps: (port, p) => sw.egress.slowRateBps(port, p),
    pauseStorm: (port, p) => (sw.pfc.stormingNow(port, p) ? 1 : 0),
    pauseStormSeconds: (port, p) => sw.pfc.stormPs(port, p, engine.horizonPs) / 1e12,
    dscpRemapped: () => sw.dscpRemapped,
    ecmpSeed: () => sw.ecmp.seed,
  };
}

/** Per-QP series are bounded: the first 16 QPs of a NIC (DESIGN §6: "only on request and bounded"). */
const MAX_QP_SERIES = 16;

function nicSource(host: Host, engine: PodEngine): NicMetricsSource {
  const { nic } = host;
  const senders = host.senderQps;
  const receivers = nic.receiverQps;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    cnpsSent: () => nic.stats.cnpsSent,
    cnpsReceived: () => nic.stats.cnpsReceived,
    dscpRemarked: () => nic.dscpRemarked,
    retransmittedPackets: () => sum(senders.map((q) => q.req.stats.retransmittedPackets)),
    naksSent: (type) => sum(receivers.map((r) => r.resp.stats.naksSent[type])),
    naksReceived: (type) => nic.stats.naksReceived[type],
    rtoExpirations: () => sum(senders.map((q) => q.req.stats.rtoExpirations)),
    goodputBytes: () => host.goodputBytes,
    receivedPayloadBytes: () => host.receivedPayloadBytes,
    stormEvents: (level) => nic.pfc.stormEvents[level],
    pausingSeconds: (p) => (nic.pfcPriorities.includes(p) ? nic.pfc.pausingPs(engine.horizonPs) / 1e12 : 0),
    messageCompletionSeconds: host.traffic.completion,
    probeRttSeconds: host.traffic.probeRtt,
    ...(host.tcp.active ? { tcp: () => host.tcp.stats } : {}),
    ...(nic.qpMetricsEnabled
      ? {
          qps: () =>
            senders.slice(0, MAX_QP_SERIES).flatMap((q) =>
              q.rp === null ? [] : [{ qp: String(q.end.qpn), rateBps: q.rp.rateBps(engine.horizonPs), targetBps: dcqcnOf(q.rp)?.targetRateBps(engine.horizonPs) ?? q.rp.rateBps(engine.horizonPs), alpha: dcqcnOf(q.rp)?.alpha(engine.horizonPs) ?? 0 }],
            ),
        }
      : {}),
  };
}
