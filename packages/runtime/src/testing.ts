/**
 * Test support for this package (not exported): the smallest pod a runtime rule needs — one
 * ToR, two hosts — with whatever `extra` top-level keys a test adds (workloads, faults, timing).
 */
import { parseTopology, type PodSpec } from '@rocelab/topology';

export function onePod(extra = ''): PodSpec {
  return parseTopology(`name: pair
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
${extra}`);
}

/** A node's index in `pod`. */
export const indexOf = (pod: PodSpec, name: string): number => pod.nodes.find((n) => n.name === name)!.index;
