/**
 * The `flow` workload's part of the topology file: the JSON Schema of one `workloads[]` item
 * (contributed to the topology schema, DESIGN §2 "each mechanism package contributes its
 * sub-schema") and its resolution into a `FlowWorkload` with base units.
 *
 * Unit parsers are injected (`UnitParsers`) rather than imported: `@rocelab/topology` depends
 * on this package, so this package cannot import topology's parsers, and a second copy here
 * could drift from them (one file accepting `1.5us` and another not).
 */
import { Fields, PHRASE, type HostRef, type UnitParsers } from './fields.js';
import { MAX_SEQ, checkWorkloadIndex } from './flow-id.js';
import type { FlowWorkload } from './flow-spec.js';
import { resolveTimeChoice, timeChoiceSchema, type RawTimeChoice } from './time-choice.js';
import type { Opcode } from './traffic.js';
import { CLASS_PROPERTIES, checkOpcodeTransport, resolveClass } from './transport.js';

export { DEFAULT_FLOW_DSCP } from './transport.js';


export const OPCODE_SCHEMA = { enum: ['write', 'send', 'read'], description: 'an RDMA operation: write, send or read (the bytes come back from the other host)' } as const;

const UDP_PORTS = 'UDP ports {src: 1..65535, dst: 1..65535} of the data (ACKs swap them), e.g. {src: 10000, dst: 100} as HPCC ns-3 numbers them';

/** One `{kind: flow, ...}` item; `additionalProperties: false` so a typo names the unknown key. */
export const flowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'from', 'to', 'sizeBytes', 'start'],
  properties: {
    kind: { const: 'flow' },
    from: { type: 'string', description: 'the name of the sending host' },
    to: { type: 'string', description: 'the name of the receiving host' },
    sizeBytes: { type: ['integer', 'string'], description: PHRASE.bytes },
    start: timeChoiceSchema('a start time'),
    rate: { type: ['integer', 'string'], description: 'a rate like 40G, 100M or 2.5G' },
    ...CLASS_PROPERTIES,
    messageBytes: { type: ['integer', 'string'], description: `the size of each message: ${PHRASE.bytes}, at least 1` },
    opcode: OPCODE_SCHEMA,
    udpPorts: {
      type: 'object',
      additionalProperties: false,
      required: ['src', 'dst'],
      description: UDP_PORTS,
      properties: { src: { type: 'integer', description: UDP_PORTS }, dst: { type: 'integer', description: UDP_PORTS } },
    },
  },
} as const;

/** The shape `flowSchema` guarantees. */
interface RawFlow {
  kind: 'flow';
  from: string;
  to: string;
  sizeBytes: string | number;
  start: RawTimeChoice;
  rate?: string | number;
  dscp?: number;
  messageBytes?: string | number;
  opcode?: Opcode;
  udpPorts?: { src: number; dst: number };
}

/** The host names a flow refers to, for the loader's reference check. */
export function flowHostRefs(raw: Record<string, unknown>): HostRef[] {
  const flow = raw as unknown as RawFlow;
  return [
    { field: 'from', name: flow.from },
    { field: 'to', name: flow.to },
  ];
}

/** The number of messages a flow posts: its size in `messageBytes` pieces, at least one (a 0-byte flow is one empty message). */
export function flowMessageCount(flow: Pick<FlowWorkload, 'sizeBytes' | 'messageBytes'>): number {
  return flow.messageBytes === undefined ? 1 : Math.max(1, Math.ceil(flow.sizeBytes / flow.messageBytes));
}

/**
 * A schema-valid `flow` item → `FlowWorkload` (units converted, defaults applied; `messageBytes`
 * and `opcode` only when given). Throws a WorkloadError listing every bad field.
 */
export function resolveFlow(raw: Record<string, unknown>, index: number, units: UnitParsers): FlowWorkload {
  const flow = raw as unknown as RawFlow;
  const fields = new Fields();
  checkWorkloadIndex(index, fields);
  if (flow.from === flow.to) fields.add('to', `a host other than the sender (${flow.from})`, flow.to);
  const rate = flow.rate;
  const resolved: FlowWorkload = {
    index,
    from: flow.from,
    to: flow.to,
    sizeBytes: fields.parse('sizeBytes', flow.sizeBytes, () => units.bytes(flow.sizeBytes)),
    start: resolveTimeChoice(flow.start, 'start', units, fields),
    rateBps: rate === undefined ? null : fields.parse('rate', rate, () => units.rate(rate)),
    ...resolveClass(raw),
  };
  checkOpcodeTransport(flow.opcode, resolved, fields);
  const message = flow.messageBytes;
  if (message !== undefined) {
    const before = fields.problems.length;
    const messageBytes = fields.parse('messageBytes', message, () => units.bytes(message));
    const parsed = fields.problems.length === before;
    if (parsed && messageBytes === 0) fields.add('messageBytes', flowSchema.properties.messageBytes.description, message);
    else if (parsed && flowMessageCount({ sizeBytes: resolved.sizeBytes, messageBytes }) > MAX_SEQ) {
      fields.add('messageBytes', `a message size that splits sizeBytes into at most ${MAX_SEQ} messages`, message);
    }
    resolved.messageBytes = messageBytes;
  }
  if (flow.opcode !== undefined) resolved.opcode = flow.opcode;
  const ports = flow.udpPorts;
  if (ports !== undefined) {
    const port = (v: number) => Number.isInteger(v) && v >= 1 && v <= 0xffff;
    if (!port(ports.src)) fields.add('udpPorts.src', UDP_PORTS, ports.src);
    if (!port(ports.dst)) fields.add('udpPorts.dst', UDP_PORTS, ports.dst);
    if (resolved.transport !== 'rdma') fields.add('udpPorts', `no udpPorts on a ${resolved.transport} connection (its ports are the TCP stack's)`, ports);
    resolved.udpPorts = { src: ports.src, dst: ports.dst };
  }
  return fields.done(resolved);
}
