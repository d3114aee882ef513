/**
 * Issue 26, "the same paths": on HPCC ns-3's example fat-tree (test/fixtures/hpcc-ns3/fat.txt)
 * a pod with the simulator's node numbering, host addresses, `ecmpHash: hpcc-ns3` and
 * `ecmpOrder: hpcc-bfs` takes the simulator's next hop at every switch, data and ACK.
 *
 * The vectors are the simulator's own rules applied by hand (PHYSICS §8), not rocelab's code:
 * - addresses: third.cc `node_id_to_ip`: 0x0b000001 + (id / 256) · 0x10000 + (id % 256) · 0x100,
 *   so host 0 is 11.0.0.1 = 0x0b000001, host 16 0x0b001001, host 300 11.1.44.1 = 0x0b012c01;
 * - ports: third.cc `ScheduleFlowInputs`: the source port is `portNumder[src][dst]++`, from
 *   10000 per (src, dst) pair in flow-file order; the destination port is the flow file's (100);
 *   an ACK (rdma-hw.cc `ReceiveUdp`) swaps addresses and ports: sport 100, dport = the data's sport;
 * - next-hop lists: third.cc `CalculateRoute` (BFS from the destination host, neighbours in
 *   node-id order, ASSUMPTION hpcc-node-order) then `SetRoutingEntries`/`AddTableEntry`;
 * - choice: switch-node.cc `GetOutDev`: EcmpHash(sip, dip, sport | dport << 16; 12 bytes,
 *   seed = node id) % (number of next hops). The hash values below are switch-node.cc's
 *   `EcmpHash` compiled from the simulator's source (9f4be2a) on these 12 bytes.
 *
 * fat.txt: hosts 0–319 (16 per ToR: host h on ToR 320 + ⌊h/16⌋), ToRs 320–339, aggregation
 * switches 340–359 (pod p = ToRs 320+4p…323+4p and aggs 340+4p…343+4p, all linked), cores
 * 360–375 (agg 340+4p+k links to cores 360+4k…363+4k). BFS queues (dequeue order):
 * - from host 16 (ToR 321): 16 321 340 341 342 343 320 322 323 360 361 … 375 344 348 352 356
 *   345 349 353 357 346 … (hosts are reached, never enqueued);
 * - from host 64 (ToR 324): 64 324 344 345 346 347 325 326 327 360 … 375 340 348 352 356 341 …;
 * - from host 0, 1, 2, 5 (ToR 320): 0 320 340 341 342 343 321 322 323 360 … 375 344 348 352 356 …;
 * - from host 65 (ToR 324) as from 64; from host 300 (ToR 338): 300 338 356 357 358 359 336 337
 *   339 360 … 375 340 344 348 352 341 ….
 * A switch's next hops toward a host are its neighbours one hop closer, in that dequeue order:
 * ToR 320 → host 16: [340, 341, 342, 343]; agg 340 → host 64: [360, 361, 362, 363] (each appended
 * when that core was dequeued); core 361 → host 64: [344]. On this fat-tree every list is in
 * ascending node id (every list checked), so it is also the order of these ports'
 * names `pNN` (ns-3 interface index); the small pod at the end tells the two orders apart.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runInproc } from '@rocelab/runtime';
import { ecmpConfigOf, Forwarding, hpccEcmpHash } from '@rocelab/switch';
import { parseTopology, routeTable, switchSettingsOf, type PodSpec } from '@rocelab/topology';
import { fixture } from './harness.js';

/** third.cc `node_id_to_ip`. */
const ipOf = (id: number): number => (0x0b000001 + Math.floor(id / 256) * 0x10000 + (id % 256) * 0x100) >>> 0;
const name = (id: number): string => `n${String(id).padStart(3, '0')}`;
const dotted = (ip: number): string => [24, 16, 8, 0].map((s) => (ip >>> s) & 0xff).join('.');

/** fat.txt as a rocelab pod: node `nIII` is simulator node III, port `pNN` its ns-3 interface NN. */
function fatPod(): PodSpec {
  const words = readFileSync(fixture('hpcc-ns3/fat.txt'), 'utf8').trim().split(/\s+/);
  const [nodes, switches, links] = words.splice(0, 3).map(Number) as [number, number, number];
  const isSwitch = new Set(words.splice(0, switches).map(Number));
  const role = (id: number) => (!isSwitch.has(id) ? 'host' : id < 340 ? 'tor' : id < 360 ? 'leaf' : 'spine');
  const nextIf = new Array<number>(nodes).fill(0);
  const port = (id: number) => `${name(id)}:p${String(++nextIf[id]!).padStart(2, '0')}`;
  const lines = ['name: hpcc-fat', 'defaults:', '  switch: {ecmpHash: hpcc-ns3, ecmpOrder: hpcc-bfs}', 'nodes:'];
  for (let id = 0; id < nodes; id++) lines.push(`  - {name: ${name(id)}, role: ${role(id)}${role(id) === 'host' ? `, ip: ${dotted(ipOf(id))}` : ''}}`);
  lines.push('links:');
  for (let i = 0; i < links; i++) {
    const [a, b, rate, delay] = words.splice(0, 5) as [string, string, string, string];
    lines.push(`  - {a: ${port(Number(a))}, b: ${port(Number(b))}, rate: ${rate.replace('bps', '')}, latency: ${delay}}`);
  }
  return parseTopology(lines.join('\n'), 'fat.txt (as a pod)');
}

