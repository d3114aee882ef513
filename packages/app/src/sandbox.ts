/**
 * One app instance on one host, in a machine of its own (machine.ts): the prelude and the app's
 * bundle evaluated in it, its regions allocated in its memory, and the mailbox through which it
 * hears of completions and posts work (prelude.ts). An app is untrusted code: everything it hands
 * the host is checked here or in the host (`SandboxHost`), and everything the host hands it is a
 * number, a string or bytes in its own memory.
 *
 * When the engine hands the app an event, `dispatch` writes it into the mailbox, enters the
 * prelude, and then runs every pending job (the continuations of the app's `async` code that the
 * event released) before it returns. So an app is written as plain `async` code, runs
 * synchronously inside the engine's event, and stays deterministic: nothing in it waits on
 * Node's event loop, a socket or the wall clock.
 */
import type { SetupContext } from './api.js';
import { Machine, type MachineError } from './machine.js';
import { BOX_SLOTS, CALL, ENTRY, EVENT, EVENT_SLOTS, EVENTS_PER_CHUNK, FIRST_EVENT, OPCODES, PRELUDE, RECEIVE_OPCODES } from './prelude.js';

/**
 * Steps of its engine (loop iterations and calls of QuickJS's machine code: interpreting the
 * app, or running a built-in such as a regex, a sort or `JSON.parse`) an app may run between two
 * waits, by default: some 1 to 3 s on a 2-core VM, about 14 million turns of an empty loop.
 */
export const DEFAULT_APP_STEPS = 200_000_000;
/** QuickJS's own allocations an app may make, by default (`app: {memory}`). */
export const DEFAULT_APP_MEMORY_BYTES = 64 * 1024 * 1024;

/** The limits an app runs under (`app: {memory, steps}` in the topology). */
export interface AppLimits {
  memoryBytes: number;
  steps: number;
}

export const DEFAULT_APP_LIMITS: AppLimits = { memoryBytes: DEFAULT_APP_MEMORY_BYTES, steps: DEFAULT_APP_STEPS };

/** A region as every process knows it (the pod carries it): where it is, its size and key, what peers may do. */
export interface RegionInfo {
  name: string;
  address: bigint;
  rkey: number;
  lengthBytes: number;
  access: readonly string[];
}

export type CompletionStatusCode = number;

/** An event for the app: a work request completed, or a message consumed a posted receive. */
export type SandboxEvent =
  | { kind: 'completion'; id: number; ok: true; opcode: string; bytes: number; postedPs: number; completedPs: number; original?: bigint }
  | { kind: 'completion'; id: number; ok: false; status: number }
  | { kind: 'receive'; peer: string; opcode: 'send' | 'writeImmediate'; bytes: number; immediate: number | null };

/** A work request as the app posted it, its local buffer a view into the app's memory. */
export interface SandboxWork {
  opcode: (typeof OPCODES)[number];
  local: Uint8Array | null;
  remote: { address: bigint; rkey: number } | null;
  sizeBytes: number;
  immediate: number | null;
  operand: bigint;
  swap: bigint;
}

/** What the app's calls reach, on the host (app-host.ts in @rocelab/runtime implements it over the NIC). Errors are thrown with the reason alone. */
export interface SandboxHost {
  /** "app <module> on <node>": how every error names the app. */
  readonly label: string;
  readonly module: string;
  readonly info: SetupContext;
  /** Hosts this one has a QP to (they run the app too). */
  readonly peers: readonly string[];
  /** Every app host's regions, this one's included, in registration order. */
  readonly regions: ReadonlyMap<string, readonly RegionInfo[]>;
  /** Completion statuses in words, by the code `SandboxEvent` carries. */
  readonly statusText: readonly string[];
  nowPs(): number;
  random(): number;
  /** Post a work request; its id. */
  post(peer: string, work: SandboxWork): number;
  postRecv(peer: string, buffer: Uint8Array): void;
  /** The earliest sleeper's time, or −1 for none. */
  wakeAt(ps: number): void;
  takeEvents(): SandboxEvent[];
  log(message: string): void;
  report(key: string, value: number | string | boolean): void;
  /** A counter (kind 0) or histogram (kind 1) of the app's; its index. */
  metric(kind: 0 | 1, name: string, help: string, bounds: readonly number[] | null): number;
  inc(index: number, by: number): void;
  observe(index: number, value: number): void;
  finished(): void;
  failed(message: string): void;
}

