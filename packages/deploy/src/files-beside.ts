/**
 * The files a topology names besides itself: app modules, native programs and size CDFs.
 * Deployments that carry the topology file alone (a Kubernetes ConfigMap, a Docker config)
 * cannot carry these, and the containers load the topology again: they refuse such a pod up
 * front. A program is refused even by a name on PATH: it is code, and those images carry
 * neither the rocelab0 device's libraries nor the programs (issue 25).
 */
import type { PodSpec } from '@rocelab/topology';

export function filesBeside(pod: PodSpec): string[] {
  return [...pod.apps.map((a) => `app ${a.module} (${a.node})`), ...pod.programs.map((p) => `program ${p.argv[0]} (${p.node})`), ...cdfSources(pod.workloads).map((s) => `CDF file ${s}`)];
}

/** `… got app a.mjs (h1), CDF file x.txt and 2 more`: the first three. */
export function describeFiles(refs: readonly string[]): string {
  return `${refs.slice(0, 3).join(', ')}${refs.length > 3 ? ` and ${refs.length - 3} more` : ''}`;
}

function cdfSources(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(cdfSources);
  if (typeof value !== 'object' || value === null) return [];
  const v = value as Record<string, unknown>;
  if (v.kind === 'cdf' && typeof v.source === 'string') return [v.source];
  return Object.values(v).flatMap(cdfSources);
}
