/**
 * A schema-valid file → a `PodSpec`: every check that needs more than one value at a time
 * (names, wiring, references, unit strings), then numbering and defaults. All problems are
 * collected before failing, so the error lists every one of them.
 */
import { Problems, TopologyError } from './errors.js';
import type { SchemaExtensions } from './extensions.js';
import { resolveLinks } from './links.js';
import { resolveNodes } from './nodes.js';
import type { PodSpec } from './pod.js';
import { attachPorts, checkHosts } from './ports.js';
import { resolveFaults, resolveWorkloads } from './references.js';
import { DEFAULT_SEED, type RawTopology } from './schema.js';

export function resolvePod(raw: RawTopology, file: string, ext: SchemaExtensions): PodSpec {
  const problems = new Problems();
  const table = resolveNodes(raw.nodes, problems);
  const links = resolveLinks(raw, table, problems);
  checkHosts(table, raw.links ?? [], problems);
  const workloads = resolveWorkloads(raw, table, ext, problems);
  const faults = resolveFaults(raw, links, problems);
  if (problems.list.length > 0) throw new TopologyError(file, problems.list);
  attachPorts(table, links);
  return {
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
  };
}

/** `defaults` without the core `link` key: what extension packages contributed. */
function extensionDefaults(raw: RawTopology): Record<string, unknown> {
  const { link: _link, ...rest } = raw.defaults ?? {};
  return rest;
}
