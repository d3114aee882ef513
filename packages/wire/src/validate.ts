/**
 * Limits and invariants of every message (DESIGN §4, STYLE §9). The decoder runs these on what
 * it decoded, before converting; senders may run `validateEnvelope` in tests to catch a value
 * the peer would refuse (the encoder itself does not check, to stay fast).
 */
import {
  checkBytes, checkCount, checkFinite, checkString, checkStrings, checkU64, checkUint, invalid,
} from './check.js';
import { WireError } from './errors.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './limits.js';
import type {
  Directory, Envelope, Fault, Goodbye, Grant, Hello, Member, NodeReport, NodeStats, Report, Status,
} from './messages.js';
import { checkBatch, checkPair } from './validate-batch.js';

type L = DecodeLimits;

export const ONE_BODY = 'one body: hello, batch, pair, directory, grant, report, fault, status or goodbye';

function checkHello(m: Hello, l: L): void {
  checkUint(m.protocolVersion, 32, 'Hello.protocolVersion');
  checkString(m.node, l.maxStringBytes, 'Hello.node');
  checkString(m.role, l.maxStringBytes, 'Hello.role');
  checkBytes(m.nonce, l.maxStringBytes, 'Hello.nonce');
  checkBytes(m.proof, l.maxStringBytes, 'Hello.proof');
  checkString(m.link, l.maxStringBytes, 'Hello.link');
  checkStrings(m.nodes, l.maxRepeated, l.maxStringBytes, 'Hello.nodes');
  checkString(m.linkUrl, l.maxStringBytes, 'Hello.linkUrl');
  checkStrings(m.metricsUrls, l.maxRepeated, l.maxStringBytes, 'Hello.metricsUrls');
}

function checkFault(m: Fault, l: L, at: string): void {
  checkUint(m.id, 32, `${at}.id`);
  checkU64(m.atPs, `${at}.atPs`);
  checkString(m.kind, l.maxStringBytes, `${at}.kind`);
  checkString(m.target, l.maxStringBytes, `${at}.target`);
  checkString(m.spec, l.maxJsonBytes, `${at}.spec`);
}

function checkMember(m: Member, l: L, at: string): void {
  checkString(m.id, l.maxStringBytes, `${at}.id`);
  checkStrings(m.nodes, l.maxRepeated, l.maxStringBytes, `${at}.nodes`);
  checkString(m.linkUrl, l.maxStringBytes, `${at}.linkUrl`);
}

function checkDirectory(m: Directory, l: L): void {
  checkCount(m.members.length, l.maxRepeated, 'Directory.members');
  m.members.forEach((member, i) => checkMember(member, l, `Directory.members[${i}]`));
  checkU64(m.windowPs, 'Directory.windowPs');
  checkU64(m.seed, 'Directory.seed');
  checkString(m.runId, l.maxStringBytes, 'Directory.runId');
}

function checkGrant(m: Grant, l: L): void {
  checkUint(m.lease, 32, 'Grant.lease');
  checkU64(m.startPs, 'Grant.startPs');
  checkU64(m.windowPs, 'Grant.windowPs');
  checkUint(m.windows, 32, 'Grant.windows');
  checkU64(m.endPs, 'Grant.endPs');
  checkCount(m.faults.length, l.maxRepeated, 'Grant.faults');
  m.faults.forEach((fault, i) => checkFault(fault, l, `Grant.faults[${i}]`));
  checkStrings(m.linksDown, l.maxRepeated, l.maxStringBytes, 'Grant.linksDown');
  checkStrings(m.linksUp, l.maxRepeated, l.maxStringBytes, 'Grant.linksUp');
  checkStrings(m.membersLost, l.maxRepeated, l.maxStringBytes, 'Grant.membersLost');
  checkStrings(m.membersJoined, l.maxRepeated, l.maxStringBytes, 'Grant.membersJoined');
  checkCount(m.losses.length, l.maxRepeated, 'Grant.losses');
  m.losses.forEach((loss, i) => {
    checkString(loss.link, l.maxStringBytes, `Grant.losses[${i}].link`);
    checkU64(loss.frames, `Grant.losses[${i}].frames`);
  });
}

