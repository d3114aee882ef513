// The TCP-like transport's state machines against hand-computed cases (issue 14).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TcpReceiver, TcpSender, type TcpConfig, type TcpSegment } from './tcp.js';

const MS = 1_000_000_000;
const CONFIG: TcpConfig = { mssBytes: 1000, initialCwndSegments: 10, initialRtoPs: 1000 * MS, minRtoPs: 200 * MS, maxRtoPs: 120_000 * MS, dctcpGain: null };

/**
 * A path with a fixed one-way delay D and no rate limit: what is sent at t arrives at t + D and
 * its ACK is back at t + 2D. `lose(seg)` drops a segment on its way. After every ACK the sender
 * sends what it may, as a NIC would. Returns cwnd after each ACK.
 */
function run(sender: TcpSender, receiver: TcpReceiver, lose: (s: TcpSegment) => boolean, ce: (s: TcpSegment) => boolean = () => false): number[] {
  const D = 10_000_000; // 10 µs
  const trace: number[] = [];
  let now = 0;
  let inFlight: Array<{ at: number; seg: TcpSegment }> = [];
  const sendAll = () => {
    for (let s = sender.nextSegment(now); s !== null; s = sender.nextSegment(now)) inFlight.push({ at: now + D, seg: s });
  };
  sendAll();
  for (let round = 0; round < 100 && inFlight.length > 0; round++) {
    const arriving = inFlight;
    inFlight = [];
    now = arriving[0]!.at + D; // the ACKs of this flight come back together, in order
    for (const { seg } of arriving) {
      if (lose(seg)) continue;
      const { ack, ece } = receiver.onSegment(seg.seq, seg.lengthBytes, ce(seg));
      sender.onAck(now, ack, ece);
      trace.push(sender.cwnd);
      sendAll();
    }
  }
  return trace;
}

test('NewReno after one loss: slow start to 20 segments, fast retransmit at the third duplicate, inflation, a full ACK, then congestion avoidance', () => {
  const sender = new TcpSender(CONFIG);
  const receiver = new TcpReceiver();
  sender.write(40_000);
  let lost = false;
  const trace = run(sender, receiver, (s) => {
    if (s.seq !== 10_000 || s.retransmission || lost) return false;
    return (lost = true);
  });
  // Round 0: 10 ACKs, each +1 MSS (slow start): 11,000 … 20,000; each lets two new segments go (10,000–29,000).
  assert.deepEqual(trace.slice(0, 10), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map((k) => k * 1000));
  // Round 1: 10,000 is lost; 19 segments after it make 19 duplicate ACKs. The third: ssthresh =
  // flight (20,000) / 2 = 10,000, cwnd = ssthresh + 3 MSS = 13,000, 10,000 resent. Each further
  // duplicate inflates cwnd by 1 MSS: 14,000 … 29,000; from 21,000 on, each lets one new segment go.
  assert.deepEqual(trace.slice(10, 29), [20, 20, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29].map((k) => k * 1000));
  // Round 2: the resent 10,000 fills the hole: ACK 30,000 ≥ recover (30,000) is a full ACK:
  // cwnd = min(ssthresh, max(flight 9,000, MSS) + MSS) = 10,000. Then congestion avoidance:
  // + ⌊MSS²/cwnd⌋ per ACK for the nine segments sent in recovery.
  const ca = [10_000];
  for (let i = 0; i < 9; i++) ca.push(ca.at(-1)! + Math.floor(1e6 / ca.at(-1)!));
  assert.deepEqual(trace.slice(29, 39), ca);
  // Round 3: the last segment (39,000, sent after the full ACK) is acknowledged.
  assert.deepEqual(trace.slice(39), [ca.at(-1)! + Math.floor(1e6 / ca.at(-1)!)]);
  assert.equal(trace.at(-1), 10_956);
  assert.equal(sender.ssthresh, 10_000);
  assert.deepEqual({ ...sender.stats }, { segmentsSent: 41, retransmittedSegments: 1, fastRetransmits: 1, rtoExpirations: 0, cwndCuts: 0 });
  assert.equal(receiver.stats.deliveredBytes, 40_000);
});

test('a partial ACK in recovery resends the next hole at once and deflates the window', () => {
  const sender = new TcpSender(CONFIG);
  const receiver = new TcpReceiver();
  sender.write(40_000);
  const firstTry = new Set([10_000, 12_000]);
  const trace = run(sender, receiver, (s) => !s.retransmission && firstTry.delete(s.seq));
  // The resent 10,000 brings ACK 12,000 (< recover 30,000): a partial ACK. 12,000 goes again at
  // once instead of waiting for three more duplicates or an RTO.
  assert.equal(sender.stats.fastRetransmits, 1);
  assert.equal(sender.stats.retransmittedSegments, 2);
  assert.equal(sender.stats.rtoExpirations, 0);
  assert.equal(receiver.stats.deliveredBytes, 40_000);
  assert.ok(trace.length > 0);
});

