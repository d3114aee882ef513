/**
 * The address a container listens on: its address on the pod network, not every interface
 * (0.0.0.0 would also answer on any other network the container is attached to). A container
 * of a pod has one network interface besides loopback, the pod's bridge; its one IPv4 address
 * is where members, Prometheus and published ports reach it.
 */
import type { NetworkInterfaceInfo } from 'node:os';

/** The one non-loopback IPv4 address, or why there is not exactly one. */
export function podNetworkAddress(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): { address: string } | { problem: string } {
  const found = Object.entries(interfaces).flatMap(([name, infos]) => (infos ?? []).filter((i) => i.family === 'IPv4' && !i.internal).map((i) => `${i.address} (${name})`));
  if (found.length === 1) return { address: found[0]!.split(' ')[0]! };
  return { problem: found.length === 0 ? 'no IPv4 address besides loopback' : `${found.length} IPv4 addresses: ${found.join(', ')}` };
}
