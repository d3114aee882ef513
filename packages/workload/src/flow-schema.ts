/**
 * The `flow` workload's part of the topology file: the JSON Schema of one `workloads[]` item
 * (contributed to the topology schema, DESIGN §2 "each mechanism package contributes its
 * sub-schema") and its resolution into a `FlowWorkload` with base units.
 *
 * Unit parsers are injected (`UnitParsers`) rather than imported: `@rocelab/topology` depends
 * on this package, so this package cannot import topology's parsers, and a second copy here
 * could drift from them (one file accepting `1.5us` and another not).
 */
import type { UnitParsers } from '@rocelab/sim';
import type { FlowStart, FlowWorkload } from './flow-spec.js';

export type { UnitParsers };


/**
 * A bad value in one field of a workload item. `field` is relative to the item (`sizeBytes`,
 * `start.uniform[1]`); the topology loader prefixes the item's path (`workloads[2]`).
 */
export interface FieldProblem {
  field: string;
  expected: string;
  actual: unknown;
}

/** Every bad field of one workload item (all of them, so a user fixes the item in one pass). */
export class WorkloadError extends Error {
  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((p) => `${p.field}: expected ${p.expected}, got ${JSON.stringify(p.actual) ?? String(p.actual)}`).join('\n'));
    this.name = 'WorkloadError';
  }
}

/** A field of a workload item that names a host (checked by the topology loader against its nodes). */
export interface HostRef {
  field: string;
  name: string;
}

/** DSCP 26 → priority 3, the lossless RoCE class (DESIGN §9). */
export const DEFAULT_FLOW_DSCP = 26;

// Same phrases as topology's unit errors, so a schema failure and a parse failure read alike.
const DURATION = 'a duration like 1us, 500ns, 1.5us or 2ms';

/** One `{kind: flow, ...}` item; `additionalProperties: false` so a typo names the unknown key. */
export const flowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'from', 'to', 'sizeBytes', 'start'],
  properties: {
    kind: { const: 'flow' },
    from: { type: 'string', description: 'the name of the sending host' },
    to: { type: 'string', description: 'the name of the receiving host' },
    sizeBytes: {
      type: ['integer', 'string'],
      description: 'a size in bytes: a non-negative integer or a string like 4MB, 1.5KB or 1MiB',
    },
    start: {
      description: `a start time: ${DURATION}, or {uniform: [0us, 500us]}`,
      anyOf: [
        { type: 'string' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['uniform'],
          properties: {
            uniform: {
              type: 'array',
              description: 'a pair of durations [earliest, latest]',
              items: { type: 'string', description: DURATION },
              minItems: 2,
              maxItems: 2,
            },
          },
        },
      ],
    },
    rate: { type: ['integer', 'string'], description: 'a rate like 40G, 100M or 2.5G' },
    dscp: { type: 'integer', minimum: 0, maximum: 63, description: 'a DSCP value, an integer 0..63' },
  },
} as const;

/** The shape `flowSchema` guarantees. */
interface RawFlow {
  kind: 'flow';
  from: string;
  to: string;
  sizeBytes: string | number;
  start: string | { uniform: [string, string] };
  rate?: string | number;
  dscp?: number;
}

/** The host names a flow refers to, for the loader's reference check. */
export function flowHostRefs(raw: Record<string, unknown>): HostRef[] {
  const flow = raw as unknown as RawFlow;
  return [
    { field: 'from', name: flow.from },
    { field: 'to', name: flow.to },
  ];
}

/** Collects field problems while resolving, so every bad field is reported. */
class Fields {
  readonly problems: FieldProblem[] = [];

  /** Runs a parser; on failure records the problem under `field` and returns 0 to carry on. */
  parse(field: string, value: unknown, parse: () => number): number {
    try {
      return parse();
    } catch (err) {
      const expected = (err as { expected?: unknown }).expected;
      this.problems.push({ field, expected: typeof expected === 'string' ? expected : String(err), actual: value });
      return 0;
    }
  }
}

function resolveStart(start: RawFlow['start'], units: UnitParsers, fields: Fields): FlowStart {
  if (typeof start === 'string') return { kind: 'at', atPs: fields.parse('start', start, () => units.duration(start)) };
  const [lo, hi] = start.uniform;
  const before = fields.problems.length;
  const minPs = fields.parse('start.uniform[0]', lo, () => units.duration(lo));
  const maxPs = fields.parse('start.uniform[1]', hi, () => units.duration(hi));
  if (fields.problems.length === before && minPs > maxPs) fields.problems.push({ field: 'start.uniform', expected: 'an interval [earliest, latest] with earliest ≤ latest', actual: start.uniform });
  return { kind: 'uniform', minPs, maxPs };
}

/**
 * A schema-valid `flow` item → `FlowWorkload` (units converted, defaults applied).
 * Throws a WorkloadError listing every bad field.
 */
export function resolveFlow(raw: Record<string, unknown>, index: number, units: UnitParsers): FlowWorkload {
  const flow = raw as unknown as RawFlow;
  const fields = new Fields();
  if (flow.from === flow.to) fields.problems.push({ field: 'to', expected: `a host other than the sender (${flow.from})`, actual: flow.to });
  const rate = flow.rate;
  const resolved: FlowWorkload = {
    index,
    from: flow.from,
    to: flow.to,
    sizeBytes: fields.parse('sizeBytes', flow.sizeBytes, () => units.bytes(flow.sizeBytes)),
    start: resolveStart(flow.start, units, fields),
    rateBps: rate === undefined ? null : fields.parse('rate', rate, () => units.rate(rate)),
    dscp: flow.dscp ?? DEFAULT_FLOW_DSCP,
  };
  if (fields.problems.length > 0) throw new WorkloadError(fields.problems);
  return resolved;
}
