/**
 * The API an application running on an emulated host is written against (issue 13). A
 * TypeScript app imports its types from `rocelab/app`:
 *
 *   import type { Rdma, Regions } from 'rocelab/app';
 *   export const regions: Regions = () => ({ buf: { bytes: 4096, access: ['remoteWrite'] } });
 *   export default async function main(rdma: Rdma) { … }
 *
 * An app runs on virtual time: every wait (`await` on a work request, `sleep`) ends at a virtual
 * instant, and nothing else moves it. So it must be deterministic: no wall clock, no
 * `Math.random` (use `rdma.random()`), no I/O. It is a pure module: it may import its own
 * helpers, not Node's modules. It runs in a sandbox of its own (QuickJS in WebAssembly): nothing
 * of the machine exists there, and its memory (`app.memory`) and the work it may do between two
 * waits (`app.steps`) are bounded.
 *
 * Times are integer picoseconds, as everywhere in rocelab (`rdma.us(3)` = 3 µs).
 */

/** Which remote operations may touch a region (IB access flags). Local use is always allowed. */
export type RemoteAccess = 'remoteRead' | 'remoteWrite' | 'remoteAtomic';

/** A region an app registers: its size in bytes and the remote accesses it allows (default none). */
export interface RegionSpec {
  bytes: number;
  access?: readonly RemoteAccess[];
}

/** What `regions` and the app are told about where they run. */
export interface SetupContext {
  /** This host. */
  readonly node: string;
  /** Every host running this app, in the pod's order (this one included). */
  readonly hosts: readonly string[];
  /** The `args` of the app in the topology (`app: {module, args}`). */
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * The regions a host registers, by name: a pure function of the context. Every process
 * evaluates it for every host, so each app knows its peers' addresses and rkeys before time 0,
 * as rdma_cm's private data would tell them at connect time. A name whose value is `undefined`
 * declares nothing (so hosts of different kinds may return differently shaped objects).
 */
export type Regions = (ctx: SetupContext) => Readonly<Record<string, RegionSpec | undefined>>;

/** A region registered on this host: its bytes are the app's to read and write at any time. */
export interface Region {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly address: bigint;
  readonly rkey: number;
  /** Bytes [offset, offset + length) as a buffer a work request may use (a view, not a copy). */
  slice(offset: number, length: number): Uint8Array;
  /** Where [offset, …) of this region is, for a peer (or this host) to name in a remote operation. */
  at(offset: number): RemoteAddress;
}

/** A peer's region, as its `regions` declared it. */
export interface RemoteRegion {
  readonly host: string;
  readonly name: string;
  readonly address: bigint;
  readonly rkey: number;
  readonly length: number;
  at(offset: number): RemoteAddress;
}

export interface RemoteAddress {
  address: bigint;
  rkey: number;
}

export type WorkOpcode = 'write' | 'send' | 'read' | 'fetchAdd' | 'compareSwap';

/** A completed work request (only successful ones: a failed one rejects with a `WorkRequestError`). */
export interface WorkCompletion {
  opcode: WorkOpcode;
  bytes: number;
  postedPs: number;
  completedPs: number;
  /** An atomic: the 64-bit word as it was before the operation. */
  original?: bigint;
}

/** A message that consumed a posted receive: a SEND (its bytes are in `buffer`) or a WRITE with immediate. */
export interface ReceiveCompletion {
  opcode: 'send' | 'writeImmediate';
  bytes: number;
  immediate: number | null;
  buffer: Uint8Array;
}

export interface PostOptions {
  /** 32 bits of immediate data (WRITE and SEND): the peer gets them with a receive. */
  immediate?: number;
  /**
   * false: no completion (IB's unsignaled work request); the call returns nothing. A later
   * signaled request's completion says it is done. If it fails, the app is stopped with the error.
   */
  signaled?: boolean;
}

type Unsignaled = PostOptions & { signaled: false };

/**
 * A reliable connected queue pair to one peer. The promise of a work request resolves with its
 * completion, or rejects with a `WorkRequestError` naming the app, node and operation (remote
 * access error, retry exhaustion, RNR retries exhausted…); the QP is then in error, as on
 * hardware, and every later request on it fails.
 */
export interface Qp {
  readonly peer: string;
  write(local: Uint8Array, remote: RemoteAddress, options: Unsignaled): void;
  write(local: Uint8Array, remote: RemoteAddress, options?: PostOptions): Promise<WorkCompletion>;
  read(local: Uint8Array, remote: RemoteAddress, options: Unsignaled): void;
  read(local: Uint8Array, remote: RemoteAddress, options?: PostOptions): Promise<WorkCompletion>;
  send(local: Uint8Array, options: Unsignaled): void;
  send(local: Uint8Array, options?: PostOptions): Promise<WorkCompletion>;
  /** 8 aligned bytes at `remote` += `add` (mod 2^64); the old value lands in `local` (8 bytes, or null) and in the completion. */
  fetchAdd(local: Uint8Array | null, remote: RemoteAddress, add: bigint): Promise<WorkCompletion>;
  /** If the 8 bytes at `remote` equal `compare`, they become `swap`; the old value as for fetchAdd. */
  compareSwap(local: Uint8Array | null, remote: RemoteAddress, compare: bigint, swap: bigint): Promise<WorkCompletion>;
  /** Post a receive buffer; resolves when a SEND (or WRITE with immediate) consumes it. */
  recv(buffer: Uint8Array): Promise<ReceiveCompletion>;
}

export interface Counter {
  inc(by?: number): void;
}

export interface Histogram {
  /** A value in base units (seconds for a latency). */
  observe(value: number): void;
}

export interface Rdma extends SetupContext {
  /** Virtual time now, in picoseconds. */
  now(): number;
  /** `n` microseconds in picoseconds (and `ns`): for `sleep` and for reading `now`. */
  us(n: number): number;
  ns(n: number): number;
  /** Resolves `ps` picoseconds of virtual time from now. */
  sleep(ps: number): Promise<void>;
  /** A uniform number in [0, 1) from this host's seeded stream: the same in every run with the same seed. */
  random(): number;
  /** A line in the node's log (and in the run's result, the last 100 of them). */
  log(message: string, fields?: Readonly<Record<string, string | number | boolean>>): void;
  /** A figure of the app's outcome, in the run's result under `apps` (`rocelab run` prints them). */
  report(key: string, value: number | string | boolean): void;
  /** A region this host's `regions` declared. */
  region(name: string): Region;
  /** A region `host`'s `regions` declared. */
  remote(host: string, name: string): RemoteRegion;
  /** The QP to `host` (another host running this app); the same object every call. */
  connect(host: string): Qp;
  /** A counter in this node's /metrics: `rocelab_app_<name>_total{app, node}`. */
  counter(name: string, help: string): Counter;
  /** A histogram in this node's /metrics: `rocelab_app_<name>{app, node}`, with `bounds` (default: 1 µs to ~1 s, ×2). */
  histogram(name: string, help: string, bounds?: readonly number[]): Histogram;
}

/** An app module's default export. */
export type App = (rdma: Rdma) => Promise<void> | void;
