/**
 * The fault table (DESIGN §3 "Faults are events", §7): every kind of fault once — what it
 * targets, its keys and their schema, whether it may last (`for`), and how a written fault
 * resolves to base units and checked references. Topology files, drill files, the fault API
 * and the wire all go through it, so a new kind is one entry here, one case where the runtime
 * turns it into engine events, and one handler in the model it acts on.
 */
import type { PacketAction } from '@rocelab/sim';
import { childPath, describeValue, type Problems } from './errors.js';
import { drawFault, nodeChoice, timeChoice } from './fault-draws.js';
import type { Endpoint, FaultContext, FaultKind, FaultParams, FaultSpec, FaultTarget, LinkDirectionChoice, NodeSpec, RawFault, WatchdogActionChoice } from './pod.js';
import { duration, endpoint, nodeName, object, probability, rate, type JsonSchema } from './schema-atoms.js';
import { EXPECT, parseBytes, parseDuration, parseProbability, parseRate } from './units.js';

interface KindDef {
  target: FaultTarget;
  /** Accepts `for`: undone after that long. */
  lasting: boolean;
  summary: string;
  /** The kind's own keys (besides at, for, kind). */
  keys: Record<string, JsonSchema>;
  required: string[];
}

const priority = { type: 'integer', minimum: 0, maximum: 7, description: 'a priority, an integer 0..7' };
const bytes = { type: ['integer', 'string'], description: EXPECT.bytes };
const bool = { type: 'boolean', description: 'true or false' };
const port = { type: 'string', minLength: 1, description: 'a port name of the node' };
const host = { ...nodeName, description: 'the name of a host attached to the switch' };
const direction = { enum: ['both', 'out', 'in'], description: 'a direction: both, out (what the named endpoint transmits) or in' };
const link = { ...endpoint, description: 'an endpoint node:port of a declared link' };

