/**
 * The sockets of a host's native programs (issue 25), as the program sees them: its requests
 * RL_SOCK_* (packages/native/c/include/rocelab_sockets.h, sockets.c) turned into operations on the
 * host's byte streams (packages/host/src/streams.ts), which carry them through the fabric. Pure:
 * the program host calls `handle` for each request and gets an answer now or a wait; it re-checks
 * the waits of program P when `onChange(P)` says something P could see changed (and, for a wait
 * with `deadlinePs`, once virtual time reaches it).
 *
 * A pod socket is named by a number the host gives it (never 0), owned by one program: another
 * program's number is EBADF. A connect to an address that is not a pod host's is answered
 * RL_SOCK_PASSTHROUGH and the program's real connect() goes ahead (outside rocelab's control and
 * not reproducible). Binds are checked when the socket listens or connects (EADDRINUSE there).
 */
import type { HostStreams, StreamHandle } from '@rocelab/host';
import { StreamAddressInUse } from '@rocelab/host';
import { socketsProto as P } from '@rocelab/native';

/** Linux's errno values (asm-generic/errno*.h) a socket call can fail with here. */
export const ERRNO = {
  EBADF: 9,
  EAGAIN: 11,
  EINVAL: 22,
  EPIPE: 32,
  ENOTSOCK: 88,
  EOPNOTSUPP: 95,
  EADDRINUSE: 98,
  EADDRNOTAVAIL: 99,
  ECONNRESET: 104,
  EISCONN: 106,
  ENOTCONN: 107,
  ETIMEDOUT: 110,
  ECONNREFUSED: 111,
} as const;

export interface Answer {
  err: number;
  body?: Uint8Array;
}

/** A request that waits: answered (once) when `ready()` turns true; `deadlinePs`, when set, makes it ready at that virtual instant. */
export interface Waiter {
  ready(): boolean;
  answer(): Answer;
  deadlinePs?: number;
}

export type Outcome = Answer | { wait: Waiter };

/** What the sockets need of their host. */
export interface SocketsHost {
  streams: HostStreams;
  /** The host's IPv4 address (what INADDR_ANY means here). */
  ip: number;
  /** Whether `ip` is a pod host's address (its sockets go through the fabric). */
  isPodAddress(ip: number): boolean;
  nowPs(): number;
}

interface PodSocket {
  program: number;
  stream: StreamHandle;
  listener: boolean;
  /** The program shut its writing side down (a write is EPIPE). */
  shutWr: boolean;
  /** A nonblocking connect's outcome not yet read by SO_ERROR. */
  connecting: boolean;
}

const OK: Answer = { err: 0 };

export class ProgramSockets {
  private readonly sockets = new Map<number, PodSocket>();
  private readonly byStream = new Map<StreamHandle, number>();
  private nextSock = 1;

  constructor(
    private readonly host: SocketsHost,
    /** Something program `programId` could see changed: re-check its waits. */
    private readonly onChange: (programId: number) => void,
  ) {
    const before = host.streams.onChange;
    host.streams.onChange = (h) => {
      before?.(h);
      const sock = this.byStream.get(h);
      if (sock !== undefined) this.onChange(this.sockets.get(sock)!.program);
    };
  }

