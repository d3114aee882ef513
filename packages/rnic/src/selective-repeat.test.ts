// Selective repeat (IRN) against hand-computed cases (issue 14).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SelectiveRepeatReceiver, SelectiveRepeatSender, type SelectiveRepeatConfig } from './selective-repeat.js';

const US = 1_000_000;
const CONFIG: SelectiveRepeatConfig = { bdpCapPackets: 16, rtoLowPs: 100 * US, lowRtoBelowPackets: 3, rtoHighPs: 320 * US };

/**
 * Packets cross a FIFO channel one at a time; each reply reaches the sender at once and it sends
 * what it may. `lose` drops a packet on its first transmission only. Time moves only for timeouts.
 */
function run(sender: SelectiveRepeatSender, receiver: SelectiveRepeatReceiver, lose: (psn: number, retransmission: boolean) => boolean) {
  let now = 0;
  const channel: Array<{ psn: number; retransmission: boolean }> = [];
  let maxInFlight = 0;
  const sendAll = () => {
    for (let p = sender.nextPacket(now); p !== null; p = sender.nextPacket(now)) {
      channel.push(p);
      maxInFlight = Math.max(maxInFlight, sender.inFlight);
    }
  };
  sendAll();
  for (let step = 0; step < 10_000; step++) {
    const p = channel.shift();
    if (p === undefined) {
      const deadline = sender.deadlinePs();
      if (deadline === null) break;
      now = deadline;
      sender.onTimer(now);
    } else if (!lose(p.psn, p.retransmission)) {
      sender.onReply(now, receiver.onPacket(p.psn));
    }
    sendAll();
  }
  return { maxInFlight, now };
}

test('two holes are recovered with exactly two retransmissions: only what is missing is sent again', () => {
  const sender = new SelectiveRepeatSender(CONFIG);
  const receiver = new SelectiveRepeatReceiver();
  sender.post(10);
  // 3 and 6 are lost. 4 arrives: NACK(ePSN 3, SACK 4) → 3 is a hole below the highest SACK: resent.
  // 5: nothing new. 7: NACK(3, SACK 7) → 6 is now a hole too: resent. 8, 9: nothing. The resent
  // 3 brings ePSN to 6, the resent 6 to 10. Out of order: 4, 5, 7, 8, 9.
  run(sender, receiver, (psn, again) => !again && (psn === 3 || psn === 6));
  assert.equal(receiver.expected, 10);
  assert.equal(sender.cumulative, 10);
  assert.deepEqual({ ...sender.stats }, { packetsSent: 12, retransmissions: 2, recoveries: 1, timeouts: 0 });
  assert.deepEqual({ ...receiver.stats }, { accepted: 10, outOfOrder: 5, duplicates: 0 });
});

test('the BDP cap bounds the packets in flight, with or without losses', () => {
  const sender = new SelectiveRepeatSender({ ...CONFIG, bdpCapPackets: 8 });
  const receiver = new SelectiveRepeatReceiver();
  sender.post(100);
  const { maxInFlight } = run(sender, receiver, (psn, again) => !again && psn % 17 === 5);
  assert.equal(maxInFlight, 8);
  assert.equal(receiver.expected, 100);
});

test('a tail loss has no later packet to be SACKed: the short timeout resends it', () => {
  const sender = new SelectiveRepeatSender(CONFIG);
  const receiver = new SelectiveRepeatReceiver();
  sender.post(5);
  const { now } = run(sender, receiver, (psn, again) => !again && psn === 4);
  assert.equal(receiver.expected, 5);
  assert.deepEqual({ ...sender.stats }, { packetsSent: 6, retransmissions: 1, recoveries: 0, timeouts: 1 });
  assert.equal(now, 100 * US, 'RTO_low: one packet was in flight');
});

test('a lost retransmission is sent again by the timeout, not by more NACKs', () => {
  const sender = new SelectiveRepeatSender(CONFIG);
  const receiver = new SelectiveRepeatReceiver();
  sender.post(20);
  let lostAgain = false;
  run(sender, receiver, (psn, again) => psn === 2 && (!again || (lostAgain ? false : (lostAgain = true))));
  assert.equal(receiver.expected, 20);
  assert.equal(sender.stats.retransmissions, 2);
  assert.equal(sender.stats.timeouts, 1);
});

test('an RC QP pair over selective repeat: two holes in two WRITEs cost exactly two retransmissions, and both complete', async () => {
  const { RcRequester } = await import('./rc-requester.js');
  const { RcResponder } = await import('./rc-responder.js');
  const req = new RcRequester({ mtu: 1000, recovery: 'selectiveRepeat', ackTimeoutPs: null, retryCount: 7, rnrRetry: 7, initialPsn: 0, selectiveRepeat: CONFIG });
  const resp = new RcResponder({ initialPsn: 0, ackEvery: 4, nakPolicy: 'oncePerGap', nakIntervalPs: 0, rnrTimerCode: 1, recovery: 'selectiveRepeat' });
  req.post({ id: 1, opcode: 'write', sizeBytes: 5000, postedPs: 0 });
  req.post({ id: 2, opcode: 'write', sizeBytes: 5000, postedPs: 0 });
  const done: number[] = [];
  const sent: number[] = [];
  let messagesSeen = 0;
  // PSNs 2 and 7 are lost once; every other packet and every reply arrives, in order.
  for (let step = 0; step < 100 && done.length < 2; step++) {
    const p = req.nextPacket(step);
    if (p === null) break;
    sent.push(p.psn);
    if (!p.retransmission && (p.psn === 2 || p.psn === 7)) continue;
    const r = resp.onPacket(step, p.psn, p.opcode, p.payloadBytes, p.ackReq);
    if (r.messageBytes !== null) messagesSeen += r.messages ?? 1;
    const reply = r.reply;
    if (reply === null) continue;
    const completions = reply.kind === 'nak' ? req.onNak(step, reply.psn, reply.syndrome, reply.sackPsn) : req.onAck(step, reply.psn);
    done.push(...completions.map((c) => c.wrId));
  }
  // 3 arrives out of order: NAK(ePSN 2, SACK 3) makes 2 a hole and it goes next; 8 does the same for 7.
  assert.deepEqual(sent, [0, 1, 2, 3, 2, 4, 5, 6, 7, 8, 7, 9]);
  assert.deepEqual(done, [1, 2]);
  assert.equal(req.stats.retransmittedPackets, 2);
  assert.equal(messagesSeen, 2);
  assert.equal(resp.stats.bytesDelivered, 10_000);
  assert.equal(resp.stats.outOfSequence, 2);
});
