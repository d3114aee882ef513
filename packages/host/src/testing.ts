/** Test support: two hosts on one link, the real NICs and stacks in one engine. */
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { testNodes, type TestLink } from '@rocelab/sim/testing';
import { DEFAULT_DSCP_MAP } from '@rocelab/wire';
import type { HostTraffic, MessagePost, Transport } from '@rocelab/workload';
import { nicProfileSettings, type NicSettings, type QpEnd } from '@rocelab/rnic';
import { Host } from './host.js';

// Two NICs on one 40 Gb/s, 1 µs link: a sends to b. Each NIC's "gateway" is the other NIC.
const A = { name: 'a', ip: 0x0a000001, mac: 0x020000000001 };
const B = { name: 'b', ip: 0x0a000002, mac: 0x020000000002 };

function traffic(posts: MessagePost[], connections: ReturnType<HostTraffic['connections']>): HostTraffic {
  return { next: () => posts.shift() ?? null, connections: () => connections };
}

/** `messages`, when given, are posted at 0 instead of one WRITE of `sizeBytes`. */
export function pair(sizeBytes: number, tweak: (s: NicSettings) => void = () => undefined, messages: Array<Pick<MessagePost, 'opcode' | 'sizeBytes'>> = [], transport: Transport = 'rdma') {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const end = (peer: typeof A): QpEnd => ({ qpn: 1, key: 'w0:a->b', peer, probe: false, dscp: 26, rateCapBps: null, transport });
  const settings = (i: number) => {
    const s = nicProfileSettings('vendor', 'drill', { in: nodes[i]!.ports[0]!.out });
    tweak(s);
    return s;
  };
  const connection = { key: 'w0:a->b', to: 'b', probe: false, dscp: 26, transport, rateBps: null };
  const post: MessagePost = { atPs: 0, to: 'b', connection: 'w0:a->b', opcode: 'write', sizeBytes, flow: 0, probe: false };
  const posts = messages.length === 0 ? [post] : messages.map((m, i): MessagePost => ({ ...post, ...m, flow: i }));
  const a = new Host(engine.context(0), { ip: A.ip, mac: A.mac, gatewayMac: B.mac, requesters: [end(B)], responders: [], traffic: traffic(posts, [connection]), settings: settings(0), wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP });
  const b = new Host(engine.context(1), { ip: B.ip, mac: B.mac, gatewayMac: A.mac, requesters: [], responders: [end(A)], traffic: traffic([], []), settings: settings(1), wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP });
  engine.attach(0, a);
  engine.attach(1, b);
  const audit = () => {
    const stats = [0, 1].map((i) => engine.context(i).stats);
    const sent = stats.reduce((n, s) => n + s.sent, 0);
    const rest = stats.reduce((n, s) => n + s.delivered + s.droppedTotal(), 0) + engine.heldFrames(0) + engine.heldFrames(1);
    return { sent, accounted: rest };
  };
  return { engine, a, b, audit };
}


/** Two hosts on one link with no traffic (their streams are the test's), `link` impairing it. */
export function idlePair(link: Omit<TestLink, 'a' | 'b'> = {}) {
  const nodes = testNodes([{ a: 'a', b: 'b', ...link }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const settings = (i: number) => nicProfileSettings('vendor', 'drill', { in: nodes[i]!.ports[0]!.out });
  const host = (i: number, self: typeof A, peer: typeof A) => new Host(engine.context(i), { ip: self.ip, mac: self.mac, gatewayMac: peer.mac, requesters: [], responders: [], traffic: traffic([], []), settings: settings(i), wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP });
  const a = host(0, A, B);
  const b = host(1, B, A);
  engine.attach(0, a);
  engine.attach(1, b);
  const audit = () => {
    const stats = [0, 1].map((i) => engine.context(i).stats);
    const sent = stats.reduce((n, s) => n + s.sent, 0);
    const rest = stats.reduce((n, s) => n + s.delivered + s.droppedTotal(), 0) + engine.heldFrames(0) + engine.heldFrames(1);
    return { sent, accounted: rest };
  };
  return { engine, a, b, audit, ips: { a: A.ip, b: B.ip } };
}
