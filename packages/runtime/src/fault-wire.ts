/**
 * Faults on the wire (`Fault` in grants): the fault as written, as JSON, with the time it
 * applies (for a live fault, the time the controller stamped). A member resolves it with the
 * same fault table and pod as everyone else, so every process derives the same events.
 */
import { Problems, faultContext, resolveFault, type FaultSpec, type PodSpec, type RawFault } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';

export function faultToWire(fault: FaultSpec): Fault {
  return { id: fault.index, atPs: fault.atPs, kind: fault.kind, target: fault.target, spec: JSON.stringify(fault.raw) };
}

/** Thrown for a wire fault that does not resolve: a controller and a member that disagree on the pod. */
export class WireFaultError extends Error {}

export function faultFromWire(fault: Fault, pod: PodSpec): FaultSpec {
  let raw: RawFault;
  try {
    raw = JSON.parse(fault.spec) as RawFault;
  } catch {
    throw new WireFaultError(`fault ${fault.id}: its spec is not JSON: ${fault.spec.slice(0, 80)}`);
  }
  const problems = new Problems();
  const spec = resolveFault({ ...raw, kind: fault.kind, at: `${fault.atPs}ps` }, fault.id, `fault ${fault.id}`, faultContext(new Map(pod.nodes.map((n) => [n.name, n])), pod.links), problems);
  if (spec === null) throw new WireFaultError(`fault ${fault.id} (${fault.kind}) does not fit pod ${pod.name}: ${problems.list.map((p) => `${p.path}: expected ${p.expected}, got ${p.actual}`).join('; ')}`);
  return spec;
}