  /** One RL_SOCK_* request of `programId` (its body, after rl_hdr). Throws SocketsProtoError for a body that cannot be read. */
  handle(programId: number, type: number, body: Uint8Array): Outcome {
    switch (type) {
      case P.RL_SOCK.LISTEN:
        return this.listen(programId, P.decodeListen(body));
      case P.RL_SOCK.CONNECT:
        return this.connect(programId, P.decodeConnect(body));
      case P.RL_SOCK.ACCEPT: {
        const [sock, nonblock] = P.decodePair(body, 'rl_sock_accept');
        return this.accept(programId, sock, nonblock !== 0);
      }
      case P.RL_SOCK.SEND:
        return this.send(programId, P.decodeIo(body, true));
      case P.RL_SOCK.RECV:
        return this.recv(programId, P.decodeIo(body, false));
      case P.RL_SOCK.SHUTDOWN: {
        const [sock, how] = P.decodePair(body, 'rl_sock_shutdown');
        return this.shutdown(programId, sock, how);
      }
      case P.RL_SOCK.CLOSE: {
        const [sock] = P.decodePair(body, 'rl_sock_close');
        return this.close(programId, sock);
      }
      case P.RL_SOCK.POLL:
        return this.poll(programId, P.decodePoll(body));
      case P.RL_SOCK.NAME: {
        const [sock, peer] = P.decodePair(body, 'rl_sock_name');
        return this.name(programId, sock, peer !== 0);
      }
      case P.RL_SOCK.ERROR: {
        const [sock] = P.decodePair(body, 'rl_sock_close');
        return this.soError(programId, sock);
      }
      default:
        return { err: ERRNO.EOPNOTSUPP };
    }
  }

  /** The program exited: its sockets close as its descriptors would (a FIN after what it wrote; a listener's unaccepted connections reset). */
  closeAll(programId: number): void {
    for (const [sock, s] of [...this.sockets]) if (s.program === programId) this.forget(sock);
  }

  // --- the requests ----------------------------------------------------------------------------

  private listen(program: number, req: P.SockListen): Outcome {
    if (req.ip !== 0 && req.ip !== this.host.ip && !isLoopback(req.ip)) return { err: ERRNO.EADDRNOTAVAIL };
    if (req.port > 0xffff) return { err: ERRNO.EINVAL };
    let stream: StreamHandle;
    try {
      stream = this.host.streams.listen(req.port);
    } catch (e) {
      if (e instanceof StreamAddressInUse) return { err: ERRNO.EADDRINUSE };
      throw e;
    }
    const sock = this.add(program, stream, true);
    return { err: 0, body: P.encodeRep({ sock, ip: req.ip, port: this.host.streams.status(stream).localPort, flags: 0 }) };
  }

  private connect(program: number, req: P.SockConnect): Outcome {
    if (!this.host.isPodAddress(req.ip)) return { err: 0, body: P.encodeRep({ sock: 0, ip: 0, port: 0, flags: P.RL_SOCK_PASSTHROUGH }) };
    if (req.port === 0 || req.port > 0xffff) return { err: ERRNO.EINVAL };
    if (req.bindIp !== 0 && req.bindIp !== this.host.ip && !isLoopback(req.bindIp)) return { err: ERRNO.EADDRNOTAVAIL };
    let stream: StreamHandle;
    try {
      stream = this.host.streams.connect(req.ip, req.port, req.bindPort);
    } catch (e) {
      if (e instanceof StreamAddressInUse) return { err: ERRNO.EADDRINUSE };
      throw e;
    }
    const sock = this.add(program, stream, false);
    const rep = (flags: number) => P.encodeRep({ sock, ip: this.host.ip, port: this.host.streams.status(stream).localPort, flags });
    if (req.nonblock) {
      this.sockets.get(sock)!.connecting = true;
      return { err: 0, body: rep(P.RL_SOCK_INPROGRESS) };
    }
    const status = () => this.host.streams.status(stream);
    return {
      wait: {
        ready: () => status().state !== 'synSent' && status().state !== 'synReceived',
        answer: () => {
          const err = errnoOf(status().error);
          // The socket stays the program's until it closes it (as the descriptor does), failed or not.
          return err === 0 ? { err: 0, body: rep(0) } : { err, body: rep(0) };
        },
      },
    };
  }

