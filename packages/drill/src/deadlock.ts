/**
 * The deadlock detector: a PFC deadlock is a cycle of paused, non-empty switch queues that have
 * stopped transmitting — found over the switches' sampled state (queue.csv), not guessed from
 * goodput, so a stalled flow behind a stuck receiver is not called a deadlock and a deadlock
 * that spares some flows is still found.
 *
 * At a grid time t a queue (node:port, priority) is *blocked* when it is paused by a received
 * PAUSE, holds bytes, and its cumulative `tx_packets` has not changed for at least `stallUs`.
 * A blocked queue A:p waits for the blocked queues of the same priority at the switch B on the
 * other end of its link: A:p is paused by B's ingress group of that port, and that group drains
 * only into B's egress queues. Under up-down routing nothing leaves B by the port it came in, so
 * B's port facing A is not one of them — unless B is one of the `hairpinNodes`, switches that
 * may send a packet back out of the port it came in: a leaf that gets a copy its ToR flooded up
 * routes it straight back down the same link (Guo et al., "RDMA over Commodity Ethernet at
 * Scale", SIGCOMM 2016, §4.2). A deadlock is a cycle in this wait-for graph.
 */
import type { QueueRow } from '@rocelab/results';

/** The columns of a queue.csv row the detector reads (rows of one run). */
export type QueueSample = Pick<QueueRow, 'timeUs' | 'node' | 'port' | 'priority' | 'queueBytes' | 'paused' | 'txPackets'>;

export interface PortRef {
  node: string;
  port: string;
}

/** One cable: which `node:port` faces which (a topology's `links`, e.g. @rocelab/topology's `PodSpec.links`). */
export interface Cable {
  a: PortRef;
  b: PortRef;
}

export interface QueueRef {
  node: string;
  port: string;
  priority: number;
}

export interface DeadlockInput {
  queue: readonly QueueSample[];
  links: readonly Cable[];
  /** How long a paused, non-empty queue must have sent nothing to count as blocked, µs. */
  stallUs: number;
  /**
   * Switches that may send a packet back out of the port it came in, so that A:p also waits for
   * B's queue facing A when B is one of them. With flooding these are the leaves and spines: the
   * ToR floods to every port but the ingress, the switch above routes the copy back down (§4.2 of
   * Guo et al.). Default none, as under up-down routing; naming every switch would make any link
   * paused both ways for `stallUs` a cycle of two queues.
   */
  hairpinNodes?: readonly string[];
}

export interface Deadlock {
  /** The first grid time the wait-for graph has a cycle, µs. */
  atUs: number;
  /** The first grid time after `atUs` with no cycle left (progress resumed), or null if it lasts to the end of the rows. */
  untilUs: number | null;
  /** The cycle's queues in wait-for order (each waits for the next, the last for the first), from its least name. */
  cycle: QueueRef[];
}

interface QueueState {
  ref: QueueRef;
  /** Index of the node at the other end of this queue's link and of its port there; -1 when not wired. */
  peerNode: number;
  peerPort: string;
  node: number;
  /** This queue's switch may send a packet back out of the port it came in. */
  hairpin: boolean;
  lastTx: number;
  lastChangePs: number;
  blocked: boolean;
}

const PS_PER_US = 1_000_000;
/** Times in queue.csv are µs with six decimals: exact picoseconds. */
const toPs = (us: number): number => Math.round(us * PS_PER_US);
const key = (node: string, port: string): string => `${node}\u0000${port}`;
const byName = (a: QueueRef, b: QueueRef): number =>
  (a.node < b.node ? -1 : a.node > b.node ? 1 : 0) || (a.port < b.port ? -1 : a.port > b.port ? 1 : 0) || a.priority - b.priority;

