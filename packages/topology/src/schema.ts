/**
 * The JSON Schema (draft-07) of the topology file (DESIGN §8), assembled from the built-in keys
 * and the contributions of other packages (`SchemaExtensions`).
 *
 * The schema checks shape: types, known keys (`additionalProperties: false` everywhere so a
 * typo is named), enums and integer ranges. Unit strings are only typed here; their form is
 * checked by units.ts, the single definition of what `1.5us` or `40G` means. Each fragment's
 * `description` is the phrase error messages use after "expected".
 */
import { PROFILES, TIMINGS } from '@rocelab/sim';
import type { SchemaExtensions } from './extensions.js';
import { faultItemSchema } from './fault-kinds.js';
import { duration, endpoint, mtu, nodeName, object, probability, rate, type JsonSchema } from './schema-atoms.js';

export { NODE_NAME_PATTERN } from './schema-atoms.js';
export type { RawFault } from './pod.js';
import type { Profile, RawFault, Role, Timing } from './pod.js';
import { EXPECT } from './units.js';

export const ROLES = ['host', 'tor', 'leaf', 'spine', 'switch'] as const satisfies readonly Role[];
export { PROFILES, TIMINGS };

/** Link defaults when the file gives none (DESIGN §5, §8): 40 Gb/s, 1 µs, 1024 B payload. */
export const LINK_DEFAULTS = { rate: '40G', latency: '1us', mtu: 1024 } as const;
export const DEFAULT_SEED = 1;

/** The shape a schema-valid file has (extension keys stay `unknown` until their package reads them). */
export interface RawImpair {
  down?: boolean;
  loss?: string | number;
  dropIpIdLowByte?: number;
  corrupt?: string | number;
}
export type RawFlowControl = 'pfc' | 'credit';
export interface RawLinkParams {
  rate?: string | number;
  latency?: string;
  mtu?: number;
  /** Link-level flow control (issue 14): PFC (the default) or InfiniBand-style credits; per end as `{a, b}` on a link. */
  flowControl?: RawFlowControl | { a?: RawFlowControl; b?: RawFlowControl };
  /** Credit mode: each lane's receive buffer (default: the credit loop's bandwidth-delay product). */
  creditBuffer?: string | number;
}
export interface RawNode {
  name: string;
  role: Role;
  ip?: string;
  subnet?: string;
  pipelineLatency?: string;
  app?: RawApp;
  programs?: RawProgram[];
  [extension: string]: unknown;
}
/** A native program a host runs (issue 25): its argv (`{h2}` expands to h2's address), environment, directory and wall-clock limit. */
export interface RawProgram {
  run: string[];
  env?: Record<string, string>;
  cwd?: string;
  timeout?: string;
}
/** A host's application (issue 13): a module path relative to the topology file, and its args. */
export interface RawApp {
  module: string;
  args?: Record<string, unknown>;
  dscp?: number;
  /** QuickJS heap the app may use (its regions come on top): bytes or a size string. */
  memory?: string | number;
  /** Interpreter steps the app may run between two waits. */
  steps?: number;
}
export interface RawLink extends RawLinkParams {
  a: string;
  b: string;
  impairments?: { a_to_b?: RawImpair; b_to_a?: RawImpair };
}
/** `defaults.pipelineLatency`: per kind of node, hosts (their NICs) and switches (every other role). */
export interface RawPipelineDefaults {
  host?: string;
  switch?: string;
}
export interface RawTopology {
  name: string;
  seed?: number;
  profile?: Profile;
  timing?: Timing;
  defaults?: { link?: RawLinkParams & { impairments?: RawImpair }; pipelineLatency?: RawPipelineDefaults; [extension: string]: unknown };
  nodes: RawNode[];
  links?: RawLink[];
  workloads?: Array<Record<string, unknown> & { kind: string }>;
  faults?: RawFault[];
}

const impair = object('impairments {down, loss, dropIpIdLowByte, corrupt}', {
  down: { type: 'boolean', description: 'true or false' },
  loss: probability,
  dropIpIdLowByte: { type: 'integer', minimum: 0, maximum: 255, description: 'an IP ID low byte, an integer 0..255' },
  corrupt: probability,
});
const flowControlMode = { enum: ['pfc', 'credit'], description: 'pfc or credit' };
const creditBuffer = { type: ['integer', 'string'], description: 'a lane buffer size in bytes: an integer or a string like 16KiB' };
const linkParams = { rate, latency: duration, mtu, creditBuffer };
const linkFlowControl = {
  description: 'pfc or credit, or per end {a: pfc|credit, b: pfc|credit}',
  anyOf: [flowControlMode, object('flow control per end {a?, b?}', { a: flowControlMode, b: flowControlMode })],
};