/** What the app's memory holds beside QuickJS's own heap: its regions and the mailbox. */
export function extraBytesOf(regions: readonly { lengthBytes: number }[]): number {
  return BOX_SLOTS * 8 + regions.reduce((sum, r) => sum + r.lengthBytes + 64, 0) + 1024 * 1024;
}

const KiB = 1024;
const MiB = KiB * KiB;
function bytesText(n: number): string {
  return n % MiB === 0 ? `${n / MiB} MiB` : n % KiB === 0 ? `${n / KiB} KiB` : `${n} bytes`;
}

/** The app's failure, as its error says it: the limits are named with the setting that raises them. */
export function limitMessage(label: string, error: MachineError, limits: AppLimits): string {
  if (error.exhausted) return `${label}: ran ${limits.steps.toLocaleString('en-US')} steps of its interpreter without waiting for the fabric (an endless loop?); stopped (app.steps raises the limit)`;
  if (error.name === 'InternalError' && error.message === 'out of memory') return `${label}: ran out of its ${bytesText(limits.memoryBytes)} of memory; stopped (app.memory raises the limit)`;
  if (error.name === 'InternalError' && error.message === 'stack overflow') return `${label}: recursed deeper than its stack allows (about 350 calls); stopped`;
  return `${label}: ${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
}

/** The prelude evaluated in a fresh machine and made: the mailbox and the entry it returns (before any code of the app's). */
function bootPrelude(machine: Machine, onCall: (argc: number, argv: number) => string | undefined, setup: object): { box: Float64Array; entry: number } {
  const box = machine.allocate(BOX_SLOTS * 8);
  const prelude = machine.eval(PRELUDE, 'rocelab-app-prelude.js');
  const hostFn = machine.installHost('host', onCall);
  const setupText = machine.newString(JSON.stringify(setup));
  const made = prelude.ok ? machine.call(prelude.value, [hostFn, box.arrayBuffer, setupText]) : prelude;
  for (const v of [prelude.ok ? prelude.value : 0, hostFn, setupText, box.arrayBuffer]) machine.free(v);
  if (!made.ok) throw new Error(`the app runtime failed to start: ${made.error.message}`);
  return { box: new Float64Array(machine.heap.buffer, box.pointer, BOX_SLOTS), entry: made.value };
}

/** One app instance on one host. */
export class AppSandbox {
  private readonly box: Float64Array;
  private readonly entry: number;
  private readonly views: Uint8Array[] = [];
  private pending: SandboxEvent[] = [];
  private done = false;

  constructor(
    private readonly machine: Machine,
    source: string,
    private readonly host: SandboxHost,
    private readonly limits: AppLimits = DEFAULT_APP_LIMITS,
  ) {
    ({ box: this.box, entry: this.entry } = bootPrelude(machine, (argc, argv) => this.onCall(argc, argv), this.setup()));
    const own = host.regions.get(host.info.node) ?? [];
    for (const r of own) {
      const region = machine.allocate(r.lengthBytes);
      this.views.push(machine.heap.subarray(region.pointer, region.pointer + r.lengthBytes));
      this.box[0] = ENTRY.region;
      machine.call(this.entry, [region.arrayBuffer]);
      machine.free(region.arrayBuffer);
    }
    machine.arm(limits.steps);
    const top = machine.eval(source, host.module);
    if (top.ok) machine.free(top.value);
    const jobs = top.ok ? machine.runJobs() : top;
    if (!jobs.ok) this.fail(jobs.error);
  }

  /** The app's regions, in registration order: views into its memory (they never move), for the NIC. */
  get regionBytes(): readonly Uint8Array[] {
    return this.views;
  }

  /** Run the app until it first waits (its continuations included). */
  start(): void {
    this.enter(ENTRY.start, []);
  }

  /** Hand the app its events (`host.takeEvents`) and the time; returns once it waits again. */
  dispatch(): void {
    this.pending = this.host.takeEvents();
    this.enter(ENTRY.dispatch, []);
  }

  private setup(): object {
    const regions: Record<string, object[]> = {};
    for (const [node, list] of this.host.regions) regions[node] = list.map((r) => ({ name: r.name, address: r.address.toString(), rkey: r.rkey, length: r.lengthBytes }));
    const { info } = this.host;
    return { label: this.host.label, module: this.host.module, node: info.node, hosts: info.hosts, args: info.args, peers: this.host.peers, regions, statusText: this.host.statusText, memoryText: bytesText(this.limits.memoryBytes) };
  }

  private enter(what: number, args: number[]): void {
    if (this.done) return;
    this.box[0] = what;
    this.box[1] = this.host.nowPs();
    if (what === ENTRY.dispatch) this.fillEvents();
    this.machine.arm(this.limits.steps);
    const entered = this.machine.call(this.entry, args);
    if (entered.ok) this.machine.free(entered.value);
    const jobs = entered.ok ? this.machine.runJobs() : entered;
    if (this.done) return;
    if (!jobs.ok) this.fail(jobs.error);
  }

  /** The next chunk of pending events into the mailbox: [2] their count, [3] whether more wait. */
  private fillEvents(): void {
    const b = this.box;
    const n = Math.min(this.pending.length, EVENTS_PER_CHUNK);
    for (let k = 0; k < n; k++) {
      const e = this.pending[k]!;
      const at = FIRST_EVENT + k * EVENT_SLOTS;
      if (e.kind === 'receive') {
        b[at] = EVENT.received;
        b[at + 1] = this.host.info.hosts.indexOf(e.peer);
        b[at + 2] = RECEIVE_OPCODES.indexOf(e.opcode);
        b[at + 3] = e.bytes;
        b[at + 4] = e.immediate ?? -1;
      } else if (!e.ok) {
        b[at] = EVENT.failed;
        b[at + 1] = e.id;
        b[at + 2] = e.status;
      } else {
        b[at] = e.original === undefined ? EVENT.completed : EVENT.completedAtomic;
        b[at + 1] = e.id;
        b[at + 2] = OPCODES.indexOf(e.opcode as (typeof OPCODES)[number]);
        b[at + 3] = e.bytes;
        b[at + 4] = e.postedPs;
        b[at + 5] = e.completedPs;
        if (e.original !== undefined) {
          b[at + 6] = Number(e.original >> 32n);
          b[at + 7] = Number(e.original & 0xffff_ffffn);
        }
      }
    }
    this.pending = this.pending.slice(n);
    b[2] = n;
    b[3] = this.pending.length > 0 ? 1 : 0;
  }

  private fail(error: MachineError): void {
    this.done = true;
    this.host.failed(limitMessage(this.host.label, error, this.limits));
  }

  /** A call from the prelude: box[0] says which, its numbers follow; a refusal is returned as a string. */
  private onCall(argc: number, argv: number): string | undefined {
    const b = this.box;
    const m = this.machine;
    try {
      switch (b[0]) {
        case CALL.post:
          b[1] = this.host.post(this.peerAt(b[1]!), this.work());
          return undefined;
        case CALL.recv:
          this.host.postRecv(this.peerAt(b[1]!), this.span(b[2]!, b[3]!, b[4]!));
          return undefined;
        case CALL.wake:
          this.host.wakeAt(b[1]!);
          return undefined;
        case CALL.random:
          b[1] = this.host.random();
          return undefined;
        case CALL.log:
          this.host.log(m.string(argc, argv, 0));
          return undefined;
        case CALL.report: {
          const key = m.string(argc, argv, 0);
          this.host.report(key, b[1] === 0 ? b[2]! : b[1] === 1 ? m.string(argc, argv, 1) : b[2] === 1);
          return undefined;
        }
        case CALL.metric: {
          const boundsText = m.string(argc, argv, 2);
          const bounds = boundsText === '' ? null : (JSON.parse(boundsText) as unknown);
          if (bounds !== null && !(Array.isArray(bounds) && bounds.every((x) => typeof x === 'number' && Number.isFinite(x)))) return 'histogram bounds must be finite numbers';
          b[1] = this.host.metric(b[1] === 1 ? 1 : 0, m.string(argc, argv, 0), m.string(argc, argv, 1), bounds as number[] | null);
          return undefined;
        }
        case CALL.inc:
          this.host.inc(b[1]!, b[2]!);
          return undefined;
        case CALL.observe:
          this.host.observe(b[1]!, b[2]!);
          return undefined;
        case CALL.finished:
          this.host.finished();
          return undefined;
        case CALL.failed:
          this.done = true;
          this.host.failed(m.string(argc, argv, 0) || `${this.host.label}: failed`);
          return undefined;
        case CALL.take:
          this.fillEvents();
          return undefined;
        default:
          return `no such call ${b[0]}`;
      }
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  private peerAt(index: number): string {
    const peer = Number.isInteger(index) ? this.host.info.hosts[index] : undefined;
    if (peer === undefined) throw new Error(`no host ${index}`);
    return peer;
  }

  /** A buffer the app named by region, offset and length: a view into its memory, checked against the region. */
  private span(region: number, offset: number, length: number): Uint8Array {
    const view = Number.isInteger(region) ? this.views[region] : undefined;
    if (view === undefined || !(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0 && offset + length <= view.length)) {
      throw new Error('the local buffer must be part of a registered region (rdma.region(name).slice(offset, length))');
    }
    return view.subarray(offset, offset + length);
  }

  private work(): SandboxWork {
    const b = this.box;
    const opcode = OPCODES[b[2]!];
    if (opcode === undefined) throw new Error(`no such operation ${b[2]}`);
    const u64 = (at: number): bigint => {
      const hi = b[at]!;
      const lo = b[at + 1]!;
      if (!(Number.isInteger(hi) && Number.isInteger(lo) && hi >= 0 && lo >= 0 && hi < 2 ** 32 && lo < 2 ** 32)) throw new Error('a 64-bit value out of range');
      return (BigInt(hi) << 32n) | BigInt(lo);
    };
    const sizeBytes = b[6]!;
    if (!(Number.isSafeInteger(sizeBytes) && sizeBytes >= 0)) throw new Error(`size ${sizeBytes}: an integer ≥ 0`);
    const local = b[3] === -1 ? null : this.span(b[3]!, b[4]!, b[5]!);
    let remote: SandboxWork['remote'] = null;
    if (opcode !== 'send') {
      const rkey = b[10]!;
      if (!(Number.isInteger(rkey) && rkey >= 0 && rkey < 2 ** 32)) throw new Error(`rkey ${rkey}: a 32-bit integer`);
      remote = { address: u64(8), rkey };
    }
    const immediate = b[7]!;
    const atomic = opcode === 'fetchAdd' || opcode === 'compareSwap';
    return { opcode, local, remote, sizeBytes, immediate: immediate === -1 ? null : immediate, operand: atomic ? u64(11) : 0n, swap: atomic ? u64(13) : 0n };
  }
}

/** A region an app's `regions()` declared for a host. */
export interface DeclaredRegion {
  name: string;
  bytes: number;
  access: string[];
}

/**
 * Every host's regions, from the app's `regions` export (or none): evaluated in a machine of
 * its own, under the app's limits, once per host. Nothing here runs when a file is only read
 * (`rocelab topology validate`): only the commands that run a pod declare regions.
 * Returns per host either its regions as [name, bytes, access] or the reason it declared none.
 */
export async function declaredRegions(source: string, module: string, hosts: ReadonlyArray<{ node: string; args: Readonly<Record<string, unknown>> }>, allHosts: readonly string[], limits: AppLimits = DEFAULT_APP_LIMITS): Promise<Array<DeclaredRegion[] | string>> {
  const machine = await Machine.create({ memoryBytes: limits.memoryBytes, extraBytes: extraBytesOf([]) });
  const label = `app ${module} (regions)`;
  const setup = { label, module, node: '', hosts: allHosts, args: {}, peers: [], regions: {}, statusText: [], memoryText: bytesText(limits.memoryBytes) };
  const { box, entry } = bootPrelude(machine, () => 'regions() runs before the pod does: it may not call the API', setup);
  const limitsLabel = (node: string): string => `app ${module} on ${node} (regions)`;
  machine.arm(limits.steps);
  const top = machine.eval(source, module);
  if (!top.ok) {
    const why = limitMessage(limitsLabel(hosts[0]?.node ?? '?'), top.error, limits);
    return hosts.map(() => why);
  }
  machine.free(top.value);
  return hosts.map(({ node, args }) => {
    if (machine.broken !== null) return `app ${module} on ${node} (regions): not evaluated: the machine stopped on an earlier host`;
    box[0] = ENTRY.regions;
    box[1] = 0;
    const input = machine.newString(JSON.stringify({ node, args }));
    machine.arm(limits.steps);
    const answer = machine.call(entry, [machine.undefined, input]);
    machine.free(input);
    if (!answer.ok) return limitMessage(limitsLabel(node), answer.error, limits);
    const text = machine.stringOf(answer.value);
    machine.free(answer.value);
    if (!text.startsWith('[')) return text;
    return (JSON.parse(text) as Array<[string, number, ...string[]]>).map(([name, bytes, ...access]) => ({ name, bytes, access }));
  });
}
