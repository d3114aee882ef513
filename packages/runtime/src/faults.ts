/**
 * Topology faults (`faults:` in the file) as engine events: link faults at the link's hosted
 * endpoints (link state, class 2), node faults at their node (class 1).
 * Faults come from the controller: origin = node count, sequence = 2·fault index + end, so
 * the two ends' events and any two faults at one instant order the same in every mapping.
 */
import type { Engine } from '@rocelab/sim';
import type { FaultSpec, PodSpec } from '@rocelab/topology';

/** Node faults reach the model as `{kind}`; the event carries a small code for the trace hash. */
const NODE_FAULT_CODES = { nicPauseStorm: 1, macFlush: 2 } as const;

export function scheduleFault(engine: Engine, pod: PodSpec, fault: FaultSpec, hosted: ReadonlySet<number>): void {
  if (fault.kind === 'nicPauseStorm' || fault.kind === 'macFlush') {
    const node = pod.nodes.find((n) => n.name === fault.target)!;
    if (hosted.has(node.index)) engine.scheduleFault(fault.atPs, 2 * fault.index, node.index, NODE_FAULT_CODES[fault.kind], { kind: fault.kind });
    return;
  }
  const [nodeName, portName] = fault.target.split(':') as [string, string];
  const node = pod.nodes.find((n) => n.name === nodeName)!;
  const port = node.ports.find((p) => p.name === portName)!;
  const ends: Array<[number, number]> = [
    [node.index, port.index],
    [port.peerNode, port.peerPort],
  ];
  const up = fault.kind === 'linkUp';
  ends.forEach(([n, p], end) => {
    if (hosted.has(n)) engine.scheduleLinkState(fault.atPs, 2 * fault.index + end, n, p, up);
  });
}
