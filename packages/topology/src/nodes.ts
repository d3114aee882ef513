/**
 * Nodes: uniqueness, role rules for `ip`/`subnet`, and numbering. The node index is the
 * position of the name in the sorted list of names (DESIGN §3), so it does not depend on the
 * order of the file; names are compared by UTF-16 code unit, never by locale.
 */
import type { Problems } from './errors.js';
import { parseIpv4, parseSubnet } from './ipv4.js';
import type { NodeSpec } from './pod.js';
import type { RawNode, RawPipelineDefaults } from './schema.js';
import { EXPECT, parseDuration } from './units.js';

/** Locally administered unicast MACs: 02:00:00:00:00:01 is node 0 (never all-zero). */
export const MAC_BASE = 0x02_00_00_00_00_00;

export interface NodeTable {
  /** In index order (sorted by name). */
  nodes: NodeSpec[];
  byName: ReadonlyMap<string, NodeSpec>;
  /** Where each node is declared: its position in the file's `nodes` list. */
  declaredAt: ReadonlyMap<string, number>;
}

export function compareNames(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function addressOf(node: RawNode, path: string, problems: Problems): number {
  if (node.role !== 'host') {
    if (node.ip !== undefined) problems.add('schema', `${path}.ip`, 'no ip on a switch (only hosts have one)', JSON.stringify(node.ip));
    return 0;
  }
  if (node.ip === undefined) {
    problems.add('schema', `${path}.ip`, `${EXPECT.ipv4} (required for a host)`, 'nothing');
    return 0;
  }
  const ip = problems.parse(`${path}.ip`, 0, () => parseIpv4(node.ip!));
  // 0 stands for "no address" on switches (NodeSpec.ip), so a host may not use it.
  if (node.ip === '0.0.0.0') problems.add('value', `${path}.ip`, 'a host address other than 0.0.0.0', '"0.0.0.0"');
  return ip;
}

function subnetOf(node: RawNode, path: string, problems: Problems): NodeSpec['subnet'] {
  if (node.subnet === undefined) return null;
  if (node.role !== 'tor') {
    problems.add('schema', `${path}.subnet`, 'no subnet (only tors declare one)', JSON.stringify(node.subnet));
    return null;
  }
  return problems.parse(`${path}.subnet`, null, () => parseSubnet(node.subnet!));
}

/** The node's own `pipelineLatency`, else `defaults.pipelineLatency` for its kind, else 0. */
function pipelineOf(node: RawNode, path: string, defaults: RawPipelineDefaults | undefined, problems: Problems): number {
  if (node.pipelineLatency !== undefined) return problems.parse(`${path}.pipelineLatency`, 0, () => parseDuration(node.pipelineLatency!));
  const kind = node.role === 'host' ? 'host' : 'switch';
  const text = defaults?.[kind];
  return text === undefined ? 0 : problems.parse(`defaults.pipelineLatency.${kind}`, 0, () => parseDuration(text));
}

export function resolveNodes(raw: readonly RawNode[], pipelineDefaults: RawPipelineDefaults | undefined, problems: Problems): NodeTable {
  const firstAt = new Map<string, number>();
  const ipAt = new Map<number, number>();
  const parsed = new Map<string, Pick<NodeSpec, 'ip' | 'subnet' | 'pipelinePs'>>();
  raw.forEach((node, i) => {
    const path = `nodes[${i}]`;
    const earlier = firstAt.get(node.name);
    if (earlier !== undefined) {
      problems.add('wiring', `${path}.name`, 'a unique node name', `${JSON.stringify(node.name)} (also nodes[${earlier}])`);
      return;
    }
    firstAt.set(node.name, i);
    const ip = addressOf(node, path, problems);
    const otherIp = ipAt.get(ip);
    if (ip !== 0 && otherIp !== undefined) problems.add('wiring', `${path}.ip`, 'a host IP no other node uses', `${JSON.stringify(node.ip)} (also nodes[${otherIp}])`);
    if (ip !== 0) ipAt.set(ip, i);
    parsed.set(node.name, { ip, subnet: subnetOf(node, path, problems), pipelinePs: pipelineOf(node, path, pipelineDefaults, problems) });
  });

  const names = [...firstAt.keys()].sort(compareNames);
  const nodes = names.map((name, index): NodeSpec => {
    const { ip, subnet, pipelinePs } = parsed.get(name)!;
    const { name: _name, role, ip: _ip, subnet: _subnet, pipelineLatency: _pipeline, app: _app, programs: _programs, ...config } = raw[firstAt.get(name)!]!;
    return { index, name, role, ip, subnet, pipelinePs, mac: MAC_BASE + index + 1, ports: [], config };
  });
  return {
    nodes,
    byName: new Map(nodes.map((n) => [n.name, n])),
    declaredAt: firstAt,
  };
}
