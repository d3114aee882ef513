/**
 * The drill file's JSON Schema: what to run (a topology, inline or by path, a seed, a duration,
 * extra workloads and faults), named variants that override it, and the expectations. Each
 * expectation kind has its own keys (dispatch on `kind`), so a wrong key says which ones fit.
 */
import { DROP_REASONS } from '@rocelab/sim';
import { faultItemSchema, type JsonSchema } from '@rocelab/topology';

const duration = { type: 'string', description: 'a duration like 1us, 2.5ms' };
const window = { type: 'string', pattern: '^[0-9.]+(ps|ns|us|ms|s)-[0-9.]+(ps|ns|us|ms|s)$', description: 'a window A-B of virtual time, e.g. 4ms-8ms' };
const rate = { type: ['integer', 'string'], description: 'a rate like 40G or 500M' };
const name = { type: 'string', pattern: '^[a-z][a-z0-9-]*$', description: "a name: lowercase letters, digits and '-'" };
const hosts = { anyOf: [name, { type: 'array', minItems: 1, items: name }], description: 'a host name or a list of them' };
const flows = object('a flow selector {from?, to?}: hosts sending, hosts receiving', { from: hosts, to: hosts });
const size = { type: ['integer', 'string'], description: 'a message size: bytes, or a string like 200KB' };
/** FCT expectations select messages, by their hosts and (issue 26: "short flows") by their size. */
const messages = object('a message selector {from?, to?, minBytes?, maxBytes?}: hosts sending, hosts receiving, sizes from minBytes up to maxBytes (inclusive)', { from: hosts, to: hosts, minBytes: size, maxBytes: size });
const nodes = {
  anyOf: [name, { type: 'array', minItems: 1, items: name }, object('a role {role}', { role: { enum: ['host', 'tor', 'leaf', 'spine', 'switch'], description: 'a node role' } }, ['role'])],
  description: 'a node, a list of nodes, or {role: tor|leaf|spine|host|switch}',
};
const faultIndex = { type: 'integer', minimum: 0, description: "a fault's number in the variant's fault table (the report's #); default its first fault" };
const count = { type: 'integer', minimum: 0, description: 'a count' };
const from = { type: 'string', pattern: '^[a-z][a-z0-9-]*(:[A-Za-z0-9][A-Za-z0-9_./-]*)?$', description: 'a node or an endpoint node:port' };