const pod = fatPod();
const forwardings = new Map<number, Forwarding>();
/** A switch's forwarding as the runtime builds it (runtime models.ts). */
function forwardingAt(id: number): Forwarding {
  let f = forwardings.get(id);
  if (f === undefined) {
    const settings = switchSettingsOf(pod, pod.nodes[id]!);
    forwardings.set(id, (f = new Forwarding(routeTable(pod, id, settings.ecmpOrder), ecmpConfigOf(settings, id))));
  }
  return f;
}

/** The node ids a packet visits from host `src` to host `dst` with these ports, by rocelab's forwarding. */
function walk(src: number, dst: number, sport: number, dport: number): number[] {
  const visited = [src];
  let at = pod.nodes[src]!.ports[0]!.peerNode;
  for (let hops = 0; hops < 8 && at !== dst; hops++) {
    visited.push(at);
    const out = forwardingAt(at).egressPort(ipOf(src), ipOf(dst), sport, dport);
    at = pod.nodes[at]!.ports[out]!.peerNode;
  }
  return [...visited, at];
}

test('fat.txt as a pod: node index = simulator id, host addresses by node_id_to_ip, seeds = node ids', () => {
  assert.equal(pod.nodes.length, 376);
  for (const id of [0, 16, 255, 256, 300, 319]) assert.equal(pod.nodes[id]!.ip, ipOf(id));
  assert.equal(ipOf(300), 0x0b012c01);
  assert.deepEqual(ecmpConfigOf(switchSettingsOf(pod, pod.nodes[340]!), 340), { hash: 'hpcc-ns3', seed: 340 });
});

test('fat.txt: next-hop lists in the order of the simulator’s BFS', () => {
  const peers = (sw: number, host: number) => {
    const route = routeTable(pod, sw, 'hpcc-bfs').find((r) => r.ip === ipOf(host))!;
    return route.ports.map((p) => pod.nodes[sw]!.ports[p]!.peerNode);
  };
  assert.deepEqual(peers(320, 16), [340, 341, 342, 343]);
  assert.deepEqual(peers(340, 64), [360, 361, 362, 363]);
  assert.deepEqual(peers(346, 1), [368, 369, 370, 371]);
  assert.deepEqual(peers(361, 64), [344]);
  assert.deepEqual(peers(338, 5), [356, 357, 358, 359]);
});

/**
 * Flow file (src dst pg dport size start), in this order:
 *   0 16 3 100 … (intra-pod, ToR 320 → 321)   sport 10000 (portNumder[0][16]++)
 *   0 16 3 100 … (the same pair again)         sport 10001
 *   1 64 3 100 … (inter-pod, pod 0 → pod 1)     sport 10000
 *   65 2 3 100 … (inter-pod, pod 1 → pod 0)     sport 10000
 *   300 5 3 100 … (pod 4 → pod 0; a host id ≥ 256) sport 10000
 * Each hop with a choice: switch (seed) [next hops], EcmpHash value, % 4 → index → next hop.
 * Words: data `sport | 100 << 16` (0x00642710 for 10000), ACK `100 | sport << 16` (0x27100064).
 */