  private accept(program: number, sock: number, nonblock: boolean): Outcome {
    const s = this.own(program, sock);
    if (s === null) return { err: ERRNO.EBADF };
    if (!s.listener) return { err: ERRNO.EINVAL };
    const take = (): Answer => {
      const h = this.host.streams.accept(s.stream)!;
      const st = this.host.streams.status(h);
      return { err: 0, body: P.encodeRep({ sock: this.add(program, h, false), ip: st.remoteIp, port: st.remotePort, flags: 0 }) };
    };
    const ready = () => !this.sockets.has(sock) || this.host.streams.status(s.stream).acceptable > 0;
    if (ready() && this.sockets.has(sock)) return take();
    if (nonblock) return { err: ERRNO.EAGAIN };
    return { wait: { ready, answer: () => (this.sockets.has(sock) ? take() : { err: ERRNO.EBADF }) } };
  }

  private send(program: number, req: P.SockIo): Outcome {
    const s = this.own(program, req.sock);
    if (s === null) return { err: ERRNO.EBADF };
    if (s.listener) return { err: ERRNO.ENOTCONN };
    const status = () => this.host.streams.status(s.stream);
    const attempt = (): Answer | null => {
      const st = status();
      if (st.error !== null) return { err: errnoOf(st.error) };
      if (s.shutWr) return { err: ERRNO.EPIPE };
      if (st.state !== 'established') return st.state === 'synSent' ? null : { err: ERRNO.ENOTCONN };
      if (req.data.length === 0) return { err: 0, body: P.encodeCount(0) };
      const n = this.host.streams.write(s.stream, req.data);
      return n === 0 ? null : { err: 0, body: P.encodeCount(n) };
    };
    const now = attempt();
    if (now !== null) return now;
    if (req.nonblock) return { err: ERRNO.EAGAIN };
    return { wait: { ready: () => !this.sockets.has(req.sock) || status().error !== null || (status().state === 'established' && status().sendSpace > 0), answer: () => (this.sockets.has(req.sock) ? attempt() ?? { err: ERRNO.EAGAIN } : { err: ERRNO.EBADF }) } };
  }

  private recv(program: number, req: P.SockIo): Outcome {
    const s = this.own(program, req.sock);
    if (s === null) return { err: ERRNO.EBADF };
    if (s.listener) return { err: ERRNO.ENOTCONN };
    const status = () => this.host.streams.status(s.stream);
    const can = () => {
      const st = status();
      return st.readable > 0 || st.atEof || st.error !== null;
    };
    const take = (): Answer => {
      const st = status();
      if (st.readable > 0) {
        const bytes = this.host.streams.read(s.stream, Math.min(req.len, P.RL_SOCK_MAX_IO));
        return { err: 0, body: P.encodeCount(bytes.length, bytes) };
      }
      if (st.error !== null) return { err: errnoOf(st.error) };
      return { err: 0, body: P.encodeCount(0) }; // end of file
    };
    if (req.len === 0) return { err: 0, body: P.encodeCount(0) };
    if (can()) return take();
    if (req.nonblock) return { err: ERRNO.EAGAIN };
    return { wait: { ready: () => !this.sockets.has(req.sock) || can(), answer: () => (this.sockets.has(req.sock) ? take() : { err: ERRNO.EBADF }) } };
  }

  private shutdown(program: number, sock: number, how: number): Outcome {
    const s = this.own(program, sock);
    if (s === null) return { err: ERRNO.EBADF };
    if (how > 2) return { err: ERRNO.EINVAL };
    if (s.listener) return { err: ERRNO.ENOTCONN };
    if (how === 0) return OK; // SHUT_RD: nothing travels; later reads still see what arrives
    if (!s.shutWr) {
      s.shutWr = true;
      this.host.streams.shutdown(s.stream);
    }
    return OK;
  }

  private close(program: number, sock: number): Outcome {
    if (this.own(program, sock) === null) return { err: ERRNO.EBADF };
    this.forget(sock);
    return OK;
  }