/** The first deadlock in a run's queue rows, or null. Deterministic: ties go by node, port and priority names. */
export function findDeadlock(input: DeadlockInput): Deadlock | null {
  if (!(Number.isFinite(input.stallUs) && input.stallUs >= 0)) throw new RangeError(`stallUs must be a non-negative number of µs, got ${input.stallUs}`);
  const stallPs = toPs(input.stallUs);
  const hairpinNodes = new Set(input.hairpinNodes ?? []);
  const peers = new Map<string, PortRef>();
  for (const { a, b } of input.links) {
    peers.set(key(a.node, a.port), b);
    peers.set(key(b.node, b.port), a);
  }
  const nodeIndex = new Map<string, number>();
  const indexOf = (node: string): number => {
    let i = nodeIndex.get(node);
    if (i === undefined) nodeIndex.set(node, (i = nodeIndex.size));
    return i;
  };

  const states = new Map<string, QueueState>();
  const stateOf = (row: QueueSample): QueueState => {
    const id = `${key(row.node, row.port)}\u0000${row.priority}`;
    let s = states.get(id);
    if (s === undefined) {
      const peer = peers.get(key(row.node, row.port));
      s = {
        ref: { node: row.node, port: row.port, priority: row.priority },
        node: indexOf(row.node),
        hairpin: hairpinNodes.has(row.node),
        peerNode: peer === undefined ? -1 : indexOf(peer.node),
        peerPort: peer?.port ?? '',
        lastTx: Number.NaN,
        lastChangePs: 0,
        blocked: false,
      };
      states.set(id, s);
    }
    return s;
  };

  const rows = input.queue;
  const order = timeOrder(rows);
  let found: Deadlock | null = null;
  for (let i = 0; i < order.length; ) {
    const timeUs = rows[order[i]!]!.timeUs;
    const nowPs = toPs(timeUs);
    let changed = false;
    for (; i < order.length && rows[order[i]!]!.timeUs === timeUs; i++) {
      const row = rows[order[i]!]!;
      const s = stateOf(row);
      if (s.lastTx !== row.txPackets) {
        s.lastTx = row.txPackets;
        s.lastChangePs = nowPs;
      }
      const blocked = row.paused && row.queueBytes > 0 && nowPs - s.lastChangePs >= stallPs;
      if (blocked !== s.blocked) {
        s.blocked = blocked;
        changed = true;
      }
    }
    // The graph changes only when a queue becomes blocked or stops being blocked.
    if (!changed) continue;
    const cycle = findCycle([...states.values()].filter((s) => s.blocked));
    if (found === null && cycle !== null) found = { atUs: timeUs, untilUs: null, cycle };
    else if (found !== null && cycle === null) return { ...found, untilUs: timeUs };
  }
  return found;
}

/** Row indices in time order (stable; rows already in order cost one pass). */
function timeOrder(rows: readonly QueueSample[]): number[] {
  const order = Array.from(rows, (_, i) => i);
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.timeUs < rows[i - 1]!.timeUs) return order.sort((a, b) => rows[a]!.timeUs - rows[b]!.timeUs || a - b);
  }
  return order;
}

/**
 * A cycle among the blocked queues, or null: depth first from the least name, each queue's
 * successors in name order with the hairpin successor last, so the cycle reported goes through
 * as few hairpins as the search can manage.
 */
function findCycle(blocked: QueueState[]): QueueRef[] | null {
  if (blocked.length < 2) return null;
  blocked.sort((a, b) => byName(a.ref, b.ref));
  const index = new Map(blocked.map((s, i) => [s, i]));
  const atNode = new Map<number, QueueState[]>();
  for (const s of blocked) {
    const list = atNode.get(s.node);
    if (list === undefined) atNode.set(s.node, [s]);
    else list.push(s);
  }
  const successors = (s: QueueState): number[] => {
    const out: number[] = [];
    let back = -1;
    for (const t of atNode.get(s.peerNode) ?? []) {
      if (t.ref.priority !== s.ref.priority) continue;
      if (t.ref.port !== s.peerPort) out.push(index.get(t)!);
      else if (t.hairpin) back = index.get(t)!;
    }
    if (back >= 0) out.push(back);
    return out;
  };

  const color = new Uint8Array(blocked.length); // 0 unseen, 1 on the path, 2 done
  for (let root = 0; root < blocked.length; root++) {
    if (color[root] !== 0) continue;
    const path: number[] = [root];
    const pending: number[][] = [successors(blocked[root]!)];
    color[root] = 1;
    while (path.length > 0) {
      const next = pending[pending.length - 1]!.shift();
      if (next === undefined) {
        color[path.pop()!] = 2;
        pending.pop();
        continue;
      }
      if (color[next] === 1) return rotate(path.slice(path.indexOf(next)).map((i) => blocked[i]!.ref));
      if (color[next] === 2) continue;
      color[next] = 1;
      path.push(next);
      pending.push(successors(blocked[next]!));
    }
  }
  return null;
}

/** The cycle from its least queue, keeping its order. */
function rotate(cycle: QueueRef[]): QueueRef[] {
  let least = 0;
  for (let i = 1; i < cycle.length; i++) if (byName(cycle[i]!, cycle[least]!) < 0) least = i;
  return [...cycle.slice(least), ...cycle.slice(0, least)];
}
