/**
 * A schema-valid file → a `PodSpec`: every check that needs more than one value at a time
 * (names, wiring, references, unit strings), then numbering and defaults. All problems are
 * collected before failing, so the error lists every one of them.
 */
import { resolveApps } from './apps.js';
import { resolvePrograms } from './programs.js';
import { describeValue, Problems, TopologyError } from './errors.js';
import type { SchemaExtensions } from './extensions.js';
import { resolveLinks } from './links.js';
import { resolveNodes } from './nodes.js';
import type { PodSpec } from './pod.js';
import { attachPorts, checkHosts } from './ports.js';
import { resolveFaults, resolveWorkloads } from './references.js';
import { DEFAULT_SEED, type RawTopology } from './schema.js';

export function resolvePod(raw: RawTopology, file: string, ext: SchemaExtensions): PodSpec {
  const problems = new Problems();
  const table = resolveNodes(raw.nodes, raw.defaults?.pipelineLatency, problems);
  const links = resolveLinks(raw, table, problems);
  checkHosts(table, raw.links ?? [], problems);
  const workloads = resolveWorkloads(raw, file, table, ext, problems);
  const faults = resolveFaults(raw, links, table, problems);
  if (problems.list.length > 0) throw new TopologyError(file, problems.list);
  const apps = resolveApps(raw, file, table, problems);
  const programs = resolvePrograms(raw, file, table, problems);
  if (problems.list.length > 0) throw new TopologyError(file, problems.list);
  attachPorts(table, links);
  const pod: PodSpec = {
    name: raw.name,
    file,
    seed: raw.seed ?? DEFAULT_SEED,
    profile: raw.profile ?? 'vendor',
    timing: raw.timing ?? 'default',
    nodes: table.nodes,
    links,
    workloads,
    faults,
    defaults: extensionDefaults(raw),
    apps,
    programs,
  };
  runChecks(pod, raw, table.declaredAt, ext, problems);
  if (problems.list.length > 0) throw new TopologyError(file, problems.list);
  return pod;
}

/**
 * Contributed keys' checks on the resolved pod. A problem points at the node's own key when it
 * sets the field, else at `defaults` when that sets it, else at the node (a profile value that
 * does not fit this switch, e.g. a buffer too small for its ports' headrooms).
 */
function runChecks(pod: PodSpec, raw: RawTopology, declaredAt: ReadonlyMap<string, number>, ext: SchemaExtensions, problems: Problems): void {
  const seen = new Set<string>();
  for (const check of ext.checks ?? []) {
    for (const p of check(pod)) {
      const at = declaredAt.get(p.node)!;
      const top = p.field.split(/[.[]/)[0]!; // `pools[1].size` is set where `pools` is
      const own = raw.nodes[at]?.[p.key] as Record<string, unknown> | undefined;
      const defaults = raw.defaults?.[p.key] as Record<string, unknown> | undefined;
      const path =
        own !== undefined && top in own
          ? `nodes[${at}].${p.key}.${p.field}`
          : defaults !== undefined && top in defaults
            ? `defaults.${p.key}.${p.field}`
            : `nodes[${at}] (${p.node}, ${p.key}.${p.field} from the ${pod.profile} profile)`;
      const key = `${path}|${p.expected}`;
      if (seen.has(key)) continue; // a defaults problem shared by every switch is reported once
      seen.add(key);
      problems.add('value', path, p.expected, describeValue(p.actual));
    }
  }
}

/** `defaults` without the core keys: what extension packages contributed. */
function extensionDefaults(raw: RawTopology): Record<string, unknown> {
  const { link: _link, pipelineLatency: _pipeline, ...rest } = raw.defaults ?? {};
  return rest;
}
