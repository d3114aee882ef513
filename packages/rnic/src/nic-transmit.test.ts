import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { testNodes } from '@rocelab/sim/testing';
import { DEFAULT_DSCP_MAP, FrameKind, newFrame, type Frame } from '@rocelab/wire';
import { cnpFrame, replyFrame } from './nic-frames.js';
import { nicProfileSettings } from './nic-settings.js';
import { NicTransmit } from './nic-transmit.js';
import type { QpEnd } from './nic-types.js';
import { Pacer } from './pacing.js';

const A = { ip: 0x0a000001, mac: 0x020000000001, gatewayMac: 0x020000000002 };
const B = { name: 'b', ip: 0x0a000002, mac: 0x020000000002 };
/** A QP whose data rides DSCP 26 (priority 3, lossless); its CNPs ride DSCP 48 (priority 6). */
const END: QpEnd = { qpn: 2, key: 'w0:b->a', peer: B, probe: false, dscp: 26, rateCapBps: null };
const PRIORITY_3 = 1 << 3;
const ALL_PAUSED = 0xff;

/** A NIC's transmit side with nothing to send but the replies the test queues. */
function transmit(ackIgnoresPause: boolean | undefined): NicTransmit {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const pacer = new Pacer(nodes[0]!.ports[0]!.out.rateBps, DEFAULT_WIRE_MODEL, true);
  const config = { ...A, dscpMap: DEFAULT_DSCP_MAP, mtu: 1024, ...(ackIgnoresPause === undefined ? {} : { ackIgnoresPause }) };
  return new NicTransmit(engine.context(0), config, [], pacer, 0, () => {}, { cnpsSent: 0 });
}

const ack = (psn: number): Frame => replyFrame(A, END, { kind: 'ack', psn, msn: 1 }, false);
const nak = (psn: number): Frame => replyFrame(A, END, { kind: 'nak', psn, msn: 1, syndrome: 0x60 }, false);

test('ackIgnoresPause (hpcc-ns3 ACK_HIGH_PRIO 1): a NIC paused on the ACK\'s priority still sends its ACKs and NAKs; without it they wait for the resume', () => {
  for (const setting of [undefined, false]) {
    const tx = transmit(setting);
    tx.queueReply(ack(7));
    assert.equal(tx.nextFrame(0, PRIORITY_3), null, `ackIgnoresPause ${setting}: PAUSE on priority 3 holds the ACK`);
    const sent = tx.nextFrame(1000, 0);
    assert.equal(sent?.kind, FrameKind.ack, 'after the resume it leaves');
    assert.equal(sent.psn, 7);
  }
  const tx = transmit(true);
  tx.queueReply(ack(7));
  tx.queueReply(nak(8));
  const first = tx.nextFrame(0, PRIORITY_3);
  assert.equal(first?.kind, FrameKind.ack);
  assert.deepEqual([first.psn, first.dscp, first.syndrome], [7, 26, 0], 'the ACK keeps its DSCP: switches queue it with the data (HPCC switch-node.cc SendToDev)');
  const second = tx.nextFrame(0, PRIORITY_3);
  assert.deepEqual([second?.kind, second?.psn, second?.syndrome], [FrameKind.ack, 8, 0x60], 'a NAK too');
  assert.equal(tx.nextFrame(0, PRIORITY_3), null, 'nothing else queued');
});

test('ackIgnoresPause lets only ACKs and NAKs pass a pause: a CNP and a host stack\'s TCP ACK on a paused priority wait, and keep their turn after the ACK', () => {
  const tx = transmit(true);
  const tcpAck = newFrame(FrameKind.tcpAck, { srcIp: A.ip, dstIp: B.ip, dscp: 26 });
  tx.queueReply(cnpFrame(A, END, 48));
  tx.queueReply(tcpAck);
  tx.queueReply(ack(9));
  const first = tx.nextFrame(0, ALL_PAUSED);
  assert.deepEqual([first?.kind, first?.psn], [FrameKind.ack, 9], 'the ACK overtakes the paused CNP and TCP ACK');
  assert.equal(tx.nextFrame(0, ALL_PAUSED), null, 'HPCC queues only ACK/NACK in its unpaused queue (rdma-hw.cc ReceiveUdp)');
  assert.equal(tx.nextFrame(0, 0)?.kind, FrameKind.cnp);
  assert.equal(tx.nextFrame(0, 0)?.kind, FrameKind.tcpAck);
});

test('ackIgnoresPause is off in every profile (hpcc-ns3 included: ACK_HIGH_PRIO defaults to 0 in third.cc)', () => {
  for (const profile of ['vendor', 'paper', 'hpcc-ns3', 'sonic'] as const) {
    assert.equal(nicProfileSettings(profile, 'drill', { in: { rateBps: 100e9, latencyPs: 1_000_000, mtu: 1024 } }).ackIgnoresPause, false, profile);
  }
});
