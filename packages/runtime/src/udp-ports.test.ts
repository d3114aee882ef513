/**
 * Issue 26: a QP's UDP ports. A `flow`'s `udpPorts` go to its requester as written and to its
 * responder swapped (HPCC rdma-hw.cc ReceiveUdp: an ACK's sport is the data's dport), so data
 * and ACK/NAK/CNP frames carry them as HPCC's do; `nic: {udpPorts: hpcc-ns3}` numbers the
 * others as third.cc ScheduleFlowInputs (`portNumder[src][dst]++` from 10000, dport 100).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameKind } from '@rocelab/wire';
import { frameTo, replyFrame, udpSourcePort, type QpEnd } from '@rocelab/rnic';
import { parseTopology } from '@rocelab/topology';
import { podContext } from './pod-context.js';

const pod = (nic: string, flows: string[]) =>
  parseTopology(`
name: ports
${nic}
nodes:
  - {name: sw, role: tor}
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2}
  - {name: h3, role: host, ip: 10.0.0.3}
links:
  - {a: h1:p0, b: sw:p1}
  - {a: h2:p0, b: sw:p2}
  - {a: h3:p0, b: sw:p3}
workloads:
${flows.map((f) => `  - {kind: flow, sizeBytes: 1KB, start: 0us, ${f}}`).join('\n')}
`);

const ends = (p: ReturnType<typeof pod>, host: string, side: 'requesters' | 'responders') =>
  Object.fromEntries(podContext(p, 1).qps.get(host)![side].map((e) => [e.key, e.udpPorts ?? null]));

test('a flow’s udpPorts: the requester’s as written, the responder’s swapped; other flows keep RoCEv2’s', () => {
  const p = pod('', ['from: h1, to: h2, udpPorts: {src: 10000, dst: 100}', 'from: h1, to: h2']);
  assert.deepEqual(ends(p, 'h1', 'requesters'), { 'w0:h1->h2': { src: 10000, dst: 100 }, 'w1:h1->h2': null });
  assert.deepEqual(ends(p, 'h2', 'responders'), { 'w0:h1->h2': { src: 100, dst: 10000 }, 'w1:h1->h2': null });
});

test('frames: data carries the flow’s ports, the responder’s ACK and CNP them swapped; without ports 49152 + QPN and 0 (4791)', () => {
  const p = pod('', ['from: h1, to: h2, udpPorts: {src: 10001, dst: 100}', 'from: h1, to: h2']);
  const pc = podContext(p, 1);
  const [requester, plain] = pc.qps.get('h1')!.requesters as [QpEnd, QpEnd];
  const responder = pc.qps.get('h2')!.responders.find((e) => e.key === requester.key)!;
  const h1 = { ip: 0x0a000001, mac: 1, gatewayMac: 9 };
  const h2 = { ip: 0x0a000002, mac: 2, gatewayMac: 9 };
  const data = frameTo(h1, FrameKind.data, requester);
  assert.deepEqual([data.udpSrcPort, data.udpDstPort], [10001, 100]);
  const ack = replyFrame(h2, responder, { kind: 'ack', psn: 0, msn: 1 } as Parameters<typeof replyFrame>[2], false);
  assert.deepEqual([ack.udpSrcPort, ack.udpDstPort], [100, 10001]);
  const cnp = frameTo(h2, FrameKind.cnp, responder);
  assert.deepEqual([cnp.udpSrcPort, cnp.udpDstPort], [100, 10001]);
  const old = frameTo(h1, FrameKind.data, plain);
  assert.deepEqual([old.udpSrcPort, old.udpDstPort], [udpSourcePort(plain.qpn), 0]);
});

test('nic udpPorts: hpcc-ns3 counts from 10000 per (sender, receiver) in workload order, to port 100; own ports stay', () => {
  const flows = [
    'from: h1, to: h2', // portNumder[h1][h2]++ → 10000
    'from: h1, to: h3', // [h1][h3] → 10000
    'from: h1, to: h2, udpPorts: {src: 5, dst: 6}', // its own: not counted
    'from: h2, to: h1', // [h2][h1] → 10000
  ];
  // 11 items so that w10 sorts before w2 as a string: the counter must follow the workload index.
  for (let i = 4; i < 10; i++) flows.push('from: h3, to: h2');
  flows.push('from: h1, to: h2'); // w10: [h1][h2] → 10001
  const p = pod('defaults:\n  nic: {udpPorts: hpcc-ns3}', flows);
  assert.deepEqual(ends(p, 'h1', 'requesters'), {
    'w0:h1->h2': { src: 10000, dst: 100 },
    'w1:h1->h3': { src: 10000, dst: 100 },
    'w10:h1->h2': { src: 10001, dst: 100 },
    'w2:h1->h2': { src: 5, dst: 6 },
  });
  assert.deepEqual(ends(p, 'h2', 'requesters'), { 'w3:h2->h1': { src: 10000, dst: 100 } });
  assert.deepEqual(Object.values(ends(p, 'h3', 'requesters')).map((x) => x!.src), [10000, 10001, 10002, 10003, 10004, 10005]);
  assert.deepEqual(ends(p, 'h1', 'responders'), { 'w3:h2->h1': { src: 100, dst: 10000 } });
});
