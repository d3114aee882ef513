import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Host } from '@rocelab/host';
import { socketsProto as P } from '@rocelab/native';
import { buildEngine } from './models.js';
import { podContext } from './pod-context.js';
import { ERRNO, ProgramSockets, type Answer, type Outcome, type Waiter } from './program-sockets.js';
import { indexOf, onePod } from './testing.js';

const US = 1_000_000;
const text = (s: string) => new TextEncoder().encode(s);
const u32 = (b: Uint8Array, i: number) => new DataView(b.buffer, b.byteOffset).getUint32(4 * i, true);

/** Two hosts of a pod, each with its ProgramSockets, and a minimal program host: the waits of a program are re-checked when its sockets say so. */
function setup() {
  const pod = onePod();
  const pc = podContext(pod, pod.seed);
  const engine = buildEngine(pc, pod.nodes.map((n) => n.index));
  const hostOf = (name: string) => engine.model(indexOf(pod, name)) as Host;
  const ips = new Set(pod.nodes.filter((n) => n.role === 'host').map((n) => n.ip!));
  const waits = new Map<number, { waiter: Waiter; done: (a: Answer) => void }>();
  const check = (program: number) => {
    const w = waits.get(program);
    if (w !== undefined && w.waiter.ready()) {
      waits.delete(program);
      w.done(w.waiter.answer());
    }
  };
  const sockets = (name: string) => {
    const host = hostOf(name);
    return new ProgramSockets({ streams: host.streams, ip: pod.nodes[indexOf(pod, name)]!.ip!, isPodAddress: (ip) => ips.has(ip), nowPs: () => engine.horizonPs }, check);
  };
  /** A request of `program`: its answer now, or once its wait is ready (read it after running the engine). */
  const call = (ps: ProgramSockets, program: number, type: number, body: Uint8Array) => {
    const box: { answer: Answer | null } = { answer: null };
    const outcome: Outcome = ps.handle(program, type, body);
    if ('wait' in outcome) waits.set(program, { waiter: outcome.wait, done: (a) => (box.answer = a) });
    else box.answer = outcome;
    return box;
  };
  return { pod, engine, sockets, call, check, ip: (name: string) => pod.nodes[indexOf(pod, name)]!.ip! };
}