  private poll(program: number, req: P.SockPoll): Outcome {
    for (const f of req.fds) if (f.sock !== 0 && this.own(program, f.sock) === null) f.revents = P.POLL.nval;
    const look = (): number => {
      let ready = 0;
      for (const f of req.fds) {
        f.revents = f.sock === 0 ? 0 : this.sockets.has(f.sock) ? this.revents(this.sockets.get(f.sock)!, f.events) : P.POLL.nval;
        if (f.revents !== 0) ready++;
      }
      return ready;
    };
    const answer = (): Answer => {
      const n = look();
      return { err: 0, body: P.encodeCount(n, P.encodePollFds(req.fds)) };
    };
    if (look() > 0 || req.timeoutPs === 0n) return answer();
    const waiter: Waiter = { ready: () => look() > 0 || (waiter.deadlinePs !== undefined && this.host.nowPs() >= waiter.deadlinePs), answer };
    if (req.timeoutPs !== P.RL_SOCK_FOREVER) waiter.deadlinePs = this.host.nowPs() + Number(req.timeoutPs);
    return { wait: waiter };
  }

  private name(program: number, sock: number, peer: boolean): Outcome {
    const s = this.own(program, sock);
    if (s === null) return { err: ERRNO.EBADF };
    const st = this.host.streams.status(s.stream);
    if (peer) {
      if (s.listener || st.state === 'synSent') return { err: ERRNO.ENOTCONN };
      return { err: 0, body: P.encodeRep({ sock, ip: st.remoteIp, port: st.remotePort, flags: 0 }) };
    }
    return { err: 0, body: P.encodeRep({ sock, ip: this.host.ip, port: st.localPort, flags: 0 }) };
  }

  /** SO_ERROR: a nonblocking connect's outcome (once), or the connection's failure. */
  private soError(program: number, sock: number): Outcome {
    const s = this.own(program, sock);
    if (s === null) return { err: ERRNO.EBADF };
    if (s.listener) return { err: 0, body: P.encodeCount(0) };
    const st = this.host.streams.status(s.stream);
    if (s.connecting && (st.state === 'synSent' || st.state === 'synReceived')) return { err: 0, body: P.encodeCount(0) };
    s.connecting = false;
    return { err: 0, body: P.encodeCount(errnoOf(st.error)) };
  }

  // --- inside ----------------------------------------------------------------------------------

  private revents(s: PodSocket, events: number): number {
    const st = this.host.streams.status(s.stream);
    if (s.listener) return st.acceptable > 0 ? events & P.POLL.in : 0;
    let r = 0;
    if (st.error !== null) r |= P.POLL.err | P.POLL.hup | P.POLL.in | P.POLL.out;
    if (st.readable > 0 || st.atEof) r |= P.POLL.in;
    if (st.atEof) r |= P.POLL.rdhup;
    if (st.state === 'established' && st.sendSpace > 0 && !s.shutWr) r |= P.POLL.out;
    if (st.atEof && s.shutWr) r |= P.POLL.hup;
    // POLLERR and POLLHUP are reported whether asked for or not (poll(2)).
    return r & (events | P.POLL.err | P.POLL.hup);
  }

  private own(program: number, sock: number): PodSocket | null {
    const s = this.sockets.get(sock);
    return s === undefined || s.program !== program ? null : s;
  }

  private add(program: number, stream: StreamHandle, listener: boolean): number {
    const sock = this.nextSock++;
    this.sockets.set(sock, { program, stream, listener, shutWr: false, connecting: false });
    this.byStream.set(stream, sock);
    return sock;
  }

  private forget(sock: number): void {
    const s = this.sockets.get(sock)!;
    this.sockets.delete(sock);
    this.byStream.delete(s.stream);
    this.host.streams.close(s.stream);
  }
}

function errnoOf(error: 'reset' | 'timedOut' | null): number {
  switch (error) {
    case null:
      return 0;
    case 'reset':
      return ERRNO.ECONNRESET;
    case 'timedOut':
      return ERRNO.ETIMEDOUT;
  }
}

/** 127.0.0.0/8: a program binding loopback means its own host here. */
function isLoopback(ip: number): boolean {
  return ip >>> 24 === 127;
}
