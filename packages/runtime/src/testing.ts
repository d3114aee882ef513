/**
 * Test support for this package (not exported): the smallest pod a runtime rule needs — one
 * ToR, two hosts — with whatever `extra` top-level keys a test adds (workloads, faults, timing).
 */
import { parseTopology, type PodSpec } from '@rocelab/topology';
import { twoHostPod } from '@rocelab/topology/testing';

export function onePod(extra = ''): PodSpec {
  return parseTopology(twoHostPod('pair', extra));
}

/** A node's index in `pod`. */
export const indexOf = (pod: PodSpec, name: string): number => pod.nodes.find((n) => n.name === name)!.index;
