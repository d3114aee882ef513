/**
 * The path a QP's packets take through the pod — the switches' own forwarding (L2 to an
 * attached host, L3 with their ECMP hash and seed otherwise) applied hop by hop — and the ideal
 * FCT of a message along it (`idealFctPs` of @rocelab/results): the links both ways, both
 * hosts' memory drain rates, the responder's ACK coalescing and the flow's rate cap.
 */
import { idealFctPs, type Hop } from '@rocelab/results';
import { udpSourcePort, type QpEnd, type WorkOpcode } from '@rocelab/rnic';
import { nicSettingsOf, routeTable, switchSettingsOf, type PodSpec } from '@rocelab/topology';
import { ecmpConfigOf, Forwarding, NO_ROUTE } from '@rocelab/switch';
import type { PodContext } from './pod-context.js';

/** Longer than any loop-free path in a pod rocelab can run. */
const MAX_HOPS = 64;

const forwardings = new WeakMap<PodSpec, Map<number, Forwarding>>();

function forwardingOf(pod: PodSpec, index: number): Forwarding {
  let byNode = forwardings.get(pod);
  if (byNode === undefined) forwardings.set(pod, (byNode = new Map()));
  let f = byNode.get(index);
  if (f === undefined) {
    const node = pod.nodes[index]!;
    const settings = switchSettingsOf(pod, node);
    f = new Forwarding(routeTable(pod, index, settings.ecmpOrder), ecmpConfigOf(settings, index));
    byNode.set(index, f);
  }
  return f;
}

/** The links from host `from` to host `to` for packets with these UDP ports (`dstPort` 0: 4791); null when they find no route. */
export function hostPath(pod: PodSpec, from: string, to: string, srcPort: number, dstPort = 0): Hop[] | null {
  const src = pod.nodes.find((n) => n.name === from)!;
  const dst = pod.nodes.find((n) => n.name === to)!;
  const hops: Hop[] = [];
  let node = src;
  let port = 0;
  for (let i = 0; i < MAX_HOPS; i++) {
    const out = node.ports[port]!.out;
    hops.push({ rateBps: out.rateBps, latencyPs: out.latencyPs });
    node = pod.nodes[node.ports[port]!.peerNode]!;
    if (node.index === dst.index) return hops;
    if (node.role === 'host') return null;
    const local = node.ports.find((p) => p.peerNode === dst.index);
    port = local !== undefined ? local.index : forwardingOf(pod, node.index).egressPort(src.ip, dst.ip, srcPort, dstPort);
    if (port === NO_ROUTE) return null;
  }
  return null;
}

/** Ideal FCT of a message of `sizeBytes` on the QP `end` of host `from`; null without a route. */
export function idealFctOf(pc: PodContext, from: string, end: QpEnd, sizeBytes: number, opcode: WorkOpcode): number | null {
  const pod = pc.pod;
  // ACKs carry the data's ports swapped (the responder's end), or RoCEv2's when the QP has none.
  const ports = end.udpPorts;
  const forward = ports === undefined ? hostPath(pod, from, end.peer.name, udpSourcePort(end.qpn)) : hostPath(pod, from, end.peer.name, ports.src, ports.dst);
  const reverse = ports === undefined ? hostPath(pod, end.peer.name, from, udpSourcePort(end.qpn)) : hostPath(pod, end.peer.name, from, ports.dst, ports.src);
  if (forward === null || reverse === null) return null;
  const sender = pod.nodes.find((n) => n.name === from)!;
  const receiver = pod.nodes.find((n) => n.name === end.peer.name)!;
  const senderNic = nicSettingsOf(pod, sender);
  const receiverNic = nicSettingsOf(pod, receiver);
  const tcp = end.transport === 'tcp' || end.transport === 'dctcp';
  return idealFctPs({
    sizeBytes,
    opcode,
    mtu: tcp ? (senderNic.tcp.mssBytes ?? sender.ports[0]!.out.mtu) : sender.ports[0]!.out.mtu,
    wire: pc.wire,
    forward,
    reverse,
    receiverDrainBps: receiverNic.pfc.drainBps,
    senderDrainBps: senderNic.pfc.drainBps,
    ackEvery: receiverNic.ackEvery,
    rateCapBps: end.rateCapBps,
    ...(tcp ? { tcp: { writeLatencyPs: senderNic.tcp.schedulingPs + senderNic.tcp.sendLatencyPs, receiveLatencyPs: receiverNic.tcp.receiveLatencyPs } } : {}),
  });
}

/**
 * Ideal FCTs of a run's messages by their sending host, from the pod's QP plan: one computation
 * per (host, QP, size, operation), since a flow of many equal messages shares it. Null for a
 * message whose QP the plan does not know (an app's or a native program's) or without a route.
 */
export function idealFctLookup(pc: PodContext): (from: string, m: { qpn: number; sizeBytes: number; opcode: WorkOpcode }) => number | null {
  const cache = new Map<string, number | null>();
  return (from, m) => {
    const key = `${from}/${m.qpn}/${m.sizeBytes}/${m.opcode}`;
    let ideal = cache.get(key);
    if (ideal === undefined) {
      const end = pc.qps.get(from)?.requesters.find((q) => q.qpn === m.qpn);
      ideal = end === undefined ? null : idealFctOf(pc, from, end, m.sizeBytes, m.opcode);
      cache.set(key, ideal);
    }
    return ideal;
  };
}