function object(description: string, properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', description, additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

/** Each expectation kind: its own keys, and which are required. */
export const EXPECTATION_KINDS = {
  noLosslessDrops: { keys: {}, required: [], summary: 'no frame of a lossless priority was dropped by a switch or a NIC, for any reason (losslessDrops with every reason, max 0)' },
  losslessDrops: {
    keys: {
      reasons: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...DROP_REASONS], description: 'a drop reason' }, description: `drop reasons (${DROP_REASONS.join(', ')}); default all` },
      nodes: { anyOf: [name, { type: 'array', minItems: 1, items: name }], description: 'a node or a list of nodes; default all' },
      min: count,
      max: count,
    },
    required: [],
    summary: 'the frames of a lossless priority that switches and NICs dropped, for the given reasons (default all), are at least `min` / at most `max`',
  },
  timeToDetect: {
    keys: { fault: faultIndex, node: name, max: duration },
    required: ['max'],
    summary: "from the fault's start to the first watchdog detection after it (a switch's PFC watchdog, a NIC's stall prevention; of `node` if given) is at most `max`",
  },
  timeToRecover: {
    keys: {
      fault: faultIndex,
      flows,
      fraction: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: 'a fraction in (0, 1]; default 0.9' },
      baseline: window,
      since: { enum: ['end', 'containment', 'either'], description: "end, containment or either (the earlier; default)" },
      max: duration,
    },
    required: ['flows', 'max'],
    summary: "from the fault's end or its containment (the first watchdog detection after it) to the first rates.csv interval in which the selected flows' goodput is back above `fraction` of their pre-fault rate (over `baseline`, default the 1 ms before the fault)",
  },
  appResult: {
    keys: {
      node: name,
      key: { type: 'string', minLength: 1, description: 'a key the app reported with rdma.report' },
      value: { type: ['number', 'string', 'boolean'], description: 'the value it must equal' },
      min: { type: 'number', description: 'a number' },
      max: { type: 'number', description: 'a number' },
      finished: { const: true, description: 'true: every app (of `node`) finished' },
    },
    required: [],
    summary: "a value the apps (of `node`, or every app that reported `key`) reported equals `value` or lies in [`min`, `max`]; or, with `finished: true`, every app finished",
  },
  programResult: {
    keys: {
      node: name,
      index: { type: 'integer', minimum: 0, description: "a program's place in its host's programs list, an integer from 0 (default 0)" },
      exitCode: { type: 'integer', minimum: 0, maximum: 255, description: 'the exit code it must exit with, an integer 0..255' },
      match: { type: 'string', minLength: 1, description: 'a regular expression with one capture group, matched against its stdout (^ and $ match at each line)' },
      op: { enum: ['<', '<=', '==', '>=', '>'], description: 'a comparison' },
      value: {
        anyOf: [
          { type: 'number', description: 'a number, or variant:NAME (the same figure in variant NAME)' },
          { type: 'string', pattern: '^variant:[a-z][a-z0-9-]*$', description: 'a number, or variant:NAME (the same figure in variant NAME)' },
        ],
        description: 'a number, or variant:NAME (the same figure in variant NAME)',
      },
    },
    required: ['node'],
    summary:
      "a host's native program (of `node`, its `index`-th) exits with `exitCode` (0 when nothing else is asked), and the number `match`'s group captures from its stdout (the first match) compares by `op` with `value`: a number, or `variant:NAME`, the same number in that variant",
  },
  watchdogDetected: {
    keys: { node: name, port: { type: 'string', description: 'a port of the node' }, priority: { type: 'integer', minimum: 0, maximum: 7, description: 'a priority 0..7' }, within: duration },
    required: ['node', 'within'],
    summary: "a switch's PFC watchdog declares a storm on node:port:priority (a host: its NIC's stall prevention fires) within the time after the port was first paused",
  },
  flowGoodput: {
    keys: { flows, during: window, min: rate, max: rate, each: { type: 'boolean', description: 'true: every flow on its own; false: their sum' } },
    required: ['flows', 'during'],
    summary: 'the goodput of the selected flows (bytes acknowledged over the window) is at least `min` / at most `max`',
  },
  goodputRatio: {
    keys: { variantA: name, variantB: name, flows, during: window, min: { type: 'number', minimum: 0, description: 'a ratio' }, max: { type: 'number', minimum: 0, description: 'a ratio' } },
    required: ['variantA', 'variantB', 'flows', 'during'],
    summary: "the selected flows' goodput in variantA over that in variantB",
  },
  fctSlowdown: {
    keys: { flows: messages, percentile: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'a percentile in (0, 100]' }, min: { type: 'number', minimum: 0, description: 'a slowdown' }, max: { type: 'number', minimum: 0, description: 'a slowdown' } },
    required: ['flows', 'percentile'],
    summary: "a percentile of the selected messages' FCT slowdown (FCT over the ideal FCT, fct.csv; one not completed counts as infinitely slow)",
  },
  fctSlowdownRatio: {
    keys: { variantA: name, variantB: name, flows: messages, percentile: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'a percentile in (0, 100]' }, min: { type: 'number', minimum: 0, description: 'a ratio' }, max: { type: 'number', minimum: 0, description: 'a ratio' } },
    required: ['variantA', 'variantB', 'flows', 'percentile'],
    summary: "a percentile of the selected messages' FCT slowdown in variantA over that in variantB",
  },
  pausePropagated: {
    keys: { from, to: nodes, within: duration, reach: { enum: ['any', 'all'], description: 'any or all of the nodes' } },
    required: ['from', 'to', 'within'],
    summary: 'a PAUSE reaches the `to` nodes within the time after `from` first paused its neighbour',
  },
  pauseContained: {
    keys: { from, to: nodes, during: window },
    required: ['to'],
    summary: 'no PAUSE reaches the `to` nodes (after `from` first paused, or within `during`)',
  },
  queueDepth: {
    keys: {
      queue: { type: 'string', pattern: '^[a-z][a-z0-9-]*:[A-Za-z0-9][A-Za-z0-9_./-]*(:[0-7])?$', description: 'a switch egress queue node:port or node:port:priority (default priority 3)' },
      percentile: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'a percentile in (0, 100]' },
      during: window,
      min: { type: ['integer', 'string'], description: 'a size like 100KB' },
      max: { type: ['integer', 'string'], description: 'a size like 100KB' },
    },
    required: ['queue', 'percentile', 'during'],
    summary: "a percentile of a switch egress queue's depth over the window (queue.csv)",
  },
  deadlock: {
    keys: { expected: { type: 'boolean', description: 'true or false' }, stall: duration },
    required: ['expected'],
    summary: 'a cycle of paused, non-empty queues with no transmit progress for `stall` forms (or not)',
  },
  probeLatency: {
    keys: { percentile: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'a percentile in (0, 100]' }, during: window, max: duration, min: duration, flows },
    required: ['percentile', 'during'],
    summary: 'the pingmesh round-trip percentile over the window (lost probes count as infinitely late), of the probes `flows` selects (default all)',
  },
  probeLatencyRatio: {
    keys: { percentile: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'a percentile in (0, 100]' }, during: window, baseline: window, min: { type: 'number', minimum: 0, description: 'a ratio' }, max: { type: 'number', minimum: 0, description: 'a ratio' } },
    required: ['percentile', 'during', 'baseline'],
    summary: 'the round-trip percentile over `during` divided by that over `baseline`',
  },
  metric: {
    keys: {
      name: { type: 'string', pattern: '^rocelab_[a-z_]+$', description: 'a rocelab metric name' },
      labels: { type: 'object', additionalProperties: { type: 'string' }, description: 'label values to match' },
      op: { enum: ['<', '<=', '==', '>=', '>'], description: 'a comparison' },
      value: { type: 'number', description: 'a number' },
    },
    required: ['name', 'op', 'value'],
    summary: "a metric's value at the end of the run (summed over the matching series) compared with a number",
  },
} as const satisfies Record<string, { keys: Record<string, JsonSchema>; required: readonly string[]; summary: string }>;

