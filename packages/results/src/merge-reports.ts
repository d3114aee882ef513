/**
 * One node's figures over several lives: a member process that was lost and rejoined with
 * fresh state reports its counters from zero again, so the run's figures for the node are the
 * sum of its lives — counts and times added, first pauses the earliest, last pauses the latest,
 * peaks the highest. Pure; the controller merges what the lives reported.
 */
import type { DropReason } from '@rocelab/sim';
import type { HostReport, NodeReport, PortReport, TcpReport } from './node-report.js';

export function mergeNodeReports(lives: readonly NodeReport[]): NodeReport {
  if (lives.length === 0) throw new Error('mergeNodeReports: no lives');
  return lives.slice(1).reduce(mergeTwo, lives[0]!);
}

function mergeTwo(a: NodeReport, b: NodeReport): NodeReport {
  if (a.node !== b.node || a.ports.length !== b.ports.length) throw new Error(`mergeNodeReports: ${a.node} and ${b.node} are not lives of one node`);
  return {
    node: a.node,
    role: a.role,
    ports: a.ports.map((p, i) => mergePorts(p, b.ports[i]!)),
    host: a.host === null ? b.host : b.host === null ? a.host : mergeHosts(a.host, b.host),
    ...(a.tagger === undefined || b.tagger === undefined
      ? (a.tagger ?? b.tagger) === undefined ? {} : { tagger: (a.tagger ?? b.tagger)! }
      : { tagger: { retagged: a.tagger.retagged + b.tagger.retagged, demoted: a.tagger.demoted + b.tagger.demoted, dropped: a.tagger.dropped + b.tagger.dropped } }),
  };
}

const add = (x: number[], y: number[]) => x.map((v, i) => v + (y[i] ?? 0));
/** The earlier of two times, -1 standing for "none". */
const first = (x: number, y: number) => (x < 0 ? y : y < 0 ? x : Math.min(x, y));

function addCounts(a: Partial<Record<DropReason, number>>, b: Partial<Record<DropReason, number>>): Partial<Record<DropReason, number>> {
  const out: Partial<Record<DropReason, number>> = { ...a };
  for (const [reason, n] of Object.entries(b) as Array<[DropReason, number]>) out[reason] = (out[reason] ?? 0) + n;
  return out;
}

function mergePorts(a: PortReport, b: PortReport): PortReport {
  const dropped: Partial<Record<DropReason, number>> = { ...a.dropped };
  for (const [reason, n] of Object.entries(b.dropped) as Array<[DropReason, number]>) dropped[reason] = (dropped[reason] ?? 0) + n;
  return {
    port: a.port,
    pfcSent: add(a.pfcSent, b.pfcSent),
    pfcReceived: add(a.pfcReceived, b.pfcReceived),
    pausedPs: add(a.pausedPs, b.pausedPs),
    pausingPs: add(a.pausingPs, b.pausingPs),
    firstPauseTxPs: first(a.firstPauseTxPs, b.firstPauseTxPs),
    lastPauseTxPs: Math.max(a.lastPauseTxPs, b.lastPauseTxPs),
    firstPauseRxPs: first(a.firstPauseRxPs, b.firstPauseRxPs),
    lastPauseRxPs: Math.max(a.lastPauseRxPs, b.lastPauseRxPs),
    ecnMarked: a.ecnMarked + b.ecnMarked,
    dropped,
    peakQueueBytes: Math.max(a.peakQueueBytes, b.peakQueueBytes),
    losslessDrops: a.losslessDrops + b.losslessDrops,
    losslessDropped: addCounts(a.losslessDropped, b.losslessDropped),
    txBytes: a.txBytes + b.txBytes,
    rxBytes: a.rxBytes + b.rxBytes,
    ...(a.credit === undefined || b.credit === undefined
      ? (a.credit ?? b.credit) === undefined ? {} : { credit: (a.credit ?? b.credit)! }
      : { credit: { waitPs: add(a.credit.waitPs, b.credit.waitPs), updatesSent: a.credit.updatesSent + b.credit.updatesSent, updatesReceived: a.credit.updatesReceived + b.credit.updatesReceived } }),
  };
}

function mergeHosts(a: HostReport, b: HostReport): HostReport {
  return {
    cnpsSent: a.cnpsSent + b.cnpsSent,
    cnpsReceived: a.cnpsReceived + b.cnpsReceived,
    retransmittedPackets: a.retransmittedPackets + b.retransmittedPackets,
    naksSent: { seq: a.naksSent.seq + b.naksSent.seq, rnr: a.naksSent.rnr + b.naksSent.rnr },
    naksReceived: { seq: a.naksReceived.seq + b.naksReceived.seq, rnr: a.naksReceived.rnr + b.naksReceived.rnr },
    rtoExpirations: a.rtoExpirations + b.rtoExpirations,
    rnrWaits: a.rnrWaits + b.rnrWaits,
    stormEvents: { warning: a.stormEvents.warning + b.stormEvents.warning, error: a.stormEvents.error + b.stormEvents.error },
    goodputBytes: a.goodputBytes + b.goodputBytes,
    receivedPayloadBytes: a.receivedPayloadBytes + b.receivedPayloadBytes,
    ...(a.tcp === undefined && b.tcp === undefined ? {} : { tcp: mergeTcp(a.tcp, b.tcp) }),
  };
}

/** Two TCP reports summed (either may be absent). */
export function mergeTcp(a: TcpReport | undefined, b: TcpReport | undefined): TcpReport {
  if (a === undefined) return { ...b! };
  if (b === undefined) return { ...a };
  const out = { ...a };
  for (const key of Object.keys(out) as Array<keyof TcpReport>) out[key] += b[key];
  return out;
}