test('a client that connects before its server listens waits; accept, send and recv carry bytes both ways; close gives EOF', () => {
  const { engine, sockets, call, ip } = setup();
  const s1 = sockets('h1');
  const s2 = sockets('h2');
  // Program 1 on h1 connects (blocking) to h2:18515 before anyone listens there.
  const conn = call(s1, 1, P.RL_SOCK.CONNECT, P.encodeU32s([0, 0, ip('h2'), 18_515, 0, 0]));
  engine.runUntil(20 * US);
  assert.equal(conn.answer, null, 'still waiting: the SYN is held');
  const listen = call(s2, 2, P.RL_SOCK.LISTEN, P.encodeU32s([0, 18_515, 5, 0]));
  assert.equal(listen.answer!.err, 0);
  const lsock = u32(listen.answer!.body!, 0);
  assert.equal(u32(listen.answer!.body!, 2), 18_515);
  const acc = call(s2, 2, P.RL_SOCK.ACCEPT, P.encodeU32s([lsock, 0]));
  engine.runUntil(40 * US);
  assert.equal(conn.answer!.err, 0);
  const csock = u32(conn.answer!.body!, 0);
  assert.deepEqual([u32(conn.answer!.body!, 1), u32(conn.answer!.body!, 2)], [ip('h1'), 32_768]);
  assert.equal(acc.answer!.err, 0);
  const asock = u32(acc.answer!.body!, 0);
  assert.deepEqual([u32(acc.answer!.body!, 1), u32(acc.answer!.body!, 2)], [ip('h1'), 32_768]);

  // Server reads (blocking) before the client writes.
  const rd = call(s2, 2, P.RL_SOCK.RECV, P.encodeU32s([asock, 100, 0, 0]));
  const msg = text('0000:000102:5ee2:00000000:0000');
  const wr = call(s1, 1, P.RL_SOCK.SEND, new Uint8Array([...P.encodeU32s([csock, msg.length, 0, 0]), ...msg]));
  assert.equal(u32(wr.answer!.body!, 0), msg.length);
  engine.runUntil(60 * US);
  assert.equal(u32(rd.answer!.body!, 0), msg.length);
  assert.deepEqual(rd.answer!.body!.subarray(8), msg);
  // Nonblocking recv on an empty socket: EAGAIN; poll with a timeout wakes at its deadline.
  assert.equal(call(s1, 1, P.RL_SOCK.RECV, P.encodeU32s([csock, 100, 1, 0])).answer!.err, ERRNO.EAGAIN);
  const pollBody = (sock: number, timeoutPs: bigint) => {
    const b = new Uint8Array(16 + 8);
    const v = new DataView(b.buffer);
    v.setUint32(0, 1, true);
    v.setBigUint64(8, timeoutPs, true);
    v.setUint32(16, sock, true);
    v.setUint16(20, P.POLL.in, true);
    return b;
  };
  const outcome = s1.handle(1, P.RL_SOCK.POLL, pollBody(csock, 5n * BigInt(US)));
  assert.ok('wait' in outcome);
  assert.equal(outcome.wait.deadlinePs, engine.horizonPs + 5 * US);
  // Server closes: client's poll sees POLLIN (EOF), recv returns 0.
  assert.equal(call(s2, 2, P.RL_SOCK.CLOSE, P.encodeU32s([asock, 0])).answer!.err, 0);
  engine.runUntil(70 * US);
  assert.ok(outcome.wait.ready());
  const polled = outcome.wait.answer().body!;
  assert.equal(u32(polled, 0), 1);
  assert.equal(new DataView(polled.buffer).getUint16(8 + 6, true) & P.POLL.in, P.POLL.in);
  const eof = call(s1, 1, P.RL_SOCK.RECV, P.encodeU32s([csock, 100, 0, 0]));
  assert.equal(u32(eof.answer!.body!, 0), 0);
  // Another program's socket number is not this one's.
  assert.equal(call(s1, 9, P.RL_SOCK.RECV, P.encodeU32s([csock, 100, 0, 0])).answer!.err, ERRNO.EBADF);
  assert.equal(call(s2, 2, P.RL_SOCK.LISTEN, P.encodeU32s([0, 18_515, 5, 0])).answer!.err, ERRNO.EADDRINUSE);
  assert.equal(call(s2, 2, P.RL_SOCK.LISTEN, P.encodeU32s([0x0a0a0a0a, 1, 5, 0])).answer!.err, ERRNO.EADDRNOTAVAIL);
  s1.closeAll(1);
  s2.closeAll(2);
  engine.runUntil(100 * US);
});

test('a connect to an address outside the pod passes through; a nonblocking connect is in progress until POLLOUT, then SO_ERROR reads 0', () => {
  const { engine, sockets, call, ip } = setup();
  const s1 = sockets('h1');
  const s2 = sockets('h2');
  const out = call(s1, 1, P.RL_SOCK.CONNECT, P.encodeU32s([0, 0, 0x08080808, 53, 0, 0]));
  assert.equal(u32(out.answer!.body!, 3), P.RL_SOCK_PASSTHROUGH);
  call(s2, 2, P.RL_SOCK.LISTEN, P.encodeU32s([ip('h2'), 7000, 1, 0]));
  const nb = call(s1, 1, P.RL_SOCK.CONNECT, P.encodeU32s([0, 0, ip('h2'), 7000, 1, 0]));
  assert.equal(u32(nb.answer!.body!, 3), P.RL_SOCK_INPROGRESS);
  const sock = u32(nb.answer!.body!, 0);
  assert.equal(call(s1, 1, P.RL_SOCK.SEND, new Uint8Array([...P.encodeU32s([sock, 1, 1, 0]), 1])).answer!.err, ERRNO.EAGAIN);
  engine.runUntil(20 * US);
  assert.equal(u32(call(s1, 1, P.RL_SOCK.ERROR, P.encodeU32s([sock, 0])).answer!.body!, 0), 0);
  const name = call(s1, 1, P.RL_SOCK.NAME, P.encodeU32s([sock, 1])).answer!;
  assert.deepEqual([u32(name.body!, 1), u32(name.body!, 2)], [ip('h2'), 7000]);
  assert.throws(() => s1.handle(1, P.RL_SOCK.SEND, P.encodeU32s([sock, 5, 0, 0])), /expected rl_sock_io and its 5 bytes/);
});
