/**
 * Ports: numbering (a node's ports sorted by name, DESIGN §3), peer mapping, and the host
 * wiring rule — a host has exactly one link and it goes to its ToR (role `tor`, or the generic
 * `switch`): a host is never a transit node, which routing relies on, and a host wired to a leaf
 * or spine is a wiring mistake rather than a topology.
 */
import type { Problems } from './errors.js';
import { formatIpv4, inSubnet } from './ipv4.js';
import { compareNames, type NodeTable } from './nodes.js';
import type { LinkSpec } from './pod.js';
import type { RawLink } from './schema.js';

type Side = 'a' | 'b';

/** Fills every node's `ports` from the resolved links. */
export function attachPorts(table: NodeTable, links: readonly LinkSpec[]): void {
  const pending = new Map<string, Array<{ name: string; link: LinkSpec; side: Side }>>();
  for (const link of links) {
    for (const side of ['a', 'b'] as const) {
      const ep = link[side];
      const list = pending.get(ep.node) ?? [];
      list.push({ name: ep.port, link, side });
      pending.set(ep.node, list);
    }
  }
  const portIndex = new Map<string, number>(); // `${link}:${side}` → index on that side's node
  for (const [, list] of pending) {
    list.sort((x, y) => compareNames(x.name, y.name));
    list.forEach((p, i) => portIndex.set(`${p.link.index}:${p.side}`, i));
  }
  for (const node of table.nodes) {
    node.ports = (pending.get(node.name) ?? []).map(({ name, link, side }, index) => {
      const peer: Side = side === 'a' ? 'b' : 'a';
      return {
        index,
        name,
        link: link.index,
        peerNode: table.byName.get(link[peer].node)!.index,
        peerPort: portIndex.get(`${link.index}:${peer}`)!,
        out: side === 'a' ? link.aToB : link.bToA,
        in: side === 'a' ? link.bToA : link.aToB,
      };
    });
  }
}

const nodeOf = (endpoint: string): string => endpoint.slice(0, endpoint.indexOf(':'));

/**
 * Checked against the links as written (not only the valid ones), so a host whose only link
 * has a bad far end is not also reported as unlinked.
 */
export function checkHosts(table: NodeTable, rawLinks: readonly RawLink[], problems: Problems): void {
  const touching = new Map<string, Array<{ i: number; peer: string }>>();
  const touch = (node: string, i: number, peer: string) => {
    const list = touching.get(node) ?? [];
    list.push({ i, peer });
    touching.set(node, list);
  };
  rawLinks.forEach((l, i) => {
    touch(nodeOf(l.a), i, nodeOf(l.b));
    if (nodeOf(l.b) !== nodeOf(l.a)) touch(nodeOf(l.b), i, nodeOf(l.a));
  });
  const at = (name: string): number => table.declaredAt.get(name)!;
  const expected = 'a host with exactly one link, to a ToR (role tor or switch)';
  for (const node of table.nodes.filter((n) => n.role === 'host').sort((x, y) => at(x.name) - at(y.name))) {
    const path = `nodes[${at(node.name)}]`;
    const mine = touching.get(node.name) ?? [];
    if (mine.length !== 1) {
      const got = mine.length === 0 ? 'no link' : `${mine.length} links (${mine.map((t) => `links[${t.i}]`).join(', ')})`;
      problems.add('wiring', path, expected, got);
      continue;
    }
    const { i, peer } = mine[0]!;
    const peerNode = table.byName.get(peer);
    if (peerNode && peerNode.role !== 'tor' && peerNode.role !== 'switch') problems.add('wiring', path, expected, `a link to ${peerNode.role} ${peer} (links[${i}])`);
    const subnet = peerNode?.subnet;
    if (subnet && node.ip !== 0 && !inSubnet(node.ip, subnet)) {
      problems.add('wiring', `${path}.ip`, `an address inside ${peer}'s subnet ${formatIpv4(subnet.base)}/${subnet.prefixLength}`, JSON.stringify(formatIpv4(node.ip)));
    }
  }
}