test('the RTO: one MSS of window, resend from snd.una, back-off doubled; the RTT samples set it after RFC 6298', () => {
  const sender = new TcpSender(CONFIG);
  sender.write(3000);
  const segs = [sender.nextSegment(0)!, sender.nextSegment(0)!, sender.nextSegment(0)!];
  assert.deepEqual(segs.map((s) => s.seq), [0, 1000, 2000]);
  assert.equal(sender.deadlinePs(), 1000 * MS, 'the initial RTO');
  // The first sample (R = 30 ms) sets SRTT = R, RTTVAR = R/2: RTO = R + 4·R/2 = 90 ms, raised to the 200 ms minimum.
  sender.onAck(30 * MS, 1000, false);
  assert.equal(sender.currentRtoPs, 200 * MS);
  assert.equal(sender.deadlinePs(), 230 * MS);
  sender.onTimer(230 * MS);
  assert.equal(sender.stats.rtoExpirations, 1);
  assert.equal(sender.cwnd, 1000);
  assert.equal(sender.ssthresh, 2000, 'max(flight / 2, 2 MSS)');
  assert.equal(sender.currentRtoPs, 400 * MS);
  const again = sender.nextSegment(230 * MS)!;
  assert.deepEqual(again, { seq: 1000, lengthBytes: 1000, retransmission: true });
  assert.equal(sender.nextSegment(230 * MS), null, 'one MSS of window');
});

test('DCTCP: α after an unmarked and a partly marked window, and one cut per window by α/2', () => {
  const sender = new TcpSender({ ...CONFIG, dctcpGain: 1 / 16 });
  sender.write(10_000);
  for (let i = 0; i < 10; i++) sender.nextSegment(0);
  // ACK 1,000, unmarked, ends the first window (everything sent before it was 0 bytes): α = (15/16)·1.
  sender.onAck(1, 1000, false);
  assert.equal(sender.alpha, 15 / 16);
  assert.equal(sender.cwnd, 11_000);
  // ACKs 2,000 … 6,000 echo CE: the first cuts cwnd by α/2 once, ⌊11,000 · (1 − 15/32)⌋ = 5,843.
  for (let ack = 2000; ack <= 6000; ack += 1000) sender.onAck(2, ack, true);
  assert.equal(sender.stats.cwndCuts, 1);
  assert.equal(sender.ssthresh, 5843);
  // ACKs 7,000 … 10,000 unmarked; 10,000 ends the window: F = 5,000 marked / 9,000 acknowledged.
  for (let ack = 7000; ack <= 10_000; ack += 1000) sender.onAck(3, ack, false);
  assert.equal(sender.alpha, (15 / 16) * (15 / 16) + (1 / 16) * (5000 / 9000));
  assert.equal(sender.cwnd, 5843, 'no growth until the window it was cut in is acknowledged');
  sender.write(1000);
  sender.nextSegment(3);
  sender.onAck(4, 11_000, false);
  assert.equal(sender.cwnd, 5843 + Math.floor(1e6 / 5843), 'then congestion avoidance');
});

test('the receiver holds out-of-order segments, delivers them when the hole fills, and echoes CE per segment', () => {
  const r = new TcpReceiver();
  assert.deepEqual(r.onSegment(0, 1000, false), { ack: 1000, ece: false });
  assert.deepEqual(r.onSegment(2000, 1000, true), { ack: 1000, ece: true });
  assert.deepEqual(r.onSegment(4000, 1000, false), { ack: 1000, ece: false });
  assert.deepEqual(r.onSegment(1000, 1000, false), { ack: 3000, ece: false });
  assert.deepEqual(r.onSegment(3000, 1000, false), { ack: 5000, ece: false });
  assert.deepEqual(r.onSegment(0, 1000, false), { ack: 5000, ece: false });
  assert.deepEqual({ ...r.stats }, { segments: 6, outOfOrder: 2, duplicates: 1, deliveredBytes: 5000 });
});

test('bad settings are refused with every problem named', () => {
  assert.throws(() => new TcpSender({ ...CONFIG, mssBytes: 0, minRtoPs: 5 * 120_000 * MS, dctcpGain: 2 }), /TCP config: mssBytes must be a positive integer, got 0; maxRtoPs must be an integer ≥ minRtoPs.*; dctcpGain must be in \(0, 1\] or null, got 2/);
});

test("the receiver's window caps what is out beyond snd.una, whatever the congestion window", () => {
  const sender = new TcpSender({ ...CONFIG, receiveWindowBytes: 2500 });
  sender.write(10_000);
  const sent = [];
  for (let s = sender.nextSegment(0); s !== null; s = sender.nextSegment(0)) sent.push([s.seq, s.lengthBytes]);
  assert.deepEqual(sent, [[0, 1000], [1000, 1000], [2000, 500]], 'cwnd is 10 segments; the window 2.5');
  sender.onAck(1, 1000, false);
  assert.deepEqual(sender.nextSegment(1), { seq: 2500, lengthBytes: 1000, retransmission: false });
});
