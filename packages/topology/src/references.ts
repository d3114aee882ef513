/**
 * Names that point elsewhere in the file: workloads name hosts, faults name link endpoints or nodes.
 * Workload items are checked through their kind's hooks (extensions.ts) and kept as written.
 */
import { WorkloadError } from '@rocelab/workload';
import { cdfFilesFor } from './cdf.js';
import { describeValue, type Problems } from './errors.js';
import type { SchemaExtensions } from './extensions.js';
import type { NodeTable } from './nodes.js';
import type { FaultSpec, LinkSpec, WorkloadSpec } from './pod.js';
import { LINK_FAULT_KINDS, type RawTopology } from './schema.js';
import { UNITS, parseDuration } from './units.js';

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

/** Faults in the order they apply: by time, then by position in the file. */
export function resolveFaults(raw: RawTopology, links: readonly LinkSpec[], table: NodeTable, problems: Problems): FaultSpec[] {
  const endpoints = new Set(links.flatMap((l) => [`${l.a.node}:${l.a.port}`, `${l.b.node}:${l.b.port}`]));
  const faults = (raw.faults ?? []).map((fault, index): FaultSpec => {
    const path = `faults[${index}]`;
    const atPs = problems.parse(`${path}.at`, 0, () => parseDuration(fault.at));
    if (LINK_FAULT_KINDS.includes(fault.kind)) {
      if (fault.link === undefined || !endpoints.has(fault.link)) problems.add('reference', `${path}.link`, `the endpoint node:port of a declared link (a ${fault.kind} fault acts on a link)`, describeValue(fault.link));
      return { index, atPs, kind: fault.kind, target: fault.link ?? '' };
    }
    // Node faults: a pause storm comes from a host's NIC; a MAC flush empties a switch's table.
    const role = table.byName.get(fault.node ?? '')?.role;
    const wanted = fault.kind === 'nicPauseStorm' ? 'host' : 'switch';
    const fits = role !== undefined && (wanted === 'host' ? role === 'host' : role !== 'host');
    if (!fits) problems.add('reference', `${path}.node`, `the name of a ${wanted} (a ${fault.kind} fault acts on one)`, role === undefined ? describeValue(fault.node) : `${JSON.stringify(fault.node)} (a ${role})`);
    return { index, atPs, kind: fault.kind, target: fault.node ?? '' };
  });
  return faults.sort((x, y) => x.atPs - y.atPs || x.index - y.index);
}