/** The table: one entry per kind. */
export const FAULT_KINDS: Readonly<Record<FaultKind, KindDef>> = {
  linkDown: {
    target: 'link',
    lasting: true,
    summary: 'the link carries nothing (both ways, or one `direction`: a one-way failure); frames on it are lost as link_down',
    keys: { link, direction },
    required: ['link'],
  },
  linkUp: { target: 'link', lasting: false, summary: 'the link carries frames again', keys: { link }, required: ['link'] },
  linkFlap: {
    target: 'link',
    lasting: false,
    summary: '`count` times: down for half of `period`, then up for the other half',
    keys: { link, period: duration, count: { type: 'integer', minimum: 1, maximum: 1000, description: 'a flap count, an integer 1..1000' } },
    required: ['link', 'period', 'count'],
  },
  loss: {
    target: 'link',
    lasting: true,
    summary: 'Bernoulli loss at `rate`, or the IP-ID rule `dropIpIdLowByte` (Guo et al. 2016), on one or both directions',
    keys: { link, direction, rate: probability, dropIpIdLowByte: { type: 'integer', minimum: 0, maximum: 255, description: 'an IP ID low byte, an integer 0..255' } },
    required: ['link'],
  },
  corrupt: { target: 'link', lasting: true, summary: 'frames arrive with a bad FCS at `rate` (dropped as corrupt)', keys: { link, direction, rate: probability }, required: ['link', 'rate'] },
  nicPauseStorm: { target: 'host', lasting: true, summary: "the host's NIC pauses its ToR whatever its buffer says (a malfunctioning NIC)", keys: { node: nodeName }, required: ['node'] },
  slowReceiver: {
    target: 'host',
    lasting: true,
    summary: "host memory drains the NIC's receive buffer at `drainRate` (e.g. MTT cache misses)",
    keys: { node: nodeName, drainRate: rate },
    required: ['node', 'drainRate'],
  },
  macFlush: { target: 'switch', lasting: false, summary: "the switch forgets its MAC entries (or `host`'s); ARP entries stay", keys: { node: nodeName, host }, required: ['node'] },
  arpExpire: { target: 'switch', lasting: false, summary: "the switch forgets its ARP entries (or `host`'s)", keys: { node: nodeName, host }, required: ['node'] },
  pfcMisconfig: {
    target: 'node',
    lasting: true,
    summary: 'PFC of a priority on a port (or every port) turned off (`enabled: false`: the group is lossy) or given fixed `xoff`/`xon`',
    keys: { node: nodeName, port, priority, enabled: bool, xoff: bytes, xon: bytes },
    required: ['node', 'priority'],
  },
  ecnMisconfig: {
    target: 'switch',
    lasting: true,
    summary: 'ECN marking of a queue (or all) turned on or off, or given other `kmin`/`kmax`/`pmax`',
    keys: { node: nodeName, port, priority, enabled: bool, kmin: bytes, kmax: bytes, pmax: probability },
    required: ['node'],
  },
  watchdog: {
    target: 'switch',
    lasting: true,
    summary: "the switch's PFC watchdog turned on or off, or given another action",
    keys: { node: nodeName, enabled: bool, action: { enum: ['drop', 'forward', 'alert'], description: 'a watchdog action: drop, forward or alert' } },
    required: ['node', 'enabled'],
  },
  packetEvent: {
    target: 'flow',
    lasting: false,
    summary: "drop, ECN-mark or corrupt the n-th data packets of a flow as they leave its sender (Lumina, SIGCOMM 2023)",
    keys: {
      flow: object('a flow {from, to, workload?}', { from: nodeName, to: nodeName, workload: { type: 'integer', minimum: 0, description: 'a workload index' } }, ['from', 'to']),
      packets: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'integer', minimum: 1, description: 'a packet number, from 1' }, description: 'the packet numbers (from 1, retransmissions count)' },
      action: { enum: ['drop', 'ecn', 'corrupt'], description: 'drop, ecn or corrupt' },
    },
    required: ['flow', 'packets', 'action'],
  },
  kill: {
    target: 'node',
    lasting: true,
    summary: 'the node dies: what it holds and what reaches it is lost (node_lost), its links go down; `for` restarts it',
    keys: { node: nodeName },
    required: ['node'],
  },
  restart: {
    target: 'node',
    lasting: false,
    summary: 'a killed node boots again, fresh: empty queues, a host without queue pairs or traffic; its links come up',
    keys: { node: nodeName },
    required: ['node'],
  },
  egressStuck: {
    target: 'switch',
    lasting: true,
    summary: "a switch's egress port (or one priority's queue of it) stops transmitting, a hung egress: its frames stay queued, so its ingress fills and pauses upstream",
    keys: { node: nodeName, port, priority },
    required: ['node', 'port'],
  },
  egressSlow: {
    target: 'switch',
    lasting: true,
    summary: "a switch's egress port (or one priority's queue of it) drains at `rate`, below its link's rate, as a degraded egress pipeline would",
    keys: { node: nodeName, port, priority, rate },
    required: ['node', 'port', 'rate'],
  },
  switchPauseStorm: {
    target: 'switch',
    lasting: true,
    summary: "a switch port pauses its neighbour whatever its buffer says (a switch-originated storm), on its lossless priorities or on `priority`",
    keys: { node: nodeName, port, priority },
    required: ['node', 'port'],
  },
  // Issue 24, link and configuration faults (appended: the table's order is the schema's).
  linkRate: {
    target: 'link',
    lasting: true,
    summary: 'the link trained down to a lower `rate` (one or both directions): frames serialize slower, ECMP still uses it; `for` restores the configured rate',
    keys: { link, direction, rate },
    required: ['link', 'rate'],
  },
  mtuMismatch: {
    target: 'node',
    lasting: true,
    summary: "a port's MTU lowered to `mtu` (the largest IP packet) below its peer's: larger frames it would send or take are dropped as mtu_exceeded",
    keys: { node: nodeName, port, mtu: { type: 'integer', minimum: 68, maximum: 65535, description: 'an IP MTU in bytes, an integer 68..65535' } },
    required: ['node', 'port', 'mtu'],
  },
  dscpMisconfig: {
    target: 'node',
    lasting: true,
    summary: 'a switch classifies `dscp` (or every DSCP) arriving on `port` (or any) to `priority`; a host NIC marks what it sends with `dscp` (or everything) for `priority` instead (e.g. RoCE to a lossy queue)',
    keys: { node: nodeName, port, dscp: { type: 'integer', minimum: 0, maximum: 63, description: 'a DSCP, an integer 0..63' }, priority },
    required: ['node', 'priority'],
  },
  ecmpMisconfig: {
    target: 'switch',
    lasting: true,
    summary: 'the switch hashes ECMP with another `seed`, `hash` function, or fewer `fields` (polarization)',
    keys: {
      node: nodeName,
      seed: { type: 'integer', minimum: 0, maximum: 4294967295, description: 'an ECMP seed, an unsigned 32-bit integer' },
      hash: { enum: ['rocelab', 'hpcc-ns3'], description: 'an ECMP hash: rocelab or hpcc-ns3' },
      fields: {
        type: 'array',
        minItems: 1,
        maxItems: 3,
        uniqueItems: true,
        items: { enum: ['srcIp', 'dstIp', 'srcPort'], description: 'a hashed field: srcIp, dstIp or srcPort' },
        description: 'the fields hashed, a non-empty list of srcIp, dstIp, srcPort',
      },
    },
    required: ['node'],
  },
};

