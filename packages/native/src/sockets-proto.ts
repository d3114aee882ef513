/**
 * Sockets to pod addresses (issue 25): the channel messages 50..69, mirrored field for field from
 * `c/include/rocelab_sockets.h` (which asserts the sizes used here with `_Static_assert`). Bodies
 * only: the channel adds and strips `rl_hdr` and `rl_rep_hdr`. Little-endian, every field a u32
 * but `rl_sock_poll.timeout_ps` (u64) and the pollfd's two u16.
 */

export const RL_SOCK = {
  LISTEN: 50,
  CONNECT: 51,
  ACCEPT: 52,
  SEND: 53,
  RECV: 54,
  SHUTDOWN: 55,
  CLOSE: 56,
  POLL: 57,
  NAME: 58,
  ERROR: 59,
} as const;

export const RL_SOCK_MAX_IO = 65_000;
export const RL_SOCK_PASSTHROUGH = 1;
export const RL_SOCK_INPROGRESS = 2;
export const RL_SOCK_FOREVER = 2n ** 64n - 1n;

/** poll(2)'s event bits. */
export const POLL = { in: 0x001, out: 0x004, err: 0x008, hup: 0x010, nval: 0x020, rdhup: 0x2000 } as const;

/** Sizes of the structs, as the C header asserts them. */
export const SOCK_SIZES = { listen: 16, connect: 24, rep: 16, accept: 8, io: 16, count: 8, shutdown: 8, close: 8, poll: 16, pollfd: 8, name: 8 } as const;

/** A body shorter than its struct (or a count past its end): what the program sent cannot be read. */
export class SocketsProtoError extends Error {
  readonly code = 'proto';
}

function view(body: Uint8Array, size: number, what: string): DataView {
  if (body.length < size) throw new SocketsProtoError(`${what}: expected at least ${size} bytes, got ${body.length}`);
  return new DataView(body.buffer, body.byteOffset, body.length);
}

const u32s = (body: Uint8Array, count: number, size: number, what: string): number[] => {
  const v = view(body, size, what);
  return Array.from({ length: count }, (_, i) => v.getUint32(4 * i, true));
};

export interface SockListen { ip: number; port: number; backlog: number }
export function decodeListen(body: Uint8Array): SockListen {
  const [ip, port, backlog] = u32s(body, 3, SOCK_SIZES.listen, 'rl_sock_listen');
  return { ip: ip!, port: port!, backlog: backlog! };
}

export interface SockConnect { bindIp: number; bindPort: number; ip: number; port: number; nonblock: boolean }
export function decodeConnect(body: Uint8Array): SockConnect {
  const [bindIp, bindPort, ip, port, nonblock] = u32s(body, 5, SOCK_SIZES.connect, 'rl_sock_connect');
  return { bindIp: bindIp!, bindPort: bindPort!, ip: ip!, port: port!, nonblock: nonblock !== 0 };
}

export interface SockRep { sock: number; ip: number; port: number; flags: number }
export function encodeRep(r: SockRep): Uint8Array {
  const out = new Uint8Array(SOCK_SIZES.rep);
  const v = new DataView(out.buffer);
  v.setUint32(0, r.sock, true);
  v.setUint32(4, r.ip >>> 0, true);
  v.setUint32(8, r.port, true);
  v.setUint32(12, r.flags, true);
  return out;
}

/** rl_sock_accept, rl_sock_shutdown, rl_sock_close and rl_sock_name: two u32. */
export function decodePair(body: Uint8Array, what: string): [number, number] {
  const [a, b] = u32s(body, 2, 8, what);
  return [a!, b!];
}

export interface SockIo { sock: number; len: number; nonblock: boolean; data: Uint8Array }
/** rl_sock_io, and for SEND the `len` bytes after it. */
export function decodeIo(body: Uint8Array, withData: boolean): SockIo {
  const [sock, len, nonblock] = u32s(body, 3, SOCK_SIZES.io, 'rl_sock_io');
  if (withData && body.length !== SOCK_SIZES.io + len!) throw new SocketsProtoError(`RL_SOCK_SEND: expected rl_sock_io and its ${len} bytes (${SOCK_SIZES.io + len!}), got ${body.length}`);
  if (len! > RL_SOCK_MAX_IO) throw new SocketsProtoError(`rl_sock_io.len: expected at most ${RL_SOCK_MAX_IO}, got ${len}`);
  return { sock: sock!, len: len!, nonblock: nonblock !== 0, data: withData ? body.subarray(SOCK_SIZES.io) : new Uint8Array(0) };
}

/** rl_sock_count, and the bytes after it (RECV) or the pollfds (POLL). */
export function encodeCount(n: number, tail: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(SOCK_SIZES.count + tail.length);
  new DataView(out.buffer).setUint32(0, n, true);
  out.set(tail, SOCK_SIZES.count);
  return out;
}

export interface PollFd { sock: number; events: number; revents: number }
export interface SockPoll { timeoutPs: bigint; fds: PollFd[] }
export function decodePoll(body: Uint8Array): SockPoll {
  const v = view(body, SOCK_SIZES.poll, 'rl_sock_poll');
  const n = v.getUint32(0, true);
  if (body.length !== SOCK_SIZES.poll + n * SOCK_SIZES.pollfd) throw new SocketsProtoError(`RL_SOCK_POLL: expected rl_sock_poll and ${n} rl_sock_pollfd (${SOCK_SIZES.poll + n * SOCK_SIZES.pollfd} bytes), got ${body.length}`);
  const fds = Array.from({ length: n }, (_, i) => {
    const at = SOCK_SIZES.poll + i * SOCK_SIZES.pollfd;
    return { sock: v.getUint32(at, true), events: v.getUint16(at + 4, true), revents: 0 };
  });
  return { timeoutPs: v.getBigUint64(8, true), fds };
}

export function encodePollFds(fds: readonly PollFd[]): Uint8Array {
  const out = new Uint8Array(fds.length * SOCK_SIZES.pollfd);
  const v = new DataView(out.buffer);
  fds.forEach((f, i) => {
    v.setUint32(i * 8, f.sock, true);
    v.setUint16(i * 8 + 4, f.events, true);
    v.setUint16(i * 8 + 6, f.revents, true);
  });
  return out;
}

/** Test support: the request bodies a program's sockets.c sends. */
export function encodeU32s(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const v = new DataView(out.buffer);
  values.forEach((x, i) => v.setUint32(4 * i, x >>> 0, true));
  return out;
}
