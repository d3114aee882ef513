/**
 * Which nodes share a worker (`--workers K`, and the per-worker services of container
 * deployments). Results never depend on it (the trace hash is the same for every mapping),
 * but the cost does: every link between two workers is a batch message per window each way,
 * and the slowest worker sets the pace of the lockstep. So the parts keep neighbours together
 * and carry about the same load.
 *
 * Load is counted in ports: every frame a node handles arrives on one port and leaves on
 * another, so a switch carries about as many events as it has busy ports. A host always
 * stays with the switch it hangs from (its one link never crosses). The parts grow greedily
 * from the lowest-numbered unplaced node, adding the neighbour that keeps the most links
 * inside, until each holds its share; every tie goes to the lowest node index, so the same pod
 * gives the same parts.
 */
import type { PodSpec } from './pod.js';

/** Node indices per part, each part in ascending order; `k` parts (fewer when the pod has fewer groups). */
export function partitionPod(pod: PodSpec, k: number): number[][] {
  if (!Number.isSafeInteger(k) || k < 1) throw new RangeError(`partitionPod: expected a part count ≥ 1, got ${k}`);
  const groups = groupsOf(pod);
  const parts: number[][] = [];
  const placed = new Array<boolean>(groups.members.length).fill(false);
  let left = groups.weight.reduce((a, b) => a + b, 0);
  let unplaced = groups.members.length;
  for (let p = 0; p < k && unplaced > 0; p++) {
    const share = left / (k - p);
    const part: number[] = [];
    let weight = 0;
    const take = (g: number) => {
      placed[g] = true;
      unplaced--;
      part.push(g);
      weight += groups.weight[g]!;
    };
    take(placed.indexOf(false));
    while (unplaced > 0 && p < k - 1) {
      const next = bestNeighbour(groups.links, placed, part) ?? placed.indexOf(false);
      // Stop when taking it would overshoot the share by more than stopping undershoots it.
      if (weight + groups.weight[next]! - share > share - weight) break;
      take(next);
    }
    if (p === k - 1) for (let g = 0; g < placed.length; g++) if (!placed[g]) take(g);
    left -= weight;
    parts.push(part.flatMap((g) => groups.members[g]!).sort((a, b) => a - b));
  }
  return parts;
}

interface Groups {
  /** Node indices of each group (a switch with its hosts, or a lone node). */
  members: number[][];
  weight: number[];
  /** Per group, the groups its links reach (with repeats: parallel links count twice). */
  links: number[][];
}

/** Each host joins the node its one link reaches; every other node is a group of its own. */
function groupsOf(pod: PodSpec): Groups {
  const groupOf: number[] = pod.nodes.map((n) => (n.role === 'host' && n.ports.length === 1 ? -1 : 0));
  const members: number[][] = [];
  for (const n of pod.nodes) {
    if (groupOf[n.index] === -1) continue;
    groupOf[n.index] = members.length;
    members.push([n.index]);
  }
  for (const n of pod.nodes) {
    if (groupOf[n.index] !== -1) continue;
    const peer = n.ports[0]!.peerNode;
    // Two hosts linked to each other: the first is the group.
    const g = groupOf[peer] === -1 ? (groupOf[peer] = members.push([peer]) - 1) : groupOf[peer]!;
    if (peer !== n.index && !members[g]!.includes(n.index)) members[g]!.push(n.index);
    groupOf[n.index] = g;
  }
  const weight = members.map((m) => m.reduce((sum, i) => sum + pod.nodes[i]!.ports.length, 0));
  const links = members.map(() => [] as number[]);
  for (const link of pod.links) {
    const a = groupOf[nodeIndex(pod, link.a.node)]!;
    const b = groupOf[nodeIndex(pod, link.b.node)]!;
    if (a === b) continue;
    links[a]!.push(b);
    links[b]!.push(a);
  }
  return { members, weight, links };
}

function nodeIndex(pod: PodSpec, name: string): number {
  const node = pod.nodes.find((n) => n.name === name);
  if (node === undefined) throw new Error(`partitionPod: link end ${name} is not a node of pod ${pod.name}`);
  return node.index;
}

/** The unplaced group next to the part with the most links into it less its links to other unplaced groups. */
function bestNeighbour(links: readonly number[][], placed: readonly boolean[], part: readonly number[]): number | null {
  const inPart = new Set(part);
  let best: number | null = null;
  let bestGain = -Infinity;
  const candidates = new Set<number>();
  for (const g of part) for (const h of links[g]!) if (!placed[h]) candidates.add(h);
  for (const c of [...candidates].sort((a, b) => a - b)) {
    let gain = 0;
    for (const h of links[c]!) gain += inPart.has(h) ? 1 : placed[h] ? 0 : -1;
    if (gain > bestGain) {
      best = c;
      bestGain = gain;
    }
  }
  return best;
}
