/**
 * The `host:` keys (issue 24): the host CPU model, `host: {cpu: {perOperation, jitter}}`, under
 * `defaults.host` and each host node (a node's keys over the defaults'). Off unless set: a pod
 * without it runs as before, with the same trace hash.
 */
import type { ExtensionProblem, SchemaExtensions } from './extensions.js';
import type { NodeSpec, PodSpec } from './pod.js';
import { duration, object } from './schema-atoms.js';
import { EXPECT, UnitError, parseDuration } from './units.js';

const hostSchema = object('host settings {cpu?}', {
  cpu: object('a host CPU model {perOperation, jitter?}: what each verbs call costs before it reaches the NIC', { perOperation: duration, jitter: duration }),
});

/** The CPU model of a host, in ps; null when off. */
export interface HostCpuSettings {
  perOperationPs: number;
  jitterPs: number;
}

type RawCpu = { perOperation?: string; jitter?: string };
const rawCpu = (raw: unknown): RawCpu | undefined => (raw as { cpu?: RawCpu } | undefined)?.cpu;

/** `defaults.host.cpu`, then the node's `host.cpu`, resolved; null when neither sets it. Problems go to `problems`. */
export function hostCpuOf(pod: PodSpec, node: NodeSpec, problems: ExtensionProblem[] = []): HostCpuSettings | null {
  const merged: RawCpu = { ...rawCpu(pod.defaults.host), ...rawCpu(node.config.host) };
  if (merged.perOperation === undefined && merged.jitter === undefined) return null;
  const ps = (field: 'perOperation' | 'jitter'): number | null => {
    const text = merged[field];
    if (text === undefined) return 0;
    try {
      return parseDuration(text);
    } catch (err) {
      if (!(err instanceof UnitError)) throw err;
      problems.push({ node: node.name, key: 'host', field: `cpu.${field}`, expected: EXPECT.duration, actual: text });
      return null;
    }
  };
  const per = ps('perOperation');
  const jitter = ps('jitter');
  if (per === null || jitter === null) return null;
  if (merged.perOperation === undefined || per <= 0) {
    problems.push({ node: node.name, key: 'host', field: 'cpu.perOperation', expected: 'a duration above 0 (what one verbs call costs), e.g. 1us', actual: merged.perOperation ?? 'nothing' });
    return null;
  }
  if (jitter > per) {
    problems.push({ node: node.name, key: 'host', field: 'cpu.jitter', expected: `a duration at most perOperation (${merged.perOperation}): an operation never takes negative time`, actual: merged.jitter });
    return null;
  }
  return { perOperationPs: per, jitterPs: jitter };
}

function checkHosts(pod: PodSpec): ExtensionProblem[] {
  const out: ExtensionProblem[] = [];
  for (const node of pod.nodes) {
    if (node.role !== 'host') {
      if (node.config.host !== undefined) out.push({ node: node.name, key: 'host', field: 'cpu', expected: 'host settings on a host (a switch has no host CPU)', actual: `a ${node.role}` });
      continue;
    }
    hostCpuOf(pod, node, out);
  }
  return out;
}

export const HOST_EXTENSION: SchemaExtensions = {
  defaults: { host: hostSchema },
  node: { host: hostSchema },
  checks: [checkHosts],
};
