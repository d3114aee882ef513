import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine, type NodeModel } from '@rocelab/sim';
import { ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { DEFAULT_DSCP_MAP, FrameKind, Opcode, newFrame } from '@rocelab/wire';
import type { HostTraffic, MessagePost } from '@rocelab/workload';
import { nicProfileSettings, type QpEnd } from '@rocelab/rnic';
import { Host, type HostConfig } from './host.js';


// a → b on one 40 Gb/s, 1 µs link; b dies (and may come back rebooted).
const A = { name: 'a', ip: 0x0a000001, mac: 0x020000000001 };
const B = { name: 'b', ip: 0x0a000002, mac: 0x020000000002 };
const END = (peer: typeof A): QpEnd => ({ qpn: 2, key: 'w0:a->b', peer, probe: false, dscp: 26, rateCapBps: null });
const CONNECTION = { key: 'w0:a->b', to: 'b', probe: false, dscp: 26, transport: 'rdma' as const, rateBps: null };
const NO_TRAFFIC: HostTraffic = { next: () => null, connections: () => [] };

function pod(sizeBytes: number) {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const settings = nicProfileSettings('vendor', 'drill', { in: nodes[0]!.ports[0]!.out });
  const posts: MessagePost[] = [{ atPs: 0, to: 'b', connection: 'w0:a->b', opcode: 'write', sizeBytes, flow: 0, probe: false }];
  const configOf = (i: number, rebooted = false): HostConfig =>
    i === 0
      ? { ip: A.ip, mac: A.mac, gatewayMac: B.mac, requesters: [END(B)], responders: [], traffic: { next: () => posts.shift() ?? null, connections: () => [CONNECTION] }, settings, wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP, rebooted }
      : { ip: B.ip, mac: B.mac, gatewayMac: A.mac, requesters: [], responders: [END(A)], traffic: NO_TRAFFIC, settings, wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP, rebooted };
  const a = new Host(engine.context(0), configOf(0));
  const b = new Host(engine.context(1), configOf(1));
  engine.attach(0, a);
  engine.attach(1, b);
  engine.onRestart((i) => new Host(engine.context(i), configOf(i, true)));
  const down = (node: number, atPs: number, up: boolean, seq: number) => {
    engine.scheduleLinkState(atPs, seq, node, 0, up);
    engine.scheduleLinkState(atPs, seq + 1, 1 - node, 0, up);
  };
  const audit = () => {
    const stats = [0, 1].map((i) => engine.context(i).stats);
    const sent = stats.reduce((n, s) => n + s.sent, 0);
    return { sent, accounted: stats.reduce((n, s) => n + s.delivered + s.droppedTotal(), 0) + engine.heldFrames(0) + engine.heldFrames(1) };
  };
  return { engine, a, b, down, audit };
}

test('a rebooted host has no queue pairs and never asks its traffic for a post', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const settings = nicProfileSettings('vendor', 'drill', { in: nodes[0]!.ports[0]!.out });
  const traffic: HostTraffic = {
    next: () => {
      throw new Error('a rebooted NIC posts nothing');
    },
    connections: () => [CONNECTION],
  };
  const host = new Host(engine.context(0), { ip: A.ip, mac: A.mac, gatewayMac: B.mac, requesters: [END(B)], responders: [END(B)], traffic, settings, wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP, rebooted: true });
  assert.equal(host.senderQps.length, 0);
  assert.equal(host.nic.receiverQps.length, 0);
  assert.deepEqual(host.results().sent, []);
  assert.equal(engine.context(0).timerDeadlinePs(0), null, 'no post timer');
});

test('data, ACKs and CNPs for a QP the NIC does not have are dropped misdelivered, never delivered: conservation holds', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const sender = new ScriptedNode(engine.context(0));
  const settings = nicProfileSettings('vendor', 'drill', { in: nodes[1]!.ports[0]!.out });
  const host = new Host(engine.context(1), { ip: B.ip, mac: B.mac, gatewayMac: A.mac, requesters: [], responders: [], traffic: NO_TRAFFIC, settings, wire: DEFAULT_WIRE_MODEL, dscpMap: DEFAULT_DSCP_MAP, rebooted: true });
  engine.attach(0, sender);
  engine.attach(1, host);
  const to = { srcIp: A.ip, srcMac: A.mac, dstIp: B.ip, dstMac: B.mac, dscp: 26, destQp: 7 };
  sender.send(0, newFrame(FrameKind.data, { ...to, opcode: Opcode.writeOnly, payloadBytes: 512 }));
  sender.send(0, newFrame(FrameKind.ack, { ...to, opcode: Opcode.acknowledge, psn: 3 }));
  sender.send(0, newFrame(FrameKind.cnp, { ...to, opcode: Opcode.cnp, becn: true }));
  engine.runUntil(5_000_000);
  const stats = engine.context(1).stats;
  assert.equal(stats.droppedByReason().misdelivered, 3);
  assert.equal(stats.delivered, 0);
  assert.equal(host.nic.stats.cnpsReceived, 0);
  assert.equal(engine.context(0).stats.sent, stats.droppedTotal() + engine.heldFrames(0) + engine.heldFrames(1));
});

test('a message to a host killed mid-transfer ends retryExceeded after its retries; what b held is node_lost', () => {
  const { engine, a, down, audit } = pod(1_000_000);
  engine.scheduleKill(50_000_000, 0, 1, 0);
  down(1, 50_000_000, false, 1);
  engine.runUntil(50_000_001);
  assert.ok(engine.context(1).stats.droppedByReason().node_lost >= 0);
  engine.runUntil(30_000_000_000);
  const [m] = a.results().sent;
  assert.equal(m!.status, 'retryExceeded');
  assert.equal(a.senderQps[0]!.req.stats.rtoExpirations, 8, 'retry_cnt 7: the 8th timeout errors the QP');
  assert.ok(engine.context(0).stats.droppedByReason().link_down > 0, 'retransmissions start on the down link');
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});

test('the same message to a host restarted without its QP: misdelivered at b, retryExceeded at a', () => {
  const { engine, a, b, down, audit } = pod(1_000_000);
  engine.scheduleKill(50_000_000, 0, 1, 0);
  down(1, 50_000_000, false, 1);
  engine.scheduleRestart(60_000_000, 3, 1, 0);
  down(1, 60_000_000, true, 4);
  engine.runUntil(30_000_000_000);
  const fresh = engine.model(1) as Host;
  assert.notEqual(fresh, b);
  assert.deepEqual(engine.retiredModels(1), [b as NodeModel]);
  assert.equal(fresh.nic.receiverQps.length, 0);
  assert.ok(engine.context(1).stats.droppedByReason().misdelivered > 0, 'retransmissions reach the rebooted b, which has no such QP');
  assert.equal(a.results().sent[0]!.status, 'retryExceeded');
  const { sent, accounted } = audit();
  assert.equal(sent, accounted);
});
