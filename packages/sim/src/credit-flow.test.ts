// InfiniBand credit flow control (issue 14) against hand-computed cases and a 16→1 burst.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CreditReceiver, CreditSender, creditBlocks } from './credit-flow.js';

const PACKET = 1024 + 62; // a full RoCE-sized packet: 17 blocks of 64 B

test('a sender spends blocks, stops at the grant, and goes on when a flow-control packet grants more', () => {
  const receiver = new CreditReceiver(40);
  const sender = new CreditSender(40);
  assert.equal(creditBlocks(PACKET), 17);
  sender.send(PACKET);
  receiver.onPacket(PACKET);
  sender.send(PACKET);
  receiver.onPacket(PACKET);
  assert.equal(sender.availableBlocks, 6);
  assert.equal(sender.canSend(PACKET), false, '6 blocks left, 17 needed');
  assert.throws(() => sender.send(PACKET), /without credit \(6 blocks left\)/);
  assert.equal(receiver.fccl(), 40, 'ABR 34 + 6 free');
  receiver.onDrain(PACKET);
  sender.onUpdate(receiver.fccl());
  assert.equal(receiver.fccl(), 57);
  assert.equal(sender.availableBlocks, 23);
  assert.equal(sender.canSend(PACKET), true);
});

test('the 12-bit counters wrap: credit is right across 4096', () => {
  const receiver = new CreditReceiver(2048);
  const sender = new CreditSender(2048);
  for (let i = 0; i < 1000; i++) {
    assert.ok(sender.canSend(PACKET));
    sender.send(PACKET);
    receiver.onPacket(PACKET);
    receiver.onDrain(PACKET);
    sender.onUpdate(receiver.fccl());
    assert.equal(sender.availableBlocks, 2048);
  }
});

test('a 16→1 burst through a switch: no credit goes negative, no buffer overflows, nothing is lost, and the back-pressure reaches the senders', () => {
  // 16 hosts each send 50 packets through a switch to one host that takes one packet every 4
  // packet times. Every hop is credit-controlled: host i → switch ingress i (a 4-packet buffer
  // each), switch egress → the receiver (a 4-packet buffer). One step is one packet time;
  // packets and flow-control packets arrive one step after they leave.
  const BUFFER = 4 * creditBlocks(PACKET);
  const hosts = Array.from({ length: 16 }, () => ({ left: 50, credit: new CreditSender(BUFFER) }));
  const ingress = hosts.map(() => ({ buffer: new CreditReceiver(BUFFER), queue: 0 }));
  const egress = new CreditSender(BUFFER);
  const sink = new CreditReceiver(BUFFER);
  let sinkQueue = 0;
  let delivered = 0;
  let stalledSends = 0;
  let rr = 0;
  let inFlightToSwitch: number[] = [];
  let inFlightToSink = 0;
  let updates: Array<() => void> = [];
  for (let step = 0; step < 10_000 && delivered < 800; step++) {
    // Arrivals of the step before, and the flow-control packets sent then.
    for (const i of inFlightToSwitch) {
      ingress[i]!.buffer.onPacket(PACKET);
      ingress[i]!.queue++;
    }
    inFlightToSwitch = [];
    for (let k = 0; k < inFlightToSink; k++) {
      sink.onPacket(PACKET);
      sinkQueue++;
    }
    inFlightToSink = 0;
    for (const u of updates) u();
    updates = [];
    // The receiving host takes a packet every 4 steps.
    if (step % 4 === 0 && sinkQueue > 0) {
      sinkQueue--;
      sink.onDrain(PACKET);
      delivered++;
    }
    // The switch forwards one packet per step, round robin over its ingresses, when the egress has credit.
    if (egress.canSend(PACKET)) {
      for (let k = 0; k < 16; k++) {
        const i = (rr + k) % 16;
        if (ingress[i]!.queue === 0) continue;
        ingress[i]!.queue--;
        ingress[i]!.buffer.onDrain(PACKET);
        egress.send(PACKET);
        inFlightToSink++;
        rr = (i + 1) % 16;
        break;
      }
    }
    // Each host sends a packet per step while it has credit.
    hosts.forEach((h, i) => {
      if (h.left === 0) return;
      if (!h.credit.canSend(PACKET)) {
        stalledSends++;
        return;
      }
      h.credit.send(PACKET);
      h.left--;
      inFlightToSwitch.push(i);
    });
    // Every receiver sends a flow-control packet each step; it arrives at the next.
    const sinkFccl = sink.fccl();
    updates.push(() => egress.onUpdate(sinkFccl));
    ingress.forEach((g, i) => {
      const fccl = g.buffer.fccl();
      updates.push(() => hosts[i]!.credit.onUpdate(fccl));
    });
    for (const h of hosts) assert.ok(h.credit.availableBlocks >= 0);
    assert.ok(egress.availableBlocks >= 0);
  }
  assert.equal(delivered, 800, 'every packet arrived: none was dropped for want of buffer');
  assert.ok(ingress.every((g) => g.buffer.peakBlocks <= BUFFER) && sink.peakBlocks <= BUFFER);
  assert.equal(sink.peakBlocks, BUFFER, 'the slow receiver’s buffer filled');
  assert.ok(stalledSends > 10_000, `the hosts waited for credit ${stalledSends} times: back-pressure reached them, hop by hop`);
});

test('bad sizes are refused', () => {
  assert.throws(() => new CreditReceiver(0), /buffer must be 1\.\.2048 blocks, got 0/);
  assert.throws(() => new CreditSender(4000), /initial credit must be 0\.\.2048 blocks, got 4000/);
  assert.throws(() => new CreditSender(10).onUpdate(4096), /FCCL must be 0\.\.4095, got 4096/);
});