function checkStats(m: NodeStats, l: L, at: string): void {
  checkU64(m.sent, `${at}.sent`);
  checkU64(m.delivered, `${at}.delivered`);
  checkU64(m.queued, `${at}.queued`);
  const reasons = Object.keys(m.dropped);
  checkCount(reasons.length, l.maxRepeated, `${at}.dropped`);
  for (const reason of reasons) {
    // A key like this one would set the prototype of a plain object someone copies it into.
    if (reason === '__proto__') invalid(`${at}.dropped`, 'drop reason names', reason);
    checkString(reason, l.maxStringBytes, `${at}.dropped`);
    checkU64(m.dropped[reason]!, `${at}.dropped[${JSON.stringify(reason)}]`);
  }
  checkU64(m.causalityViolations, `${at}.causalityViolations`);
  checkU64(m.rssBytes, `${at}.rssBytes`);
  checkU64(m.pssBytes, `${at}.pssBytes`);
  checkString(m.resultsJson, l.maxJsonBytes, `${at}.resultsJson`);
  checkString(m.reportJson, l.maxJsonBytes, `${at}.reportJson`);
}

function checkNodeReport(m: NodeReport, l: L, at: string): void {
  checkString(m.node, l.maxStringBytes, `${at}.node`);
  checkBytes(m.hash, l.maxStringBytes, `${at}.hash`);
  checkU64(m.events, `${at}.events`);
  if (m.stats !== null) checkStats(m.stats, l, `${at}.stats`);
}

function checkReport(m: Report, l: L): void {
  checkUint(m.lease, 32, 'Report.lease');
  checkU64(m.nextEventPs, 'Report.nextEventPs');
  checkCount(m.nodes.length, l.maxRepeated, 'Report.nodes');
  m.nodes.forEach((node, i) => checkNodeReport(node, l, `Report.nodes[${i}]`));
  for (const [name, list] of [['links', m.links], ['linkTotals', m.linkTotals]] as const) {
    checkCount(list.length, l.maxRepeated, `Report.${name}`);
    list.forEach((link, i) => {
      checkString(link.link, l.maxStringBytes, `Report.${name}[${i}].link`);
      checkU64(link.frames, `Report.${name}[${i}].frames`);
    });
  }
  checkStrings(m.linksFailed, l.maxRepeated, l.maxStringBytes, 'Report.linksFailed');
  checkU64(m.linkMessages, 'Report.linkMessages');
  checkU64(m.linkBytes, 'Report.linkBytes');
}

function checkStatus(m: Status, l: L): void {
  checkU64(m.virtualPs, 'Status.virtualPs');
  checkFinite(m.dilation, 'Status.dilation');
  checkFinite(m.windowsPerSecond, 'Status.windowsPerSecond');
  checkUint(m.nodesUp, 32, 'Status.nodesUp');
  checkUint(m.nodesTotal, 32, 'Status.nodesTotal');
  checkFinite(m.lagSeconds, 'Status.lagSeconds');
  checkString(m.state, l.maxStringBytes, 'Status.state');
  checkU64(m.windows, 'Status.windows');
}

function checkGoodbye(m: Goodbye, l: L): void {
  checkString(m.reason, l.maxStringBytes, 'Goodbye.reason');
}

/** Throws a WireError (`too_large` or `invalid_field`) if the envelope breaks a limit or invariant. */
export function validateEnvelope(env: Envelope, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): void {
  switch (env.type) {
    case 'hello': return checkHello(env.hello, limits);
    case 'batch': return checkBatch(env.batch, limits);
    case 'pair': return checkPair(env.pair, limits);
    case 'directory': return checkDirectory(env.directory, limits);
    case 'grant': return checkGrant(env.grant, limits);
    case 'report': return checkReport(env.report, limits);
    case 'fault': return checkFault(env.fault, limits, 'Fault');
    case 'status': return checkStatus(env.status, limits);
    case 'goodbye': return checkGoodbye(env.goodbye, limits);
    default: {
      const unknown: never = env;
      throw new WireError('empty', 'Envelope', ONE_BODY, JSON.stringify((unknown as { type?: unknown }).type));
    }
  }
}