function extensionKeys(section: string, builtin: Record<string, JsonSchema>, extra: Readonly<Record<string, JsonSchema>> | undefined): Record<string, JsonSchema> {
  for (const key of Object.keys(extra ?? {})) {
    if (key in builtin) throw new Error(`schema extension ${section}.${key} redefines a built-in key`);
  }
  return { ...builtin, ...extra };
}

function workloadItem(ext: SchemaExtensions): JsonSchema {
  const kinds = Object.keys(ext.workloads ?? {}).sort();
  const kind = kinds.length > 0 ? { enum: kinds, description: 'a workload kind' } : { not: {}, description: 'a workload kind (none are registered)' };
  return {
    type: 'object',
    description: 'a workload {kind: ..., ...}',
    required: ['kind'],
    properties: { kind },
    // Dispatch on `kind`: only the matching kind's schema applies, so its errors are the ones reported.
    allOf: kinds.map((k) => ({
      if: { type: 'object', required: ['kind'], properties: { kind: { const: k } } },
      then: ext.workloads![k]!.schema,
    })),
  };
}

/** The whole file's schema with the given contributions merged in. */
export function createTopologySchema(ext: SchemaExtensions = {}): JsonSchema {
  const defaults = object(
    'defaults {link, ...}',
    extensionKeys(
      'defaults',
      {
        link: object('link defaults {rate, latency, mtu, flowControl, creditBuffer, impairments}', { ...linkParams, flowControl: flowControlMode, impairments: impair }),
        pipelineLatency: object('pipeline latency defaults {host?, switch?}', { host: duration, switch: duration }),
      },
      ext.defaults,
    ),
  );
  const node = object(
    'a node {name, role, ip?, subnet?, pipelineLatency?, app?, programs?}',
    extensionKeys(
      'node',
      {
        name: nodeName,
        role: { enum: [...ROLES], description: 'a node role' },
        ip: { type: 'string', description: EXPECT.ipv4 },
        subnet: { type: 'string', description: EXPECT.subnet },
        pipelineLatency: duration,
        app: object(
          'an application {module, args?, dscp?, memory?, steps?}',
          {
            module: { type: 'string', minLength: 1, description: 'the path of an app module (.mjs, .js or .ts), relative to the topology file' },
            args: { type: 'object', description: 'the app\'s arguments, an object' },
            dscp: { type: 'integer', minimum: 0, maximum: 63, description: 'a DSCP value, an integer 0..63' },
            memory: { type: ['integer', 'string'], description: 'the memory an app may allocate besides its regions: an integer or a string like 64MiB' },
            steps: { type: 'integer', minimum: 100000, maximum: 2147483647, description: 'steps of its interpreter an app may run between two waits, an integer 100000..2147483647' },
          },
          ['module'],
        ),
        programs: {
          type: 'array',
          description: 'a list of native programs, each {run, env?, cwd?, timeout?}',
          items: object(
            'a program {run, env?, cwd?, timeout?}',
            {
              run: {
                type: 'array',
                minItems: 1,
                items: { type: 'string', description: 'an argument, a string ({h2} is the address of host h2, {h2.name} its name)' },
                description: 'a command line [program, args...]: the program a name on PATH or a path relative to the topology file, each argument a string',
              },
              env: { type: 'object', additionalProperties: { type: 'string', description: 'a string' }, description: 'environment variables {NAME: value}, each value a string' },
              cwd: { type: 'string', minLength: 1, description: 'a directory relative to the topology file' },
              timeout: { type: 'string', description: 'a wall-clock duration like 60s or 500ms: the longest the program may run between two waits' },
            },
            ['run'],
          ),
        },
      },
      ext.node,
    ),
    ['name', 'role'],
  );
  const link = object(
    'a link {a, b, rate?, latency?, mtu?, flowControl?, creditBuffer?, impairments?}',
    { a: endpoint, b: endpoint, ...linkParams, flowControl: linkFlowControl, impairments: object('impairments {a_to_b?, b_to_a?}', { a_to_b: impair, b_to_a: impair }) },
    ['a', 'b'],
  );
  const fault = faultItemSchema();
  const list = (description: string, items: JsonSchema, minItems = 0): JsonSchema => ({ type: 'array', description, items, ...(minItems ? { minItems } : {}) });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'rocelab topology',
    ...object(
      'a topology: a mapping with name, nodes and links',
      {
        name: { type: 'string', minLength: 1, description: 'a pod name (a non-empty string)' },
        seed: { type: 'integer', minimum: 0, maximum: 0xffffffff, default: DEFAULT_SEED, description: 'a seed, an integer 0..4294967295' },
        profile: { enum: [...PROFILES], default: 'vendor', description: 'a profile' },
        timing: { enum: [...TIMINGS], default: 'default', description: 'a timing' },
        defaults,
        nodes: list('a list of nodes (at least one)', node, 1),
        links: list('a list of links', link),
        workloads: list('a list of workloads', workloadItem(ext)),
        faults: list('a list of faults', fault),
      },
      ['name', 'nodes'],
    ),
  };
}
