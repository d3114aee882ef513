/**
 * Decoded protobufjs instances → the plain messages of messages.ts. The instances read like
 * the plain messages (their prototypes carry every proto3 default), but they are classes with
 * defaults on the prototype, share frozen empty arrays and may view the input buffer; the
 * engine wants own, monomorphic, independent objects. Run only after validation.
 */
import { NO_BYTES, newFrame, type Frame, type FrameKind, type IntMode, type RdmaFields } from './frame.js';
import type { rocelab as pb } from './gen/rocelab.js';
import type {
  Directory, Envelope, Fault, Goodbye, Grant, Hello, LinkBatch, LinkCount, LinkFrames, NodeReport, NodeStats, PairBatch, Report, Status,
} from './messages.js';

/**
 * Built by newFrame and then filled in, so decoded frames share the hidden class of frames made
 * locally (an object literal here would get another one: newFrame's spread reserves a slot more).
 */
function toFrame(f: pb.Frame): Frame {
  const frame = newFrame(f.kind as FrameKind);
  frame.srcMac = f.srcMac;
  frame.dstMac = f.dstMac;
  frame.srcIp = f.srcIp;
  frame.dstIp = f.dstIp;
  frame.dscp = f.dscp;
  frame.ecn = f.ecn;
  frame.ipId = f.ipId;
  frame.ttl = f.ttl;
  frame.udpSrcPort = f.udpSrcPort;
  frame.udpDstPort = f.udpDstPort;
  frame.opcode = f.opcode;
  frame.destQp = f.destQp;
  frame.psn = f.psn;
  frame.ackReq = f.ackReq;
  frame.becn = f.becn;
  frame.syndrome = f.syndrome;
  frame.msn = f.msn;
  frame.sackPsn = f.sackPsn;
  frame.tcpSeq = f.tcpSeq;
  frame.tcpAck = f.tcpAck;
  frame.tcpDstPort = f.tcpDstPort;
  frame.tcpFlags = f.tcpFlags;
  frame.dmaLength = f.dmaLength;
  frame.payloadBytes = f.payloadBytes;
  frame.pfcEnable = f.pfcEnable;
  // A decoded non-empty repeated field is a fresh array owned by this instance.
  if (f.pfcQuanta.length !== 0) frame.pfcQuanta = f.pfcQuanta;
  if (f.rdma != null) frame.rdma = toRdma(f.rdma);
  // Only INT frames pay for these (issue 26); the rest keep newFrame's shared defaults.
  if (f.intMode !== 0) {
    frame.intMode = f.intMode as IntMode;
    frame.intTsPs = f.intTsPs;
    const hops = f.int as pb.IIntHop[];
    if (hops.length !== 0) frame.int = hops.map((h) => ({ qlenBytes: h.qlenBytes ?? 0, txBytes: h.txBytes ?? 0, tsPs: h.tsPs ?? 0, lineRateBps: h.lineRateBps ?? 0 }));
  }
  return frame;
}

function toRdma(r: pb.IRdmaFields): RdmaFields {
  return {
    va: r.va ?? 0,
    rkey: r.rkey ?? 0,
    data: bytesOf(r.data),
    immediate: r.immediate ?? 0,
    operand: bytesOf(r.operand),
    swap: bytesOf(r.swap),
    original: bytesOf(r.original),
  };
}

function bytesOf(bytes: Uint8Array | null | undefined): Uint8Array {
  return bytes == null || bytes.length === 0 ? NO_BYTES : copyBytes(bytes);
}

/** Absent repeated fields decode to protobufjs' shared frozen empty array: never hand that out. */
function own<T>(values: T[]): T[] {
  return values.length === 0 ? [] : values;
}

function copyBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function toBatch(b: pb.Batch): LinkBatch {
  const source = b.frames as pb.Frame[];
  const frames: Frame[] = [];
  for (let i = 0; i < source.length; i++) frames.push(toFrame(source[i]!));
  return {
    lease: b.lease,
    window: b.window,
    frames,
    arrivalPs: own(b.arrivalPs),
    originSeq: own(b.originSeq),
    fcsBad: own(b.fcsBad),
  };
}

function framesOf(source: pb.Frame[]): Frame[] {
  const frames: Frame[] = [];
  for (let i = 0; i < source.length; i++) frames.push(toFrame(source[i]!));
  return frames;
}

function toPair(m: pb.PairBatch): PairBatch {
  const source = m.links as pb.LinkFrames[];
  const links: LinkFrames[] = [];
  for (let i = 0; i < source.length; i++) {
    const l = source[i]!;
    links.push({ link: l.link, frames: framesOf(l.frames as pb.Frame[]), arrivalPs: own(l.arrivalPs), originSeq: own(l.originSeq), fcsBad: own(l.fcsBad) });
  }
  return { lease: m.lease, window: m.window, links };
}

function toHello(m: pb.Hello): Hello {
  return {
    protocolVersion: m.protocolVersion,
    node: m.node,
    role: m.role,
    nonce: copyBytes(m.nonce),
    proof: copyBytes(m.proof),
    link: m.link,
    nodes: own(m.nodes),
    linkUrl: m.linkUrl,
    metricsUrls: own(m.metricsUrls),
  };
}

