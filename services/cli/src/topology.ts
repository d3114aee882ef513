/**
 * `rocelab topology validate FILE`: the schema and the wiring rules, before anything starts.
 */
import { formatIpv4, loadTopologyFile } from '@rocelab/topology';

export function validateCommand(file: string): number {
  const pod = loadTopologyFile(file);
  const hosts = pod.nodes.filter((n) => n.role === 'host');
  process.stdout.write(
    `${file}: valid — pod ${pod.name}, ${pod.nodes.length} nodes (${hosts.length} hosts), ${pod.links.length} links, ${pod.workloads.length} workloads, profile ${pod.profile}, timing ${pod.timing}\n`,
  );
  for (const h of hosts) process.stdout.write(`  ${h.name} ${formatIpv4(h.ip)}\n`);
  return 0;
}