export const FAULT_KIND_NAMES = Object.keys(FAULT_KINDS) as FaultKind[];

const AT = timeChoice('a time');
const FOR = timeChoice('a duration');

/**
 * The schema of one fault item: `at`, `for` and `kind`, then the kind's own keys (dispatch on
 * `kind`). `at`, `for` and `node` also take the random forms of fault-draws.ts.
 */
export function faultItemSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'a fault {at, kind, …}',
    required: ['at', 'kind'],
    properties: { kind: { enum: FAULT_KIND_NAMES, description: 'a fault kind' } },
    allOf: FAULT_KIND_NAMES.map((kind) => {
      const def = FAULT_KINDS[kind];
      const base: Record<string, JsonSchema> = { at: AT, kind: { const: kind }, ...(def.lasting ? { for: FOR } : {}) };
      const keys = 'node' in def.keys ? { ...def.keys, node: nodeChoice } : def.keys;
      return {
        if: { type: 'object', required: ['kind'], properties: { kind: { const: kind } } },
        then: object(`a ${kind} fault {at, kind, ${Object.keys(def.keys).join(', ')}${def.lasting ? ', for' : ''}}`, { ...base, ...keys }, ['at', 'kind', ...def.required]),
      };
    }),
  };
}

/** Why a link fault or a node's death cannot touch a credit link: nothing re-initialises its credits. */
const CREDIT_RETRAIN = 'rocelab does not retrain a credit link that went down (its credits would start again from the lane buffers, IBA link initialisation, which is not modelled)';

/**
 * A schema-valid fault in base units with its references checked; problems go to `problems`
 * (all of them), and the result is null when there were any.
 */
export function resolveFault(written: RawFault, index: number, path: string, ctx: FaultContext, problems: Problems): FaultSpec | null {
  const def = FAULT_KINDS[written.kind as FaultKind];
  const drawn = drawFault(written, index, path, def.target, ctx, problems);
  if (drawn === null) return null;
  const raw = drawn.raw;
  const before = problems.list.length;
  const at = (key: string) => childPath(path, key);
  const atPs = problems.parse(at('at'), 0, () => parseDuration(raw.at as string));
  const forPs = raw.for === undefined ? null : problems.parse(at('for'), 0, () => parseDuration(raw.for as string));
  if (forPs !== null && forPs <= 0) problems.add('value', at('for'), 'a duration above 0', describeValue(raw.for));
  const params = resolveParams(raw, at, ctx, problems);
  if (problems.list.length > before || params === null) return null;
  return { index, atPs, forPs: def.lasting ? forPs : null, kind: params.kind, target: targetOf(params), params, raw, ...(drawn.drawnFrom === null ? {} : { drawnFrom: drawn.drawnFrom }) };
}

