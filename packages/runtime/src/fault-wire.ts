/**
 * Faults on the wire (`Fault` in grants) and in the topology (`FaultSpec`): the controller
 * sends a topology fault with its index as id; a member turns it back into engine events.
 */
import type { FaultKind, FaultSpec } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';

const KINDS: readonly FaultKind[] = ['linkDown', 'linkUp', 'nicPauseStorm', 'macFlush'];

export function faultToWire(fault: FaultSpec): Fault {
  return { id: fault.index, atPs: fault.atPs, kind: fault.kind, target: fault.target, spec: '' };
}

export function faultFromWire(fault: Fault): FaultSpec {
  if (!KINDS.includes(fault.kind as FaultKind)) throw new Error(`fault ${fault.id}: unknown kind ${JSON.stringify(fault.kind)}; expected one of ${KINDS.join(', ')}`);
  return { index: fault.id, atPs: fault.atPs, kind: fault.kind as FaultKind, target: fault.target };
}
