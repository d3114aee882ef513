/**
 * Names that point elsewhere in the file: workloads name hosts, faults name link endpoints or nodes.
 * Workload items are checked through their kind's hooks (extensions.ts) and kept as written.
 */
import { WorkloadError } from '@rocelab/workload';
import { cdfFilesFor } from './cdf.js';
import { describeValue, type Problems } from './errors.js';
import type { SchemaExtensions } from './extensions.js';
import type { NodeTable } from './nodes.js';
import { describeDraws } from './fault-draws.js';
import { resolveFault } from './fault-kinds.js';
import { nodeLives, restartGaps } from './node-lives.js';
import type { FaultContext, FaultSpec, LinkSpec, NodeSpec, WorkloadSpec } from './pod.js';
import { DEFAULT_SEED, type RawTopology } from './schema.js';
import { UNITS } from './units.js';

/** `file` is the topology file: files a workload names (size CDFs) are relative to its directory. */
export function resolveWorkloads(raw: RawTopology, file: string, table: NodeTable, ext: SchemaExtensions, problems: Problems): WorkloadSpec[] {
  const files = cdfFilesFor(file);
  return (raw.workloads ?? []).map((item, index) => {
    const path = `workloads[${index}]`;
    const kind = ext.workloads![item.kind]!; // the schema admits registered kinds only
    for (const ref of kind.hostRefs(item)) {
      const node = table.byName.get(ref.name);
      if (node?.role === 'host') continue;
      const why = node ? `a ${node.role}` : 'no such node';
      problems.add('reference', `${path}.${ref.field}`, 'the name of a host', `${JSON.stringify(ref.name)} (${why})`);
    }
    try {
      kind.resolve(item, index, UNITS, files);
    } catch (err) {
      if (!(err instanceof WorkloadError)) throw err;
      for (const p of err.problems) problems.add('value', `${path}.${p.field}`, p.expected, describeValue(p.actual));
    }
    return { index, kind: item.kind, path, raw: item };
  });
}

/**
 * Faults in the order they apply: by time, then by position in the file. Random forms are drawn
 * from the file's seed (fault-draws.ts). Once each resolves, the rules across faults (a node's
 * kills and restarts, node-lives.ts) run over all of them, on the values drawn.
 */
export function resolveFaults(raw: RawTopology, links: readonly LinkSpec[], table: NodeTable, problems: Problems): FaultSpec[] {
  const ctx = faultContext(table.byName, links, raw.seed ?? DEFAULT_SEED);
  const before = problems.list.length;
  const faults = (raw.faults ?? []).flatMap((fault, index) => resolveFault(fault, index, `faults[${index}]`, ctx, problems) ?? []);
  if (problems.list.length === before) {
    for (const p of nodeLives(faults, [], ctx.restartGapPs).problems) {
      // The draws of that node's faults explain a clash the file does not show.
      const node = faults.find((f) => f.index === p.fault)?.target;
      const drawn = faults.filter((f) => f.target === node).map(describeDraws).filter((d) => d !== '');
      problems.add('value', `faults[${p.fault}].${p.key}`, p.expected, drawn.length === 0 ? p.actual : `${p.actual} (${drawn.join('; ')}; seed ${ctx.seed})`);
    }
  }
  return faults.sort((x, y) => x.atPs - y.atPs || x.index - y.index);
}

/**
 * What resolving a fault against this pod needs: its nodes by name, its link endpoints, and the
 * seed random forms draw from (null: none may be drawn — the fault API's live faults).
 */
export function faultContext(nodes: ReadonlyMap<string, NodeSpec>, links: readonly LinkSpec[], seed: number | null = null): FaultContext {
  const neighbours = new Map<string, Set<string>>();
  for (const l of links) {
    for (const [x, y] of [[l.a.node, l.b.node], [l.b.node, l.a.node]] as const) neighbours.set(x, (neighbours.get(x) ?? new Set()).add(y));
  }
  const creditEndpoints = new Set(links.filter((l) => l.aToB.credit !== undefined).flatMap((l) => [`${l.a.node}:${l.a.port}`, `${l.b.node}:${l.b.port}`]));
  const peers = new Map(links.flatMap((l) => [[`${l.a.node}:${l.a.port}`, `${l.b.node}:${l.b.port}`] as const, [`${l.b.node}:${l.b.port}`, `${l.a.node}:${l.a.port}`] as const]));
  const linkRates = new Map(links.flatMap((l) => [[`${l.a.node}:${l.a.port}`, l.aToB.rateBps] as const, [`${l.b.node}:${l.b.port}`, l.bToA.rateBps] as const]));
  return { nodes, endpoints: new Set(links.flatMap((l) => [`${l.a.node}:${l.a.port}`, `${l.b.node}:${l.b.port}`])), neighbours, restartGapPs: restartGaps(links), seed, creditEndpoints, linkRates, peers };
}
