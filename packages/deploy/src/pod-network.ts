/**
 * The address a container listens on: its address on the pod network, not every interface
 * (0.0.0.0 would also answer on any other network the container is attached to). A container
 * of a pod has one network interface besides loopback, the pod's bridge; its one IPv4 address
 * is where members, Prometheus and published ports reach it.
 */
import type { NetworkInterfaceInfo } from 'node:os';

/**
 * The one non-loopback IPv4 address, or why there is not exactly one. With `subnet` (a CIDR:
 * a Swarm task has its overlay network and docker_gwbridge), the one address inside it.
 */
export function podNetworkAddress(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>, subnet: string | null = null): { address: string } | { problem: string } {
  const inside = subnet === null ? () => true : cidrMatcher(subnet);
  if (inside === null) return { problem: `a pod subnet ${JSON.stringify(subnet)} that is not an IPv4 CIDR like 10.213.0.0/16` };
  const found = Object.entries(interfaces).flatMap(([name, infos]) => (infos ?? []).filter((i) => i.family === 'IPv4' && !i.internal && inside(i.address)).map((i) => `${i.address} (${name})`));
  if (found.length === 1) return { address: found[0]!.split(' ')[0]! };
  const where = subnet === null ? 'besides loopback' : `in the pod subnet ${subnet}`;
  return { problem: found.length === 0 ? `no IPv4 address ${where}` : `${found.length} IPv4 addresses ${subnet === null ? '' : `${where} `}: ${found.join(', ')}`.replace(' :', ':') };
}

/** Whether an IPv4 address lies in `cidr`; null when `cidr` is not one. */
function cidrMatcher(cidr: string): ((address: string) => boolean) | null {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (m === null || Number(m[5]) > 32 || m.slice(1, 5).some((o) => Number(o) > 255)) return null;
  const bits = Number(m[5]);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  const toInt = (a: string) => a.split('.').reduce((n, o) => ((n << 8) | Number(o)) >>> 0, 0);
  const net = toInt(m.slice(1, 5).join('.')) & mask;
  return (address) => ((toInt(address) & mask) >>> 0) === net >>> 0;
}