export type ExpectationKind = keyof typeof EXPECTATION_KINDS;
/** The kinds that compare two variants (`variantA`, `variantB`) instead of applying to one. */
export const ACROSS_VARIANTS: ReadonlySet<ExpectationKind> = new Set<ExpectationKind>(['goodputRatio', 'fctSlowdownRatio']);
export const EXPECTATION_KIND_NAMES = Object.keys(EXPECTATION_KINDS) as ExpectationKind[];

function expectationItem(): JsonSchema {
  return {
    type: 'object',
    description: 'an expectation {kind, variant?, …}',
    required: ['kind'],
    properties: { kind: { enum: EXPECTATION_KIND_NAMES, description: 'an expectation kind' } },
    allOf: EXPECTATION_KIND_NAMES.map((kind) => {
      const def = EXPECTATION_KINDS[kind];
      const common: Record<string, JsonSchema> = {
        kind: { const: kind },
        description: { type: 'string', description: 'a sentence' },
        why: { type: 'string', minLength: 1, description: 'where the bound comes from: the published figure it cites, or why rocelab differs from it' },
      };
      if (!ACROSS_VARIANTS.has(kind)) common.variant = name;
      return {
        if: { type: 'object', required: ['kind'], properties: { kind: { const: kind } } },
        then: object(`a ${kind} expectation {${Object.keys({ ...common, ...def.keys }).join(', ')}}`, { ...common, ...def.keys }, ['kind', ...def.required]),
      };
    }),
  };
}

const overrides = {
  type: 'object',
  description: 'keys of the topology to override: profile, timing, defaults, or nodes {name: {key: value}}',
  additionalProperties: false,
  properties: {
    profile: { type: 'string', description: 'a profile' },
    timing: { type: 'string', description: 'a timing' },
    defaults: { type: 'object', description: 'defaults to merge' },
    nodes: { type: 'object', description: 'per node name, keys to merge', additionalProperties: { type: 'object' } },
  },
};

export function drillSchema(): JsonSchema {
  const fault = faultItemSchema();
  const workload = { type: 'object', required: ['kind'], description: 'a workload {kind, …} (the topology file format)' };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'rocelab drill',
    ...object(
      'a drill: title, source?, topology, duration, expect',
      {
        title: { type: 'string', minLength: 1, description: 'a one-line title' },
        source: { type: 'string', minLength: 1, description: 'the published result it reproduces (optional)' },
        description: { type: 'string', description: 'what it shows' },
        topology: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }], description: 'a topology file (relative to the drill) or an inline topology' },
        seed: { type: 'integer', minimum: 0, maximum: 0xffffffff, description: 'a seed, an integer 0..4294967295' },
        duration,
        trace: object('trace grids {rates?, queue?}', { rates: duration, queue: duration }),
        plots: object('the plots {until?, slowdown?}', {
          until: { type: 'string', description: 'a virtual time like 1012ms: the per-variant plots end there, not at the end of the drill' },
          slowdown: { type: 'boolean', description: 'true: add FCT slowdown by message size (P50/P95/P99 per size group, per variant)' },
        }),
        set: overrides,
        workloads: { type: 'array', items: workload, description: 'a list of workloads' },
        faults: { type: 'array', items: fault, description: 'a list of faults' },
        variants: {
          type: 'array',
          minItems: 1,
          description: 'a list of variants',
          items: object('a variant {name, description?, set?, workloads?, faults?}', { name, description: { type: 'string', description: 'a sentence' }, set: overrides, workloads: { type: 'array', items: workload, description: 'a list of workloads' }, faults: { type: 'array', items: fault, description: 'a list of faults' } }, ['name']),
        },
        expect: { type: 'array', minItems: 1, items: expectationItem(), description: 'a list of expectations (at least one)' },
      },
      ['title', 'topology', 'duration', 'expect'],
    ),
  };
}
