/**
 * The channel protocol between a native program and its host (issue 25), mirrored field for field
 * from `c/include/rocelab_proto.h`: little-endian, fixed-layout structs with C's alignment. The
 * layout is computed here from the C types and checked against the compiler's by proto.test.ts
 * (`c/test/proto-layout.c` prints sizeof/offsetof).
 *
 * 64-bit fields that are addresses, work request ids, atomic operands or times decode as bigint;
 * the other 64-bit fields (lengths, a MAC, a rate) as numbers, refused above 2^53.
 */

export const RL_PROTO_VERSION = 1;
export const RL_MAX_MESSAGE = 65536;
export const RL_MAX_SGE = 4;
export const RL_MAX_INLINE = 1024;
export const RL_NODE_NAME = 64;

/** enum rl_type. */
export const RL = {
  HELLO: 1,
  LOG: 2,
  UNSUPPORTED: 3,
  EXIT: 4,
  REG_MR: 10,
  DEREG_MR: 11,
  CREATE_CQ: 20,
  DESTROY_CQ: 21,
  POLL_CQ: 22,
  REQ_NOTIFY_CQ: 23,
  GET_CQ_EVENT: 24,
  CREATE_CHANNEL: 25,
  GET_ASYNC_EVENT: 26,
  CREATE_QP: 30,
  MODIFY_QP: 31,
  QUERY_QP: 32,
  DESTROY_QP: 33,
  POST_SEND: 34,
  POST_RECV: 35,
  CREATE_SRQ: 36,
  POST_SRQ_RECV: 37,
  DESTROY_SRQ: 38,
  SLEEP_UNTIL: 40,
  WAIT_ANY: 41,
  THREAD_NEW: 42,
  THREAD_START: 43,
  THREAD_EXIT: 44,
  THREAD_YIELD: 45,
  THREAD_WAKE: 46,
} as const;

export type RlTypeName = keyof typeof RL;

/** `RL_POLL_CQ` for a known type, else `type 57` (sockets and rdma_cm types are added by their owners). */
export function rlTypeName(type: number): string {
  for (const [name, value] of Object.entries(RL)) if (value === type) return `RL_${name}`;
  return `type ${type}`;
}

/** Bad bytes from a program: a message shorter or longer than its type says, a count out of range. */
export class ProtoError extends Error {
  readonly code = 'proto';
  constructor(message: string) {
    super(message);
    this.name = 'ProtoError';
  }
}

/**
 * A field's C type: u32/i32; u64 as bigint (addresses, ids, times) or u64n as a number; the node
 * name (char[RL_NODE_NAME], NUL-terminated); sges (struct rl_sge[RL_MAX_SGE]).
 */
type Kind = 'u32' | 'i32' | 'u64' | 'u64n' | 'node' | 'error' | 'sges';
type Fields = readonly (readonly [string, Kind])[];

export interface Sge {
  addr: bigint;
  length: number;
  lkey: number;
}

interface KindType {
  u32: number;
  i32: number;
  u64: bigint;
  u64n: number;
  node: string;
  error: string;
  sges: Sge[];
}

type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** The decoded struct: C's field names in camelCase, padding left out. */
export type StructValue<F extends Fields> = { [E in F[number] as E[0] extends 'pad' ? never : Camel<E[0]>]: KindType[E[1]] };

/** rl_exit's error text (char[200]). */
export const RL_EXIT_ERROR = 200;
const KIND_SIZE: Record<Kind, number> = { u32: 4, i32: 4, u64: 8, u64n: 8, node: RL_NODE_NAME, error: RL_EXIT_ERROR, sges: 16 * RL_MAX_SGE };
const KIND_ALIGN: Record<Kind, number> = { u32: 4, i32: 4, u64: 8, u64n: 8, node: 1, error: 1, sges: 8 };

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function u64ToNumber(v: bigint, where: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtoError(`${where}: expected a value below 2^53, got ${v}`);
  return Number(v);
}

/** One C struct: its size and offsets as the compiler lays them out, and its codec. */
export class Struct<T> {
  readonly size: number;
  /** C field name → byte offset (padding included: the layout test compares all of them). */
  readonly offsets: Readonly<Record<string, number>>;
  private readonly fields: readonly { c: string; js: string; kind: Kind; offset: number }[];

