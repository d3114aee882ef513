/**
 * The resolved workloads (units converted), one variant per kind, and the kind table the
 * topology package registers: each kind's schema, host references and resolver.
 */
import type { HostRef, UnitParsers, WorkloadFiles } from './fields.js';
import { flowHostRefs, flowSchema, resolveFlow } from './flow-schema.js';
import type { FlowWorkload } from './flow-spec.js';
import { hostsFieldRefs } from './host-set.js';
import { incastHostRefs, incastSchema, resolveIncast, type IncastWorkload } from './incast-schema.js';
import { permutationSchema, resolvePermutation, type PermutationWorkload } from './permutation-schema.js';
import { pingmeshSchema, resolvePingmesh, type PingmeshWorkload } from './pingmesh-schema.js';
import { poissonSchema, resolvePoisson, type PoissonWorkload } from './poisson-schema.js';
import { resolveShuffle, shuffleSchema, type ShuffleWorkload } from './shuffle-schema.js';

/** A `flow` item with its kind (`FlowWorkload` itself has none, for the code that predates the other kinds). */
export interface ResolvedFlow extends FlowWorkload {
  kind: 'flow';
}

export type ResolvedWorkload = ResolvedFlow | IncastWorkload | PermutationWorkload | ShuffleWorkload | PoissonWorkload | PingmeshWorkload;
export type WorkloadKindName = ResolvedWorkload['kind'];

/** A kind as the topology file sees it (topology's `WorkloadKind` has this shape). */
export interface WorkloadKindHooks {
  schema: Readonly<Record<string, unknown>>;
  hostRefs(raw: Record<string, unknown>): HostRef[];
  resolve(raw: Record<string, unknown>, index: number, units: UnitParsers, files: WorkloadFiles): ResolvedWorkload | FlowWorkload;
}

/** Every built-in kind. `flow` resolves to a `FlowWorkload` (no `kind`); `resolveWorkload` adds it. */
export const WORKLOAD_KINDS: Readonly<Record<WorkloadKindName, WorkloadKindHooks>> = {
  flow: { schema: flowSchema, hostRefs: flowHostRefs, resolve: resolveFlow },
  incast: { schema: incastSchema, hostRefs: incastHostRefs, resolve: resolveIncast },
  permutation: { schema: permutationSchema, hostRefs: hostsFieldRefs, resolve: resolvePermutation },
  shuffle: { schema: shuffleSchema, hostRefs: hostsFieldRefs, resolve: resolveShuffle },
  poisson: { schema: poissonSchema, hostRefs: hostsFieldRefs, resolve: resolvePoisson },
  pingmesh: { schema: pingmeshSchema, hostRefs: hostsFieldRefs, resolve: resolvePingmesh },
};

export function isWorkloadKind(kind: string): kind is WorkloadKindName {
  return Object.hasOwn(WORKLOAD_KINDS, kind);
}

/** A schema-valid item of a built-in kind → its resolved form. Throws WorkloadError. */
export function resolveWorkload(kind: WorkloadKindName, raw: Record<string, unknown>, index: number, units: UnitParsers, files: WorkloadFiles): ResolvedWorkload {
  if (kind === 'flow') return { kind: 'flow', ...resolveFlow(raw, index, units) };
  return WORKLOAD_KINDS[kind].resolve(raw, index, units, files) as ResolvedWorkload;
}