const VECTORS: Array<{ what: string; src: number; dst: number; sport: number; dport: number; path: number[]; hashes: Array<[seed: number, hash: number]> }> = [
  // 320 (320) [340,341,342,343] 0x0669340b = 107557899, % 4 = 3 → 343; 343 → 321 → 16 (one next hop each).
  { what: 'data 0→16 #1', src: 0, dst: 16, sport: 10000, dport: 100, path: [0, 320, 343, 321, 16], hashes: [[320, 0x0669340b]] },
  // 321 (321) [340,341,342,343] 0x0defa2aa = 233808554, % 4 = 2 → 342; 342 → 320 → 0.
  { what: 'ACK 16→0 #1', src: 16, dst: 0, sport: 100, dport: 10000, path: [16, 321, 342, 320, 0], hashes: [[321, 0x0defa2aa]] },
  // The pair's second flow, sport 10001: 320 0x42849601 = 1115985409, % 4 = 1 → 341 (another path than #1).
  { what: 'data 0→16 #2', src: 0, dst: 16, sport: 10001, dport: 100, path: [0, 320, 341, 321, 16], hashes: [[320, 0x42849601]] },
  // 321 0x5ffa68c6 = 1610246342, % 4 = 2 → 342.
  { what: 'ACK 16→0 #2', src: 16, dst: 0, sport: 100, dport: 10001, path: [16, 321, 342, 320, 0], hashes: [[321, 0x5ffa68c6]] },
  // 320 [340..343] 0xbde2d2ec = 3185758956 % 4 = 0 → 340; 340 [360..363] 0x8ec3bf65 = 2395193189 % 4 = 1 → 361; 361 → 344 → 324 → 64.
  { what: 'data 1→64', src: 1, dst: 64, sport: 10000, dport: 100, path: [1, 320, 340, 361, 344, 324, 64], hashes: [[320, 0xbde2d2ec], [340, 0x8ec3bf65]] },
  // 324 [344..347] 0xeef4fe0e = 4009033230 % 4 = 2 → 346; 346 [368..371] 0xd8556d21 = 3629477153 % 4 = 1 → 369; 369 → 342 → 320 → 1.
  { what: 'ACK 64→1', src: 64, dst: 1, sport: 100, dport: 10000, path: [64, 324, 346, 369, 342, 320, 1], hashes: [[324, 0xeef4fe0e], [346, 0xd8556d21]] },
  // 324 [344..347] 0x4c2942ad = 1277772461 % 4 = 1 → 345; 345 [364..367] 0x37b0aec0 = 934325952 % 4 = 0 → 364; 364 → 341 → 320 → 2.
  { what: 'data 65→2', src: 65, dst: 2, sport: 10000, dport: 100, path: [65, 324, 345, 364, 341, 320, 2], hashes: [[324, 0x4c2942ad], [345, 0x37b0aec0]] },
  // 320 [340..343] 0x67b8a5d8 = 1740154328 % 4 = 0 → 340; 340 [360..363] 0x0a1b44f7 = 169559287 % 4 = 3 → 363; 363 → 344 → 324 → 65.
  { what: 'ACK 2→65', src: 2, dst: 65, sport: 100, dport: 10000, path: [2, 320, 340, 363, 344, 324, 65], hashes: [[320, 0x67b8a5d8], [340, 0x0a1b44f7]] },
  // 338 [356..359] 0xa04cdf31 = 2689392433 % 4 = 1 → 357; 357 [364..367] 0xdbc4ba26 = 3687103014 % 4 = 2 → 366; 366 → 341 → 320 → 5.
  { what: 'data 300→5', src: 300, dst: 5, sport: 10000, dport: 100, path: [300, 338, 357, 366, 341, 320, 5], hashes: [[338, 0xa04cdf31], [357, 0xdbc4ba26]] },
  // 320 [340..343] 0x4999d88c = 1234819212 % 4 = 0 → 340; 340 [360..363] 0xc6a22b46 = 3332516678 % 4 = 2 → 362; 362 → 356 → 338 → 300.
  { what: 'ACK 5→300', src: 5, dst: 300, sport: 100, dport: 10000, path: [5, 320, 340, 362, 356, 338, 300], hashes: [[320, 0x4999d88c], [340, 0xc6a22b46]] },
];

test('fat.txt: HPCC’s EcmpHash values on the flows’ 12-byte keys', () => {
  for (const v of VECTORS) {
    for (const [seed, hash] of v.hashes) assert.equal(hpccEcmpHash(ipOf(v.src), ipOf(v.dst), v.sport, v.dport, seed), hash, `${v.what} at ${seed}`);
  }
});

test('fat.txt: every switch picks the simulator’s next hop, data and ACK', () => {
  for (const v of VECTORS) assert.deepEqual(walk(v.src, v.dst, v.sport, v.dport), v.path, v.what);
});

/**
 * A pod where BFS order, node-id order and port-name order differ (node index = id: n0 0, n1 1,
 * n2 2, n3 3, n4 4, n7 5, n8 6, n9 7). BFS from host n0 (enqueued: switches only):
 * n0 n1 n2 n9 n8 n7 n4 — n1 takes its neighbours by id (n2 before n9), n2 reaches n8 before n9
 * reaches n7. So n4's next hops toward n0 are [n8, n7] (ids 6, 5: not ascending), while its
 * ports `a` → n7, `z` → n8 give port order [n7, n8]. From n3: n3 n4 n7 n8 n9 n2, so n1's next
 * hops toward n3 are [n9, n2]. The simulator's routing on this graph (same numbering) gives the
 * same lists, and for data n3 → n0 (sport 10000, dport 100) at n4, seed 4: EcmpHash 0x544cd0b0
 * % 2 = 0 → n8; its ACK at n1, seed 1: 0x3a9cbcfd % 2 = 1 → n2.
 */
