/**
 * The JSON schemas of what a node reports at the end of a run, as it travels between processes
 * (`NodeStats.reportJson` and `resultsJson` of @rocelab/wire): a `NodeReport` and a host's
 * `HostResults`. The runtime's report-wire.ts is the one module that writes and reads them, and
 * it checks every payload it reads against these schemas (precompiled by
 * scripts/precompile-validators.mjs), so a payload is a typed object or a clear error, never a
 * cast. They mirror the interfaces of node-report.ts and @rocelab/rnic's results field by field,
 * closed to unknown keys: a field added there and not here is refused, and the test beside this
 * file runs pods that set every optional part and checks what they report against these schemas.
 * Plain JSON: the reports stay JSON on the wire because they are summary-shaped (optional parts,
 * per-reason and per-peer maps) and read only by the summary, which shows them as they are.
 */
import type { AppReport, ProgramReport } from './node-report.js';
import type { HostResults } from '@rocelab/host';
import type { MessageResult, WorkOpcode } from '@rocelab/rnic';

export type { HostResults };

type Schema = Record<string, unknown>;

const num: Schema = { type: 'number' };
const nullableNum: Schema = { type: ['number', 'null'] };
const str: Schema = { type: 'string' };
const nums: Schema = { type: 'array', items: num };
const counts: Schema = { type: 'object', additionalProperties: num };

/** An object with exactly these keys; `optional` may be absent. */
function closed(description: string, required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { type: 'object', description, required: Object.keys(required), properties: { ...required, ...optional }, additionalProperties: false };
}

// The string unions as lists, each a Record over its union so the compiler holds them to it.
const OPCODES: Record<WorkOpcode, true> = { write: true, send: true, read: true, fetchAdd: true, compareSwap: true };
const STATUSES: Record<MessageResult['status'], true> = {
  success: true,
  retryExceeded: true,
  rnrRetryExceeded: true,
  remoteInvalidRequest: true,
  remoteAccessError: true,
  remoteOperationalError: true,
  flushed: true,
  pending: true,
  lost: true,
};
const APP_STATUSES: Record<AppReport['status'], true> = { running: true, finished: true, failed: true };
const PROGRAM_STATUSES: Record<ProgramReport['status'], true> = { running: true, exited: true, killed: true, failed: true };
const TRANSPORTS: Record<NonNullable<MessageResult['transport']>, true> = { tcp: true, dctcp: true };
const oneOf = (values: Record<string, true>): Schema => ({ enum: Object.keys(values) });

const seqRnr = closed('NAK counts {seq, rnr}', { seq: num, rnr: num });

const portReport = closed(
  'a port report',
  {
    port: str,
    pfcSent: nums,
    pfcReceived: nums,
    pausedPs: nums,
    pausingPs: nums,
    firstPauseTxPs: num,
    lastPauseTxPs: num,
    firstPauseRxPs: num,
    lastPauseRxPs: num,
    ecnMarked: num,
    dropped: counts,
    peakQueueBytes: num,
    losslessDrops: num,
    losslessDropped: counts,
    txBytes: num,
    rxBytes: num,
  },
  { credit: closed('credit figures {waitPs, updatesSent, updatesReceived}', { waitPs: nums, updatesSent: num, updatesReceived: num }) },
);

const tcpReport = closed('a TCP report', { segmentsSent: num, retransmittedSegments: num, fastRetransmits: num, rtoExpirations: num, cwndCuts: num, outOfOrder: num, duplicates: num });

const hostReport = closed(
  'a host report',
  {
    cnpsSent: num,
    cnpsReceived: num,
    retransmittedPackets: num,
    naksSent: seqRnr,
    naksReceived: seqRnr,
    rtoExpirations: num,
    rnrWaits: num,
    stormEvents: closed('storm events {warning, error}', { warning: num, error: num }),
    goodputBytes: num,
    receivedPayloadBytes: num,
  },
  { tcp: tcpReport },
);

const appReport = closed('an app report', {
  node: str,
  module: str,
  digest: str,
  status: oneOf(APP_STATUSES),
  error: { type: ['string', 'null'] },
  finishedPs: nullableNum,
  reports: { type: 'object', additionalProperties: { type: ['number', 'string', 'boolean'] } },
  log: { type: 'array', items: str },
  workRequests: closed('work request counts {posted, completed, failed}', { posted: num, completed: num, failed: num }),
});

const nullableStr: Schema = { type: ['string', 'null'] };

const programReport = closed('a program report', {
  node: str,
  index: num,
  argv: { type: 'array', items: str },
  status: oneOf(PROGRAM_STATUSES),
  exitCode: nullableNum,
  signal: nullableStr,
  startedPs: num,
  exitedPs: nullableNum,
  stdout: str,
  stderr: str,
  log: { type: 'array', items: str },
  unsupported: counts,
  error: nullableStr,
});

/** A `NodeReport` (node-report.ts). */
export function nodeReportSchema(): Schema {
  return closed(
    'a node report',
    { node: str, role: str, ports: { type: 'array', items: portReport }, host: { anyOf: [{ type: 'null' }, hostReport] } },
    { app: appReport, programs: { type: 'array', items: programReport }, tagger: closed('a Tagger report', { retagged: num, demoted: num, dropped: num }) },
  );
}

const messageResult = closed(
  'a message result',
  {
    flow: num,
    to: str,
    qpn: num,
    opcode: oneOf(OPCODES),
    sizeBytes: num,
    postedPs: num,
    completedPs: nullableNum,
    status: oneOf(STATUSES),
    deliveredBytes: num,
    lastProgressPs: nullableNum,
    retransmittedPackets: num,
    cnps: num,
  },
  { transport: oneOf(TRANSPORTS) },
);

const probeResults = closed('probe results', { sent: num, failed: num, pending: num, rttPs: { type: 'object', additionalProperties: nums }, rttOmitted: num });

/** A host's `HostResults`. */
export function hostResultsSchema(): Schema {
  return closed('host results {sent, probes}', { sent: { type: 'array', items: messageResult }, probes: probeResults });
}
