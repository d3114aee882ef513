/**
 * How other packages add keys to the topology file without editing it (DESIGN §2: "each
 * mechanism package contributes its sub-schema"). A package exports its sub-schemas (and, for
 * a workload kind, two small hooks); the composition root passes them to `parseTopology`.
 *
 * Workload hooks receive the unit parsers as an argument (`UNITS`) instead of importing them:
 * `@rocelab/workload` cannot depend on this package, and the parsers must have one home. Likewise
 * the files a kind names (a `poisson` size CDF) are read here, through `WorkloadFiles` (cdf.ts).
 */
import { WORKLOAD_KINDS, flowHostRefs, flowSchema, isWorkloadKind, resolveFlow, resolveWorkload, type HostRef, type ResolvedWorkload, type UnitParsers, type WorkloadFiles } from '@rocelab/workload';
import type { FlowWorkload } from '@rocelab/workload';
import { cdfFilesFor } from './cdf.js';
import type { PodSpec } from './pod.js';
import type { JsonSchema } from './schema-atoms.js';
import { UNITS } from './units.js';

export interface WorkloadKind {
  /** Schema of one whole item, including `kind: {const: <kind>}` and `additionalProperties: false`. */
  schema: JsonSchema;
  /** The fields naming hosts, checked by the loader against the pod's nodes. */
  hostRefs(raw: Record<string, unknown>): HostRef[];
  /** Value checks and unit conversion; throws WorkloadError. The loader only checks it succeeds. */
  resolve(raw: Record<string, unknown>, index: number, units: UnitParsers, files: WorkloadFiles): unknown;
}

/** A bad value a contributed key's package found once the pod is resolved; the loader adds the path. */
export interface ExtensionProblem {
  /** The node whose settings are wrong (its own key or the defaults it inherits). */
  node: string;
  /** The contributed key (`switch`) and the field inside it (`ecn.kmax`). */
  key: string;
  field: string;
  expected: string;
  actual: unknown;
}

/** Cross-field and per-node checks of a contributed key, run on the resolved pod. */
export type PodCheck = (pod: PodSpec) => ExtensionProblem[];

export interface SchemaExtensions {
  /** Extra keys of `defaults` (e.g. `switch`, `nic`). */
  defaults?: Readonly<Record<string, JsonSchema>>;
  /** Extra keys of each `nodes[]` item (e.g. `switch`, `nic`). */
  node?: Readonly<Record<string, JsonSchema>>;
  /** Workload kinds by their `kind` value. */
  workloads?: Readonly<Record<string, WorkloadKind>>;
  /** Checks of the contributed keys that need the whole pod (ranges that depend on ports, rates…). */
  checks?: readonly PodCheck[];
}

export const FLOW_KIND: WorkloadKind = { schema: flowSchema, hostRefs: flowHostRefs, resolve: resolveFlow };

/** Every built-in workload kind by its `kind` value: flow, incast, permutation, shuffle, poisson, pingmesh (packages/workload). */
export const WORKLOAD_KIND_TABLE: Readonly<Record<string, WorkloadKind>> = { ...WORKLOAD_KINDS, flow: FLOW_KIND };

function mergeSection<T>(section: string, parts: Array<Readonly<Record<string, T>> | undefined>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part ?? {})) {
      if (key in out) throw new Error(`schema extension conflict: ${section}.${key} is contributed twice`);
      out[key] = value;
    }
  }
  return out;
}

/** Combines contributions; two packages claiming the same key is a programming error. */
export function mergeExtensions(...parts: SchemaExtensions[]): SchemaExtensions {
  return {
    defaults: mergeSection('defaults', parts.map((p) => p.defaults)),
    node: mergeSection('node', parts.map((p) => p.node)),
    workloads: mergeSection('workloads', parts.map((p) => p.workloads)),
    checks: parts.flatMap((p) => p.checks ?? []),
  };
}

/** The pod's `flow` workloads with units converted (the pod keeps workload items as written). */
export function flowWorkloads(pod: PodSpec): FlowWorkload[] {
  return pod.workloads.filter((w) => w.kind === 'flow').map((w) => resolveFlow(w.raw, w.index, UNITS));
}

/**
 * The pod's workloads of the built-in kinds, resolved (units converted, CDF files read relative
 * to `pod.file`), in file order — what `hostTraffic` (packages/workload) takes. Items of kinds
 * other packages contribute are left out.
 */
export function resolvedWorkloads(pod: PodSpec): ResolvedWorkload[] {
  const files = cdfFilesFor(pod.file);
  return pod.workloads.flatMap((w) => (isWorkloadKind(w.kind) ? [resolveWorkload(w.kind, w.raw, w.index, UNITS, files)] : []));
}