function toFault(m: pb.Fault): Fault {
  return { id: m.id, atPs: m.atPs, kind: m.kind, target: m.target, spec: m.spec };
}

function toDirectory(m: pb.Directory): Directory {
  return {
    members: (m.members as pb.Member[]).map((x) => ({ id: x.id, nodes: own(x.nodes), linkUrl: x.linkUrl })),
    windowPs: m.windowPs,
    seed: m.seed,
    runId: m.runId,
    rejoin: m.rejoin,
  };
}

function toGrant(m: pb.Grant): Grant {
  return {
    lease: m.lease,
    startPs: m.startPs,
    windowPs: m.windowPs,
    windows: m.windows,
    endPs: m.endPs,
    final: m.final,
    faults: (m.faults as pb.Fault[]).map(toFault),
    linksDown: own(m.linksDown),
    losses: (m.losses as pb.LinkLoss[]).map((x) => ({ link: x.link, frames: x.frames })),
    linksUp: own(m.linksUp),
    membersLost: own(m.membersLost),
    membersJoined: own(m.membersJoined),
  };
}

function toStats(m: pb.NodeStats): NodeStats {
  const dropped: Record<string, number> = {};
  for (const reason of Object.keys(m.dropped)) dropped[reason] = m.dropped[reason]!;
  return {
    sent: m.sent,
    delivered: m.delivered,
    queued: m.queued,
    dropped,
    causalityViolations: m.causalityViolations,
    rssBytes: m.rssBytes,
    pssBytes: m.pssBytes,
    resultsJson: m.resultsJson,
    reportJson: m.reportJson,
  };
}

function toNodeReport(m: pb.NodeReport): NodeReport {
  return {
    node: m.node,
    hash: copyBytes(m.hash),
    events: m.events,
    stats: m.stats == null ? null : toStats(m.stats as pb.NodeStats),
  };
}

function linkCountOf(x: pb.LinkCount): LinkCount {
  return { link: x.link, sender: x.sender, frames: x.frames };
}

function toReport(m: pb.Report): Report {
  return {
    lease: m.lease,
    hasNextEvent: m.hasNextEvent,
    nextEventPs: m.nextEventPs,
    nodes: (m.nodes as pb.NodeReport[]).map(toNodeReport),
    links: (m.links as pb.LinkCount[]).map(linkCountOf),
    linksFailed: own(m.linksFailed),
    linkTotals: (m.linkTotals as pb.LinkCount[]).map(linkCountOf),
    linkMessages: m.linkMessages,
    linkBytes: m.linkBytes,
  };
}

function toStatus(m: pb.Status): Status {
  return {
    virtualPs: m.virtualPs,
    dilation: m.dilation,
    windowsPerSecond: m.windowsPerSecond,
    nodesUp: m.nodesUp,
    nodesTotal: m.nodesTotal,
    lagSeconds: m.lagSeconds,
    state: m.state,
    windows: m.windows,
  };
}

/**
 * The decoded instance as a plain-typed view (no copy), for validation before conversion.
 * Sound because decode yields instances whose prototypes supply every default.
 */
export function viewEnvelope(m: pb.Envelope): Envelope | null {
  // oneof: protobufjs keeps only the last body seen, so at most one of these is set.
  if (m.pair != null) return { type: 'pair', pair: m.pair as unknown as PairBatch };
  if (m.batch != null) return { type: 'batch', batch: m.batch as unknown as LinkBatch };
  if (m.hello != null) return { type: 'hello', hello: m.hello as unknown as Hello };
  if (m.directory != null) return { type: 'directory', directory: m.directory as unknown as Directory };
  if (m.grant != null) return { type: 'grant', grant: m.grant as unknown as Grant };
  if (m.report != null) return { type: 'report', report: m.report as unknown as Report };
  if (m.fault != null) return { type: 'fault', fault: m.fault as unknown as Fault };
  if (m.status != null) return { type: 'status', status: m.status as unknown as Status };
  if (m.goodbye != null) return { type: 'goodbye', goodbye: m.goodbye as unknown as Goodbye };
  return null;
}

/** Converts a decoded, validated instance into independent plain objects. */
export function toEnvelope(m: pb.Envelope): Envelope | null {
  if (m.pair != null) return { type: 'pair', pair: toPair(m.pair as pb.PairBatch) };
  if (m.batch != null) return { type: 'batch', batch: toBatch(m.batch as pb.Batch) };
  if (m.hello != null) return { type: 'hello', hello: toHello(m.hello as pb.Hello) };
  if (m.directory != null) return { type: 'directory', directory: toDirectory(m.directory as pb.Directory) };
  if (m.grant != null) return { type: 'grant', grant: toGrant(m.grant as pb.Grant) };
  if (m.report != null) return { type: 'report', report: toReport(m.report as pb.Report) };
  if (m.fault != null) return { type: 'fault', fault: toFault(m.fault as pb.Fault) };
  if (m.status != null) return { type: 'status', status: toStatus(m.status as pb.Status) };
  if (m.goodbye != null) return { type: 'goodbye', goodbye: { reason: (m.goodbye as pb.Goodbye).reason } };
  return null;
}
