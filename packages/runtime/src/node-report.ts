/**
 * A hosted node's end-of-run figures for the run summary (`NodeReport` of @rocelab/results),
 * read from its engine counters and its model — the same reading in every process, so the
 * summary does not depend on the mapping.
 */
import { DROP_REASONS, type DropReason } from '@rocelab/sim';
import type { Host } from '@rocelab/host';
import type { HostReport, NodeReport, PortReport, ProgramReport } from '@rocelab/results';
import type { PodSpec } from '@rocelab/topology';
import { PFC_PRIORITIES } from '@rocelab/wire';
import type { PodEngine } from './pod-model.js';
import { AppHost } from './app-host.js';
import { ProgramHost } from './program-host.js';

const PRIORITIES = Array.from({ length: PFC_PRIORITIES }, (_, p) => p);

/** `final`: the run's end (programs still waiting are stopped then); a lease's report leaves them be. */
export function nodeReport(engine: PodEngine, index: number, role: string, final = true): NodeReport {
  const ctx = engine.context(index);
  const model = engine.model(index);
  const now = engine.horizonPs;
  const sw = model?.kind === 'switch' ? model : null;
  const host = model?.kind === 'host' ? model : null;
  const nic = host?.nic ?? null;
  const ports = ctx.ports.map((info, port): PortReport => {
    const stats = ctx.stats.ports[port]!;
    const tx = ctx.transmitters[port]!;
    const dropped: Partial<Record<DropReason, number>> = {};
    const losslessDropped: Partial<Record<DropReason, number>> = {};
    DROP_REASONS.forEach((reason, r) => {
      if (stats.dropped[r]! > 0) dropped[reason] = stats.dropped[r]!;
      const lossless = sw !== null ? sw.losslessDropped[port * DROP_REASONS.length + r]! : 0;
      if (lossless > 0) losslessDropped[reason] = lossless;
    });
    // A NIC drops a lossless frame only when its receive buffer is full (PFC failed to hold its ToR).
    if (nic !== null && nic.stats.losslessDrops > 0) losslessDropped.buffer = nic.stats.losslessDrops;
    return {
      port: info.name,
      pfcSent: [...stats.pfcTx],
      pfcReceived: [...stats.pfcRx],
      pausedPs: PRIORITIES.map((p) => tx.pausedPs(p, now)),
      // A credit link sends no pause: whatever the NIC's buffer logic wanted, nobody was paused.
      pausingPs: PRIORITIES.map((p) => (tx.credit !== null ? 0 : sw !== null ? sw.pfc.pausingPs(port, p, now) : nic !== null && nic.pfcPriorities.includes(p) ? nic.pfc.pausingPs(now) : 0)),
      firstPauseTxPs: stats.firstPauseTxPs,
      lastPauseTxPs: stats.lastPauseTxPs,
      firstPauseRxPs: stats.firstPauseRxPs,
      lastPauseRxPs: stats.lastPauseRxPs,
      ecnMarked: sw === null ? 0 : PRIORITIES.reduce((n, p) => n + sw.ecnMarked[port * PFC_PRIORITIES + p]!, 0),
      dropped,
      peakQueueBytes: sw !== null ? Math.max(...PRIORITIES.map((p) => sw.peakQueueBytes(port, p))) : nic !== null ? nic.pfc.peakOccupancyBytes : 0,
      losslessDrops: sw !== null ? sw.losslessDrops[port]! : nic !== null ? nic.stats.losslessDrops : 0,
      losslessDropped,
      txBytes: stats.txBytes,
      rxBytes: stats.rxBytes,
      ...(tx.credit === null ? {} : { credit: { waitPs: PRIORITIES.map((p) => tx.credit!.waitPs(p, now)), updatesSent: tx.credit.updatesSent, updatesReceived: tx.credit.updatesReceived } }),
    };
  });
  const attached = host?.app.attached ?? null;
  const app = attached instanceof AppHost ? attached : null;
  const tagger = sw?.tagger ?? null;
  const programs = host === null ? [] : programReports(host, final);
  return {
    node: ctx.name,
    role,
    ports,
    host: host === null ? null : hostReport(host),
    ...(app === null ? {} : { app: app.report() }),
    ...(programs.length === 0 ? {} : { programs }),
    ...(tagger === null ? {} : { tagger: { ...tagger.stats } }),
  };
}

/**
 * The seam for the native programs' runtime (issue 25): the reports of the programs `host` runs,
 * in its `programs` order, each as it stands now (`running` until it exits). They travel in the
 * node's report (`NodeReport.programs`, checked by payload-schemas.ts) and are gathered into the
 * run result's `programs` by `assembleResult`. None until a host runs programs.
 */
function programReports(host: Host<AppHost | ProgramHost>, final: boolean): ProgramReport[] {
  const programs = host.app.attached;
  if (!(programs instanceof ProgramHost)) return [];
  if (final) programs.stopAll();
  return programs.outcomes();
}

function hostReport(host: Host): HostReport {
  const { nic } = host;
  const senders = host.senderQps;
  const receivers = nic.receiverQps;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    cnpsSent: nic.stats.cnpsSent,
    cnpsReceived: nic.stats.cnpsReceived,
    retransmittedPackets: sum(senders.map((q) => q.req.stats.retransmittedPackets)),
    naksSent: { seq: sum(receivers.map((r) => r.resp.stats.naksSent.seq)), rnr: sum(receivers.map((r) => r.resp.stats.naksSent.rnr)) },
    naksReceived: { ...nic.stats.naksReceived },
    rtoExpirations: sum(senders.map((q) => q.req.stats.rtoExpirations)),
    rnrWaits: nic.stats.naksReceived.rnr,
    stormEvents: { ...nic.pfc.stormEvents },
    goodputBytes: host.goodputBytes,
    receivedPayloadBytes: host.receivedPayloadBytes,
    ...(host.tcp.active ? { tcp: host.tcp.stats } : {}),
  };
}

/** Each host's ToR (the switch at the other end of its one link), by host name. */
export function torsOfHosts(pod: PodSpec): Record<string, string> {
  const tors: Record<string, string> = {};
  for (const node of pod.nodes) if (node.role === 'host') tors[node.name] = pod.nodes[node.ports[0]!.peerNode]!.name;
  return tors;
}