/** A rate for a message, in the unit a topology file would write it. */
function formatRate(bps: number): string {
  return bps % 1e9 === 0 ? `${bps / 1e9} Gb/s` : bps % 1e6 === 0 ? `${bps / 1e6} Mb/s` : `${bps} bit/s`;
}

function targetOf(p: FaultParams): string {
  if ('link' in p) return `${p.link.node}:${p.link.port}`;
  if (p.kind === 'egressStuck' || p.kind === 'egressSlow' || p.kind === 'switchPauseStorm') return `${p.node}:${p.port}`;
  if (p.kind === 'mtuMismatch') return `${p.node}:${p.port}`;
  if (p.kind === 'packetEvent') return `${p.from}>${p.to}`;
  return p.node;
}

function resolveParams(raw: RawFault, at: (key: string) => string, ctx: FaultContext, problems: Problems): FaultParams | null {
  const kind = raw.kind as FaultKind;
  const def = FAULT_KINDS[kind];
  const str = (key: string) => (typeof raw[key] === 'string' ? (raw[key]) : null);
  const num = (key: string) => (typeof raw[key] === 'number' ? (raw[key]) : null);
  const flag = (key: string) => (typeof raw[key] === 'boolean' ? (raw[key]) : null);
  const linkRef = (): Endpoint => {
    const text = str('link') ?? '';
    if (!ctx.endpoints.has(text)) problems.add('reference', at('link'), `the endpoint node:port of a declared link (a ${kind} fault acts on a link)`, describeValue(raw.link));
    const [node = '', port = ''] = text.split(':');
    return { node, port };
  };
  const pfcLink = (link: Endpoint): Endpoint => {
    if (ctx.creditEndpoints?.has(`${link.node}:${link.port}`) === true) problems.add('value', at('link'), `a link in PFC flow control: ${CREDIT_RETRAIN}`, `${describeValue(raw.link)} (a credit link)`);
    return link;
  };
  const nodeRef = (): NodeSpec | null => {
    const name = str('node') ?? '';
    const node = ctx.nodes.get(name);
    const fits = node !== undefined && (def.target === 'node' || (def.target === 'host' ? node.role === 'host' : node.role !== 'host'));
    if (!fits) {
      const wanted = def.target === 'node' ? 'a node' : `a ${def.target}`;
      problems.add('reference', at('node'), `the name of ${wanted} (a ${kind} fault acts on one)`, node === undefined ? describeValue(raw.node) : `${JSON.stringify(name)} (a ${node.role})`);
      return null;
    }
    return node;
  };
  const portOf = (node: NodeSpec | null): string | null => {
    const name = str('port');
    if (name === null || node === null) return null;
    if (!ctx.endpoints.has(`${node.name}:${name}`)) {
      const ports = [...ctx.endpoints].filter((e) => e.startsWith(`${node.name}:`)).map((e) => e.slice(node.name.length + 1));
      problems.add('reference', at('port'), `a port of ${node.name} (${ports.sort().join(', ')})`, describeValue(name));
    }
    return name;
  };
  const hostOf = (sw: NodeSpec | null): string | null => {
    const name = str('host');
    if (name === null || sw === null) return null;
    const attached = ctx.nodes.get(name)?.role === 'host' && (ctx.neighbours.get(sw.name)?.has(name) ?? false);
    if (!attached) problems.add('reference', at('host'), `a host attached to ${sw.name}`, describeValue(name));
    return name;
  };
  const optionalBytes = (key: string) => (raw[key] === undefined ? null : problems.parse(at(key), 0, () => parseBytes(raw[key] as string | number)));
  const directionOf = (): LinkDirectionChoice => (str('direction') as LinkDirectionChoice | null) ?? 'both';
  switch (kind) {
    case 'linkDown':
      return { kind, link: pfcLink(linkRef()), direction: directionOf() };
    case 'linkUp':
      return { kind, link: pfcLink(linkRef()) };
    case 'linkFlap':
      return { kind, link: pfcLink(linkRef()), periodPs: problems.parse(at('period'), 0, () => parseDuration(str('period') ?? '')), count: num('count') ?? 1 };
    case 'loss': {
      const link = linkRef();
      const hasRate = raw.rate !== undefined;
      const rule = num('dropIpIdLowByte');
      if (hasRate === (rule !== null)) problems.add('value', at('rate'), 'exactly one of rate (a probability) or dropIpIdLowByte (the IP-ID rule)', hasRate ? 'both' : 'neither');
      const rate = hasRate ? problems.parse(at('rate'), 0, () => parseProbability(raw.rate as string | number)) : 0;
      return { kind, link, direction: directionOf(), rate, dropIpIdLowByte: rule };
    }
    case 'corrupt':
      return { kind, link: linkRef(), direction: directionOf(), rate: problems.parse(at('rate'), 0, () => parseProbability(raw.rate as string | number)) };
    case 'nicPauseStorm':
      return { kind, node: nodeRef()?.name ?? '' };
    case 'slowReceiver':
      return { kind, node: nodeRef()?.name ?? '', drainBps: problems.parse(at('drainRate'), 0, () => parseRate(raw.drainRate as string | number)) };
    case 'macFlush':
    case 'arpExpire': {
      const sw = nodeRef();
      return { kind, node: sw?.name ?? '', host: hostOf(sw) };
    }
    case 'pfcMisconfig': {
      const node = nodeRef();
      const xoffBytes = optionalBytes('xoff');
      const xonBytes = optionalBytes('xon');
      const enabled = flag('enabled');
      if ((xoffBytes === null) !== (xonBytes === null)) problems.add('value', at(xoffBytes === null ? 'xoff' : 'xon'), 'xoff and xon together (fixed pause and resume points)', 'only one of them');
      if (xoffBytes !== null && xonBytes !== null && !(xonBytes < xoffBytes)) problems.add('value', at('xon'), `an xon below xoff (${xoffBytes} B)`, `${xonBytes} B`);
      if (enabled === null && xoffBytes === null) problems.add('value', at('enabled'), 'enabled (true or false), or xoff and xon', 'neither');
      if (node?.role === 'host' && xoffBytes !== null) problems.add('value', at('xoff'), "no xoff/xon on a host (a NIC's PFC is on or off)", `${xoffBytes} B`);
      return { kind, node: node?.name ?? '', port: portOf(node), priority: num('priority') ?? 0, enabled, xoffBytes, xonBytes };
    }
    case 'ecnMisconfig': {
      const node = nodeRef();
      const change = { enabled: flag('enabled'), kminBytes: optionalBytes('kmin'), kmaxBytes: optionalBytes('kmax'), pmax: raw.pmax === undefined ? null : problems.parse(at('pmax'), 0, () => parseProbability(raw.pmax as string | number)) };
      if (Object.values(change).every((v) => v === null)) problems.add('value', at('enabled'), 'enabled, kmin, kmax or pmax', 'none of them');
      if (change.kminBytes !== null && change.kmaxBytes !== null && change.kminBytes > change.kmaxBytes) problems.add('value', at('kmax'), `a kmax ≥ kmin (${change.kminBytes} B)`, `${change.kmaxBytes} B`);
      return { kind, node: node?.name ?? '', port: portOf(node), priority: num('priority'), ...change };
    }
    case 'watchdog':
      return { kind, node: nodeRef()?.name ?? '', enabled: flag('enabled') ?? true, action: (str('action') as WatchdogActionChoice | null) ?? null };
    case 'kill':
    case 'restart': {
      const node = nodeRef();
      const credit = node === null ? undefined : [...(ctx.creditEndpoints ?? [])].find((e) => e.startsWith(`${node.name}:`));
      if (credit !== undefined) problems.add('value', at('node'), `a node without credit links: ${CREDIT_RETRAIN}`, `${JSON.stringify(node!.name)} (${credit} is in credit flow control)`);
      return { kind, node: node?.name ?? '' };
    }
    case 'egressStuck':
    case 'egressSlow':
    case 'switchPauseStorm':
      return switchPort(kind, raw, at, ctx, problems, nodeRef(), portOf);
    case 'linkRate': {
      const link = pfcLink(linkRef());
      const direction = directionOf();
      const rateBps = problems.parse(at('rate'), 0, () => parseRate(raw.rate as string | number));
      const near = `${link.node}:${link.port}`;
      const far = ctx.peers?.get(near);
      const ends = direction === 'out' ? [near] : direction === 'in' ? [far] : [near, far];
      // The first direction it would not lower (once: both directions of a link usually share a rate).
      const over = ends.find((end) => end !== undefined && rateBps > 0 && !(rateBps < (ctx.linkRates?.get(end) ?? Infinity)));
      if (over !== undefined) problems.add('value', at('rate'), `a rate below the link's configured ${formatRate(ctx.linkRates!.get(over)!)} (${over} transmits at it; a link trains down, never up)`, describeValue(raw.rate));
      return { kind, link, direction, rateBps };
    }
    case 'mtuMismatch': {
      const node = nodeRef();
      return { kind, node: node?.name ?? '', port: portOf(node) ?? '', ipMtuBytes: num('mtu') ?? 0 };
    }
    case 'dscpMisconfig': {
      const node = nodeRef();
      const port = portOf(node);
      if (node?.role === 'host' && port !== null) problems.add('value', at('port'), 'no port on a host (a NIC marks what it sends on its one port)', describeValue(raw.port));
      return { kind, node: node?.name ?? '', port, dscp: num('dscp'), priority: num('priority') ?? 0 };
    }
    case 'ecmpMisconfig': {
      const node = nodeRef();
      const hash = (str('hash') as 'rocelab' | 'hpcc-ns3' | null) ?? null;
      const fields = Array.isArray(raw.fields) ? [...(raw.fields as Array<'srcIp' | 'dstIp' | 'srcPort'>)] : null;
      const seed = num('seed');
      if (seed === null && hash === null && fields === null) problems.add('value', at('seed'), 'seed, hash or fields (what the misconfiguration changes)', 'none of them');
      return { kind, node: node?.name ?? '', seed, hash, fields };
    }
    case 'packetEvent': {
      const flow = raw.flow as { from: string; to: string; workload?: number };
      for (const key of ['from', 'to'] as const) {
        const node = ctx.nodes.get(flow[key]);
        if (node?.role !== 'host') problems.add('reference', childPath(at('flow'), key), 'the name of a host', node === undefined ? describeValue(flow[key]) : `${JSON.stringify(flow[key])} (a ${node.role})`);
      }
      return { kind, from: flow.from, to: flow.to, workload: flow.workload ?? null, packets: [...(raw.packets as number[])], action: raw.action as PacketAction };
    }
  }
}

