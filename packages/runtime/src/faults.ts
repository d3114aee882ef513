/**
 * Topology faults (`faults:` in the file) as engine events at the link's hosted endpoints.
 * Faults come from the controller: origin = node count, sequence = 2·fault index + end, so
 * the two ends' events and any two faults at one instant order the same in every mapping.
 */
import type { Engine } from '@rocelab/sim';
import type { FaultSpec, PodSpec } from '@rocelab/topology';

export function scheduleFault(engine: Engine, pod: PodSpec, fault: FaultSpec, hosted: ReadonlySet<number>): void {
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