const SMALL = `
name: bfs-order
defaults:
  switch: {ecmpHash: hpcc-ns3, ecmpOrder: hpcc-bfs}
nodes:
  - {name: n0, role: host, ip: 11.0.0.1}
  - {name: n1, role: tor}
  - {name: n2, role: switch}
  - {name: n3, role: host, ip: 11.0.3.1}
  - {name: n4, role: tor}
  - {name: n7, role: switch}
  - {name: n8, role: switch}
  - {name: n9, role: switch}
links:
  - {a: n0:p0, b: n1:h}
  - {a: n1:b, b: n2:down}
  - {a: n1:a, b: n9:down}
  - {a: n2:up, b: n8:down}
  - {a: n9:up, b: n7:down}
  - {a: n4:z, b: n8:up}
  - {a: n4:a, b: n7:up}
  - {a: n3:p0, b: n4:h}
`;

test('ecmpOrder: hpcc-bfs lists next hops in BFS order, not by id or port name', () => {
  const small = parseTopology(SMALL);
  const names = (at: number, ports: readonly number[]) => ports.map((p) => small.nodes[small.nodes[at]!.ports[p]!.peerNode]!.name);
  const peersOf = (at: number, to: number, order: 'port' | 'hpcc-bfs') => names(at, routeTable(small, at, order).find((r) => r.ip === small.nodes[to]!.ip)!.ports);
  assert.deepEqual(peersOf(4, 0, 'port'), ['n7', 'n8']);
  assert.deepEqual(peersOf(4, 0, 'hpcc-bfs'), ['n8', 'n7']);
  assert.deepEqual(peersOf(1, 3, 'hpcc-bfs'), ['n9', 'n2']);
  const at = (sw: number, src: number, dst: number, sport: number, dport: number) => {
    const settings = switchSettingsOf(small, small.nodes[sw]!);
    const f = new Forwarding(routeTable(small, sw, settings.ecmpOrder), ecmpConfigOf(settings, sw));
    return names(sw, [f.egressPort(small.nodes[src]!.ip, small.nodes[dst]!.ip, sport, dport)])[0];
  };
  assert.equal(hpccEcmpHash(0x0b000301, 0x0b000001, 10000, 100, 4), 0x544cd0b0);
  assert.equal(at(4, 3, 0, 10000, 100), 'n8');
  assert.equal(hpccEcmpHash(0x0b000001, 0x0b000301, 100, 10000, 1), 0x3a9cbcfd);
  assert.equal(at(1, 0, 3, 100, 10000), 'n2');
});

test('a bad ecmpOrder or NIC udpPorts is refused with its path and the values allowed', () => {
  const withDefaults = (defaults: string) => () => parseTopology(SMALL.replace('  switch: {ecmpHash: hpcc-ns3, ecmpOrder: hpcc-bfs}', defaults), 'small.yaml');
  assert.throws(withDefaults('  switch: {ecmpOrder: bfs}'), /small\.yaml: defaults\.switch\.ecmpOrder: expected one of "port", "hpcc-bfs", got "bfs"/);
  assert.throws(withDefaults('  nic: {udpPorts: hpcc}'), /small\.yaml: defaults\.nic\.udpPorts: expected one of "roce", "hpcc-ns3", got "hpcc"/);
});

test('a run on the small pod: the flow’s data leaves n4 towards n8 and its ACKs leave n1 towards n2, as HPCC’s would', async () => {
  const pod = parseTopology(`${SMALL}workloads:\n  - {kind: flow, from: n3, to: n0, sizeBytes: 64KB, start: 0us, udpPorts: {src: 10000, dst: 100}}\n`);
  const result = await runInproc(pod, { seed: 1, durationPs: 1_000_000_000, detail: true });
  assert.equal(result.conservation, true);
  const tx = (node: string, port: string) => result.nodes!.find((n) => n.node === node)!.ports.find((p) => p.port === port)!.txBytes;
  assert.ok(tx('n4', 'z') > 64_000 && tx('n4', 'a') === 0, `n4: z ${tx('n4', 'z')} B, a ${tx('n4', 'a')} B`);
  assert.ok(tx('n1', 'b') > 0 && tx('n1', 'a') === 0, `n1: b ${tx('n1', 'b')} B, a ${tx('n1', 'a')} B`);
});
