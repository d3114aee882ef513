import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TcpFlag } from '@rocelab/wire';
import { ByteQueue } from './byte-queue.js';
import { STREAM_DEFAULTS, StreamConnection, type Segment } from './stream.js';

const CONFIG = { ...STREAM_DEFAULTS, mssBytes: 1000, windowBytes: 4000 };
const RTO = CONFIG.initialRtoPs;
const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);

/** Two ends and a wire between them: `lose` decides per segment (in the order sent) whether it is lost. */
function pair(lose: (seg: Segment, from: 'c' | 's') => boolean = () => false) {
  const c = new StreamConnection(CONFIG, 'client');
  let s: StreamConnection | null = null;
  const log: string[] = [];
  const verdicts: string[] = [];
  let nowPs = 0;
  /** Runs the exchange until nothing moves, advancing time to the next timer when idle; at most `limit` rounds. */
  const settle = (limit = 200) => {
    for (let round = 0; round < limit; round++) {
      let moved = false;
      for (const [from, to] of [['c', 's'], ['s', 'c']] as const) {
        const src = from === 'c' ? c : s;
        if (src === null) continue;
        for (const seg of src.take(nowPs)) {
          moved = true;
          log.push(`${from}:${flags(seg.flags)}${seg.data.length > 0 ? `(${seg.data.length})` : ''}`);
          if (lose(seg, from)) continue;
          if (to === 's' && s === null) {
            s = new StreamConnection(CONFIG, 'server', seg);
            continue;
          }
          verdicts.push((to === 's' ? s! : c).onSegment(nowPs, seg));
        }
      }
      if (moved) continue;
      const deadlines = [c.deadlinePs(), s?.deadlinePs() ?? null].filter((d): d is number => d !== null);
      if (deadlines.length === 0) return;
      nowPs = Math.min(...deadlines);
      c.onTimer(nowPs);
      s?.onTimer(nowPs);
    }
  };
  return { c, server: () => s!, log, verdicts, settle, now: () => nowPs };
}

function flags(f: number): string {
  return [[TcpFlag.syn, 'S'], [TcpFlag.fin, 'F'], [TcpFlag.rst, 'R'], [TcpFlag.ack, '.']].filter(([bit]) => (f & (bit as number)) !== 0).map(([, n]) => n).join('');
}

test('the handshake is SYN, SYN-ACK, ACK; then bytes go both ways, in order, and each segment is acknowledged', () => {
  const p = pair();
  p.settle();
  assert.deepEqual(p.log, ['c:S', 's:S.', 'c:.']);
  assert.equal(p.c.state, 'established');
  assert.equal(p.server().state, 'established');
  assert.equal(p.c.write(text('QPN 0x11 PSN 0x22')), 17);
  p.settle();
  assert.equal(p.server().state, 'established');
  assert.equal(str(p.server().read(100)), 'QPN 0x11 PSN 0x22');
  assert.equal(p.server().write(text('QPN 0x33')), 8);
  p.settle();
  assert.equal(str(p.c.read(3)), 'QPN');
  assert.equal(str(p.c.read(100)), ' 0x33');
  assert.deepEqual(p.log, ['c:S', 's:S.', 'c:.', 'c:.(17)', 's:.', 's:.(8)', 'c:.']);
  assert.ok(p.verdicts.every((v) => v === 'accepted'));
  assert.equal(p.now(), 0, 'no timer ever ran');
  assert.equal(p.c.deadlinePs(), null);
});

test('a long write is cut into MSS segments within the window, and arrives whole', () => {
  const p = pair();
  const data = Uint8Array.from({ length: 10_500 }, (_, i) => i & 0xff);
  p.settle();
  assert.equal(p.c.write(data), data.length);
  p.settle();
  assert.deepEqual(p.server().read(20_000), data);
  assert.equal(p.log.filter((l) => l.startsWith('c:.(')).length, 11);
});

test('a lost segment is sent again when the timer runs out (go-back-N), and its successors too; duplicates and out-of-order ones are refused', () => {
  let n = 0;
  const p = pair((seg, from) => from === 'c' && seg.data.length > 0 && n++ === 1); // the second data segment, once
  p.settle();
  const data = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) & 0xff);
  p.c.write(data);
  p.settle();
  assert.deepEqual(p.server().read(5000), data);
  assert.equal(p.now(), RTO, 'one timeout');
  assert.deepEqual(p.log.filter((l) => l.startsWith('c:.(')), ['c:.(1000)', 'c:.(1000)', 'c:.(1000)', 'c:.(1000)', 'c:.(1000)']);
  assert.equal(p.verdicts.filter((v) => v === 'duplicate').length, 1, 'the third segment came out of order');
  assert.equal(p.c.stats.retries, 0, 'progress reset the count');
});