  constructor(
    readonly name: string,
    fields: Fields,
  ) {
    let offset = 0;
    let align = 1;
    const laid: { c: string; js: string; kind: Kind; offset: number }[] = [];
    const offsets: Record<string, number> = {};
    for (const [c, kind] of fields) {
      const a = KIND_ALIGN[kind];
      offset = Math.ceil(offset / a) * a;
      align = Math.max(align, a);
      laid.push({ c, js: camel(c), kind, offset });
      offsets[c] = offset;
      offset += KIND_SIZE[kind];
    }
    this.size = Math.ceil(offset / align) * align;
    this.offsets = offsets;
    this.fields = laid;
  }

  decode(bytes: Uint8Array, at = 0): T {
    if (bytes.byteLength - at < this.size) throw new ProtoError(`${this.name}: expected ${this.size} bytes at offset ${at}, got ${Math.max(0, bytes.byteLength - at)}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset + at, this.size);
    const out: Record<string, unknown> = {};
    for (const f of this.fields) {
      if (f.c === 'pad') continue;
      switch (f.kind) {
        case 'u32':
          out[f.js] = view.getUint32(f.offset, true);
          break;
        case 'i32':
          out[f.js] = view.getInt32(f.offset, true);
          break;
        case 'u64':
          out[f.js] = view.getBigUint64(f.offset, true);
          break;
        case 'u64n':
          out[f.js] = u64ToNumber(view.getBigUint64(f.offset, true), `${this.name}.${f.c}`);
          break;
        case 'node':
        case 'error': {
          const raw = bytes.subarray(at + f.offset, at + f.offset + KIND_SIZE[f.kind]);
          const end = raw.indexOf(0);
          out[f.js] = new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end));
          break;
        }
        case 'sges': {
          const sges: Sge[] = [];
          for (let i = 0; i < RL_MAX_SGE; i++) {
            const o = f.offset + i * 16;
            sges.push({ addr: view.getBigUint64(o, true), length: view.getUint32(o + 8, true), lkey: view.getUint32(o + 12, true) });
          }
          out[f.js] = sges;
          break;
        }
      }
    }
    return out as T;
  }

  /** Writes `value` at `at` of `into` (a new zeroed buffer of `size` bytes when none is given). */
  encode(value: T, into: Uint8Array = new Uint8Array(this.size), at = 0): Uint8Array {
    if (into.byteLength - at < this.size) throw new RangeError(`${this.name}: expected room for ${this.size} bytes at offset ${at}, got ${into.byteLength - at}`);
    const view = new DataView(into.buffer, into.byteOffset + at, this.size);
    const v = value as Record<string, unknown>;
    for (const f of this.fields) {
      if (f.c === 'pad') {
        view.setUint32(f.offset, 0, true);
        continue;
      }
      const x = v[f.js];
      switch (f.kind) {
        case 'u32':
          view.setUint32(f.offset, x as number, true);
          break;
        case 'i32':
          view.setInt32(f.offset, x as number, true);
          break;
        case 'u64':
          view.setBigUint64(f.offset, x as bigint, true);
          break;
        case 'u64n':
          view.setBigUint64(f.offset, BigInt(x as number), true);
          break;
        case 'node':
        case 'error': {
          const size = KIND_SIZE[f.kind];
          const text = new TextEncoder().encode(x as string);
          if (text.byteLength >= size) throw new RangeError(`${this.name}.${f.c}: expected a text of at most ${size - 1} bytes, got ${text.byteLength}`);
          into.fill(0, at + f.offset, at + f.offset + size);
          into.set(text, at + f.offset);
          break;
        }
        case 'sges': {
          const sges = x as Sge[];
          if (sges.length > RL_MAX_SGE) throw new RangeError(`${this.name}.${f.c}: expected at most ${RL_MAX_SGE} entries, got ${sges.length}`);
          for (let i = 0; i < RL_MAX_SGE; i++) {
            const s = sges[i] ?? { addr: 0n, length: 0, lkey: 0 };
            const o = f.offset + i * 16;
            view.setBigUint64(o, s.addr, true);
            view.setUint32(o + 8, s.length, true);
            view.setUint32(o + 12, s.lkey, true);
          }
          break;
        }
      }
    }
    return into;
  }
}

function struct<const F extends Fields>(name: string, fields: F): Struct<StructValue<F>> {
  return new Struct<StructValue<F>>(name, fields);
}

export const Hdr = struct('rl_hdr', [['type', 'u32'], ['len', 'u32']]);
export const RepHdr = struct('rl_rep_hdr', [['type', 'u32'], ['err', 'i32'], ['now_ps', 'u64']]);
export const Handle = struct('rl_handle', [['handle', 'u32'], ['pad', 'u32']]);
export const Time = struct('rl_time', [['ps', 'u64']]);
export const Hello = struct('rl_hello', [['version', 'u32'], ['pid', 'u32']]);
export const HelloRep = struct('rl_hello_rep', [
  ['ip', 'u32'],
  ['mtu', 'u32'],
  ['mac', 'u64n'],
  ['link_bps', 'u64n'],
  ['tsc_khz', 'u32'],
  ['host_index', 'u32'],
  ['node', 'node'],
]);
export const RegMr = struct('rl_reg_mr', [
  ['addr', 'u64'],
  ['length', 'u64n'],
  ['map_start', 'u64'],
  ['map_length', 'u64n'],
  ['access', 'u32'],
  ['pad', 'u32'],
  ['iova', 'u64'],
]);
export const Exit = struct('rl_exit', [['code', 'i32'], ['signal', 'i32'], ['error', 'error']]);
export const AsyncEvent = struct('rl_async_event', [['event_type', 'u32'], ['element', 'u32']]);
export const RegMrRep = struct('rl_reg_mr_rep', [['handle', 'u32'], ['lkey', 'u32'], ['rkey', 'u32'], ['pad', 'u32']]);
export const CreateCq = struct('rl_create_cq', [['cqe', 'u32'], ['channel', 'u32']]);
export const PollCq = struct('rl_poll_cq', [['cq', 'u32'], ['max', 'u32']]);
export const PollCqRep = struct('rl_poll_cq_rep', [['n', 'u32'], ['pad', 'u32']]);
export const Wc = struct('rl_wc', [
  ['wr_id', 'u64'],
  ['status', 'u32'],
  ['opcode', 'u32'],
  ['byte_len', 'u32'],
  ['imm_data', 'u32'],
  ['qp_num', 'u32'],
  ['src_qp', 'u32'],
  ['wc_flags', 'u32'],
  ['vendor_err', 'u32'],
]);
export const ReqNotify = struct('rl_req_notify', [['cq', 'u32'], ['solicited_only', 'u32']]);
export const CreateQp = struct('rl_create_qp', [
  ['qp_type', 'u32'],
  ['send_cq', 'u32'],
  ['recv_cq', 'u32'],
  ['srq', 'u32'],
  ['max_send_wr', 'u32'],
  ['max_recv_wr', 'u32'],
  ['max_send_sge', 'u32'],
  ['max_recv_sge', 'u32'],
  ['max_inline_data', 'u32'],
  ['sq_sig_all', 'u32'],
]);
export const CreateQpRep = struct('rl_create_qp_rep', [['qpn', 'u32'], ['pad', 'u32']]);
export const QpAttr = struct('rl_qp_attr', [
  ['qpn', 'u32'],
  ['mask', 'u32'],
  ['qp_state', 'u32'],
  ['path_mtu', 'u32'],
  ['dest_qp_num', 'u32'],
  ['rq_psn', 'u32'],
  ['sq_psn', 'u32'],
  ['qp_access_flags', 'u32'],
  ['dest_ip', 'u32'],
  ['sl', 'u32'],
  ['traffic_class', 'u32'],
  ['max_rd_atomic', 'u32'],
  ['max_dest_rd_atomic', 'u32'],
  ['min_rnr_timer', 'u32'],
  ['timeout', 'u32'],
  ['retry_cnt', 'u32'],
  ['rnr_retry', 'u32'],
  ['pad', 'u32'],
]);
export const Post = struct('rl_post', [['qpn', 'u32'], ['n', 'u32']]);
export const PostRep = struct('rl_post_rep', [['posted', 'u32'], ['pad', 'u32']]);
export const SgeStruct = struct('rl_sge', [['addr', 'u64'], ['length', 'u32'], ['lkey', 'u32']]);
export const SendWr = struct('rl_send_wr', [
  ['wr_id', 'u64'],
  ['opcode', 'u32'],
  ['send_flags', 'u32'],
  ['imm_data', 'u32'],
  ['num_sge', 'u32'],
  ['remote_addr', 'u64'],
  ['rkey', 'u32'],
  ['inline_len', 'u32'],
  ['compare_add', 'u64'],
  ['swap', 'u64'],
  ['sg_list', 'sges'],
]);
export const RecvWr = struct('rl_recv_wr', [['wr_id', 'u64'], ['num_sge', 'u32'], ['pad', 'u32'], ['sg_list', 'sges']]);
export const CreateSrq = struct('rl_create_srq', [['max_wr', 'u32'], ['max_sge', 'u32']]);

export type HdrValue = ReturnType<typeof Hdr.decode>;
export type RepHdrValue = ReturnType<typeof RepHdr.decode>;
export type HandleValue = ReturnType<typeof Handle.decode>;
export type TimeValue = ReturnType<typeof Time.decode>;
export type HelloValue = ReturnType<typeof Hello.decode>;
export type HelloRepValue = ReturnType<typeof HelloRep.decode>;
export type RegMrValue = ReturnType<typeof RegMr.decode>;
export type RegMrRepValue = ReturnType<typeof RegMrRep.decode>;
export type CreateCqValue = ReturnType<typeof CreateCq.decode>;
export type PollCqValue = ReturnType<typeof PollCq.decode>;
export type PollCqRepValue = ReturnType<typeof PollCqRep.decode>;
export type WcValue = ReturnType<typeof Wc.decode>;
export type ReqNotifyValue = ReturnType<typeof ReqNotify.decode>;
export type CreateQpValue = ReturnType<typeof CreateQp.decode>;
export type CreateQpRepValue = ReturnType<typeof CreateQpRep.decode>;
export type QpAttrValue = ReturnType<typeof QpAttr.decode>;
export type PostValue = ReturnType<typeof Post.decode>;
export type PostRepValue = ReturnType<typeof PostRep.decode>;
export type SendWrValue = ReturnType<typeof SendWr.decode>;
export type RecvWrValue = ReturnType<typeof RecvWr.decode>;
export type CreateSrqValue = ReturnType<typeof CreateSrq.decode>;

/** Every struct of rocelab_proto.h by its C name: what the layout test compares with the compiler. */
export const STRUCTS: readonly Struct<unknown>[] = [
  Hdr, RepHdr, Handle, Time, Hello, HelloRep, Exit, RegMr, RegMrRep, AsyncEvent, CreateCq, PollCq, PollCqRep, Wc, ReqNotify,
  CreateQp, CreateQpRep, QpAttr, Post, PostRep, SgeStruct, SendWr, RecvWr, CreateSrq,
] as readonly Struct<unknown>[];

/** How many completions one RL_POLL_CQ reply can carry. */
export const RL_MAX_POLL = Math.floor((RL_MAX_MESSAGE - RepHdr.size - PollCqRep.size) / Wc.size);

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** A request packet (the program's side: tests, and a host that relays). */
export function encodeRequest(type: number, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const len = Hdr.size + body.byteLength;
  if (len > RL_MAX_MESSAGE) throw new RangeError(`${rlTypeName(type)}: expected a request of at most ${RL_MAX_MESSAGE} bytes, got ${len}`);
  return concat([Hdr.encode({ type, len }), body]);
}

/** A reply packet: the header with the request's type, an errno (0: success) and the host's time. */
export function encodeReply(type: number, err: number, nowPs: bigint, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const len = RepHdr.size + body.byteLength;
  if (len > RL_MAX_MESSAGE) throw new RangeError(`${rlTypeName(type)}: expected a reply of at most ${RL_MAX_MESSAGE} bytes, got ${len}`);
  return concat([RepHdr.encode({ type, err, nowPs }), body]);
}

export function decodeReply(packet: Uint8Array): RepHdrValue & { body: Uint8Array } {
  return { ...RepHdr.decode(packet), body: packet.subarray(RepHdr.size) };
}

/** RL_LOG's and RL_UNSUPPORTED's text (not NUL-terminated; invalid UTF-8 becomes U+FFFD). */
export function decodeText(body: Uint8Array): string {
  return new TextDecoder().decode(body);
}

/** A body of exactly one struct: refuses a short or long one (a program built against another header). */
export function decodeExact<T>(s: Struct<T>, body: Uint8Array, type: number): T {
  if (body.byteLength !== s.size) throw new ProtoError(`${rlTypeName(type)}: expected a body of ${s.size} bytes (${s.name}), got ${body.byteLength}`);
  return s.decode(body);
}

export function encodePollCqRep(wcs: readonly WcValue[]): Uint8Array {
  if (wcs.length > RL_MAX_POLL) throw new RangeError(`rl_poll_cq_rep: expected at most ${RL_MAX_POLL} completions, got ${wcs.length}`);
  const out = new Uint8Array(PollCqRep.size + wcs.length * Wc.size);
  PollCqRep.encode({ n: wcs.length }, out);
  wcs.forEach((wc, i) => Wc.encode(wc, out, PollCqRep.size + i * Wc.size));
  return out;
}

export function decodePollCqRep(body: Uint8Array): WcValue[] {
  const { n } = PollCqRep.decode(body);
  if (body.byteLength !== PollCqRep.size + n * Wc.size) throw new ProtoError(`RL_POLL_CQ reply: expected ${PollCqRep.size} + ${n} x ${Wc.size} bytes, got ${body.byteLength}`);
  return Array.from({ length: n }, (_, i) => Wc.decode(body, PollCqRep.size + i * Wc.size));
}

/** A send work request with its inline bytes (IBV_SEND_INLINE; empty otherwise). */
export type PostedSend = SendWrValue & { inline: Uint8Array };

function checkSges(num: number, type: number, i: number): void {
  if (num > RL_MAX_SGE) throw new ProtoError(`${rlTypeName(type)}: work request ${i}: expected num_sge at most ${RL_MAX_SGE}, got ${num}`);
}

/** RL_POST_SEND: rl_post + n x (rl_send_wr, inline bytes padded to 8). sgList keeps num_sge entries. */
export function decodePostSend(body: Uint8Array): { qpn: number; wrs: PostedSend[] } {
  const type = RL.POST_SEND;
  const { qpn, n } = decodePrefix(body, type);
  const wrs: PostedSend[] = [];
  let at = Post.size;
  for (let i = 0; i < n; i++) {
    if (body.byteLength - at < SendWr.size) throw new ProtoError(`${rlTypeName(type)}: work request ${i} of ${n}: expected ${SendWr.size} bytes at offset ${at}, got ${body.byteLength - at}`);
    const wr = SendWr.decode(body, at);
    checkSges(wr.numSge, type, i);
    at += SendWr.size;
    if (wr.inlineLen > RL_MAX_INLINE) throw new ProtoError(`${rlTypeName(type)}: work request ${i}: expected inline_len at most ${RL_MAX_INLINE}, got ${wr.inlineLen}`);
    const padded = Math.ceil(wr.inlineLen / 8) * 8;
    if (body.byteLength - at < padded) throw new ProtoError(`${rlTypeName(type)}: work request ${i}: expected ${padded} inline bytes at offset ${at}, got ${body.byteLength - at}`);
    wrs.push({ ...wr, sgList: wr.sgList.slice(0, wr.numSge), inline: body.slice(at, at + wr.inlineLen) });
    at += padded;
  }
  if (at !== body.byteLength) throw new ProtoError(`${rlTypeName(type)}: expected ${at} bytes for ${n} work requests, got ${body.byteLength}`);
  return { qpn, wrs };
}

export function encodePostSend(qpn: number, wrs: readonly PostedSend[]): Uint8Array {
  const parts: Uint8Array[] = [Post.encode({ qpn, n: wrs.length })];
  for (const wr of wrs) {
    parts.push(SendWr.encode({ ...wr, inlineLen: wr.inline.byteLength }));
    const padded = new Uint8Array(Math.ceil(wr.inline.byteLength / 8) * 8);
    padded.set(wr.inline);
    parts.push(padded);
  }
  return concat(parts);
}

/** RL_POST_RECV and RL_POST_SRQ_RECV (qpn: the SRQ's handle): rl_post + n x rl_recv_wr. */
export function decodePostRecv(body: Uint8Array, type: number = RL.POST_RECV): { qpn: number; wrs: RecvWrValue[] } {
  const { qpn, n } = decodePrefix(body, type);
  if (body.byteLength !== Post.size + n * RecvWr.size) throw new ProtoError(`${rlTypeName(type)}: expected ${Post.size} + ${n} x ${RecvWr.size} bytes, got ${body.byteLength}`);
  const wrs = Array.from({ length: n }, (_, i) => {
    const wr = RecvWr.decode(body, Post.size + i * RecvWr.size);
    checkSges(wr.numSge, type, i);
    return { ...wr, sgList: wr.sgList.slice(0, wr.numSge) };
  });
  return { qpn, wrs };
}

export function encodePostRecv(qpn: number, wrs: readonly RecvWrValue[]): Uint8Array {
  return concat([Post.encode({ qpn, n: wrs.length }), ...wrs.map((wr) => RecvWr.encode(wr))]);
}

function decodePrefix(body: Uint8Array, type: number): PostValue {
  if (body.byteLength < Post.size) throw new ProtoError(`${rlTypeName(type)}: expected at least ${Post.size} bytes (rl_post), got ${body.byteLength}`);
  return Post.decode(body);
}