/**
 * The switch-port kinds (a stuck or slow egress, a switch-originated pause storm): the port must
 * be the switch's; a slow egress drains below its link's rate (at or above it nothing would
 * change), and a storm needs a PFC link (a credit link has no PAUSE frames).
 */
function switchPort(
  kind: 'egressStuck' | 'egressSlow' | 'switchPauseStorm',
  raw: RawFault,
  at: (key: string) => string,
  ctx: FaultContext,
  problems: Problems,
  sw: NodeSpec | null,
  portOf: (node: NodeSpec | null) => string | null,
): FaultParams {
  const port = portOf(sw) ?? '';
  const node = sw?.name ?? '';
  const priority = typeof raw.priority === 'number' ? raw.priority : null;
  const endpoint = `${node}:${port}`;
  if (kind === 'switchPauseStorm' && ctx.creditEndpoints?.has(endpoint) === true) {
    problems.add('value', at('port'), 'a port in PFC flow control: a credit link has no PAUSE frames to storm with', `${JSON.stringify(port)} (a credit link)`);
  }
  if (kind !== 'egressSlow') return { kind, node, port, priority };
  const rateBps = problems.parse(at('rate'), 0, () => parseRate(raw.rate as string | number));
  const lineBps = ctx.linkRates?.get(endpoint);
  if (lineBps !== undefined && rateBps >= lineBps) problems.add('value', at('rate'), `a rate below ${endpoint}'s link rate (${lineBps / 1e9} Gb/s): a slower drain`, describeValue(raw.rate));
  return { kind, node, port, priority, rateBps };
}