test('a lost SYN and a lost SYN-ACK are sent again; a SYN stays retried for ever while a data segment gives up (ETIMEDOUT)', () => {
  let lostSyn = false;
  let lostSynAck = false;
  const p = pair((seg, from) => {
    if (from === 'c' && seg.flags === TcpFlag.syn && !lostSyn) return (lostSyn = true);
    if (from === 's' && seg.flags === (TcpFlag.syn | TcpFlag.ack) && !lostSynAck) return (lostSynAck = true);
    return false;
  });
  p.settle();
  assert.equal(p.c.state, 'established');
  assert.deepEqual(p.log, ['c:S', 'c:S', 's:S.', 's:S.', 'c:.']);
  assert.equal(p.now(), 2 * RTO, 'the client\'s SYN at RTO, the server\'s SYN-ACK an RTO later');

  const lonely = new StreamConnection(CONFIG, 'client');
  let now = 0;
  for (let i = 0; i < 40; i++) {
    assert.equal(lonely.take(now).length, 1);
    now = lonely.deadlinePs()!;
    lonely.onTimer(now);
  }
  assert.equal(lonely.state, 'synSent', 'still trying');
  assert.equal(lonely.deadlinePs(), null);
  assert.ok(now < 40 * CONFIG.maxRtoPs && now > 30 * CONFIG.maxRtoPs, 'the RTO doubled up to its cap');

  const q = pair((seg, from) => from === 'c' && seg.data.length > 0);
  q.settle();
  q.c.write(text('never'));
  q.settle(500);
  assert.equal(q.c.state, 'failed');
  assert.equal(q.c.error, 'timedOut');
  assert.equal(q.c.sendSpace, 0);
});

test('close: each side\'s FIN after its data; EOF after the last byte is read; both finish once both FINs are acknowledged', () => {
  const p = pair();
  p.settle();
  p.c.write(text('bye'));
  p.c.shutdown();
  p.settle();
  const s = p.server();
  assert.equal(s.atEof, false, 'bytes first');
  assert.equal(str(s.read(10)), 'bye');
  assert.equal(s.atEof, true);
  assert.equal(p.c.finished, false, 'the server has not closed');
  assert.throws(() => p.c.write(text('x')), /write after shutdown/);
  s.write(text('ok'));
  s.shutdown();
  p.settle();
  assert.equal(str(p.c.read(10)), 'ok');
  assert.ok(p.c.atEof && p.c.finished && s.finished);
  assert.deepEqual(p.log, ['c:S', 's:S.', 'c:.', 'c:.(3)', 'c:F.', 's:.', 's:.(2)', 's:F.', 'c:.'], 'one ACK covers the bytes and the FIN that came together');
});

test('a lost FIN is sent again; a RST fails the connection at once', () => {
  let lost = false;
  const p = pair((seg, from) => from === 'c' && (seg.flags & TcpFlag.fin) !== 0 && !lost && (lost = true));
  p.settle();
  p.c.shutdown();
  p.settle();
  assert.equal(p.server().atEof, true);
  assert.equal(p.now(), RTO);
  const verdict = p.server().onSegment(p.now(), { seq: 0, ack: 0, flags: TcpFlag.rst, data: new Uint8Array(0) });
  assert.equal(verdict, 'accepted');
  assert.equal(p.server().state, 'failed');
  assert.equal(p.server().error, 'reset');
});

test('a writer is held to the send buffer: a write takes what fits, and space comes back as bytes are acknowledged', () => {
  const small = { ...CONFIG, sendBufferBytes: 2500 };
  const c = new StreamConnection(small, 'client');
  const [syn] = c.take(0);
  const s = new StreamConnection(small, 'server', syn!);
  for (const seg of s.take(0)) c.onSegment(0, seg);
  assert.equal(c.write(new Uint8Array(4000)), 2500);
  assert.equal(c.sendSpace, 0);
  for (const seg of c.take(0)) s.onSegment(0, seg);
  for (const seg of s.take(0)) c.onSegment(0, seg);
  assert.equal(c.sendSpace, 2500);
  assert.equal(s.readable, 2500);
});

test('ByteQueue keeps chunks and copies only what it hands out', () => {
  const q = new ByteQueue();
  q.push(text('abc'));
  q.push(text('defgh'));
  assert.equal(str(q.peek(2, 4)), 'cdef');
  q.drop(4);
  assert.equal(str(q.take(10)), 'efgh');
  assert.equal(q.length, 0);
  assert.throws(() => q.peek(0, 1), /outside its 0 bytes/);
});
