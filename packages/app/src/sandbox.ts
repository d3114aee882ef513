/**
 * The context an app runs in (ARCHITECTURE, "Your own RDMA code"). Each app instance gets its
 * own `vm` context whose microtasks are its own (`microtaskMode: 'afterEvaluate'`): when the
 * engine hands the app an event, one short script runs in the context and, before it returns,
 * every continuation of the app's `async` code that the event released has run too. So an app
 * is written as plain `async` code, runs synchronously inside the engine's event, and stays
 * deterministic: nothing in it waits on Node's event loop, a socket or the wall clock.
 *
 * The context has no `eval`, no `Function` from strings and no WebAssembly (bundle.ts counts
 * loop iterations and calls; code made at run time would escape the count), no timers, no
 * `Math.random` and no wall-clock `Date`.
 */
import vm from 'node:vm';
import { PRELUDE } from './prelude.js';
import type { RegionSpec, SetupContext } from './api.js';

/**
 * Loop iterations and calls an app may run between two waits: some 20 ms of a tight loop, and a
 * bounded chain of promises for an endless `async` recursion. Counted, not timed, so an endless
 * loop is stopped at the same virtual instant in every mode.
 */
export const TICK_LIMIT = 10_000_000;

/** An event for the app: a work request completed, or a message consumed a posted receive. */
export type SandboxEvent =
  | { kind: 'completion'; id: number; ok: true; opcode: string; bytes: number; postedPs: number; completedPs: number; original?: bigint }
  | { kind: 'completion'; id: number; ok: false; error: string }
  | { kind: 'receive'; peer: string; opcode: 'send' | 'writeImmediate'; bytes: number; immediate: number | null; buffer: Uint8Array };

/** What the app's API calls reach, on the Node side (app-host.ts in @rocelab/runtime implements it over the NIC). */
export interface SandboxHost {
  /** "app <module> on <node>": how every error names the app. */
  readonly label: string;
  /** The module as the topology names it (its frames in a stack are the app's own). */
  readonly module: string;
  readonly info: SetupContext;
  nowPs(): number;
  random(): number;
  /** Post a work request; returns its id. Throws an Error whose message says what is wrong. */
  post(peer: string, opcode: string, local: Uint8Array | null, remote: { address: bigint; rkey: number } | null, sizeBytes: number, immediate: number, operand: bigint, swap: bigint, signaled: boolean, describe: string): number;
  postRecv(peer: string, buffer: Uint8Array): void;
  checkPeer(peer: string): void;
  /** The earliest sleeper's time, or −1 for none. */
  wakeAt(ps: number): void;
  takeEvents(): SandboxEvent[];
  log(message: string, fields: Readonly<Record<string, unknown>> | null): void;
  report(key: string, value: unknown): void;
  region(name: string): unknown;
  remote(host: string, name: string): unknown;
  counter(name: string, help: string): unknown;
  histogram(name: string, help: string, bounds: readonly number[] | null): unknown;
  finished(): void;
  failed(message: string): void;
}

interface Prelude {
  start(main: unknown): void;
  dispatch(): void;
}

interface AppExports {
  default?: unknown;
  regions?: unknown;
}

/** The `Promise` of every app context made in this process: an unhandled rejection of one of theirs is an app's, not ours. */
const appPromises: PromiseConstructor[] = [];
let onAppRejection: ((message: string) => void) | null = null;

/**
 * An app's own promise that rejected with nobody to catch it (a work request's failure is not
 * one: those are thenables, prelude.ts). It is logged and the pod goes on; anything else stays
 * fatal, as Node's default makes it.
 */
function watchRejections(): void {
  if (onAppRejection !== null) return;
  onAppRejection = (message) => process.emitWarning(message, 'RocelabAppWarning');
  process.on('unhandledRejection', (reason, promise) => {
    if (!appPromises.some((P) => promise instanceof P)) throw reason;
    onAppRejection!(`an app left a promise rejected with nobody waiting for it: ${describe(reason)}`);
  });
}

function describe(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string' ? (err as Error).message : String(err);
}

/** The count of loop iterations and calls since the app last waited (in-context, so its errors are the app's). */
interface Ticks {
  tick(): void;
  reset(): void;
  stop(message: string): void;
  readonly stopped: string | null;
  onStop(f: (message: string) => void): void;
}

/**
 * The tick count, and the guards of determinism, set before the app's code runs: `Math.random`
 * and the wall clock fail with a message saying what to use instead.
 */
const TICKS = String.raw`(() => {
  const label = LABEL;
  Math.random = function () { throw new Error(label + ': Math.random is not deterministic: use rdma.random()'); };
  const RealDate = Date;
  globalThis.Date = new Proxy(RealDate, {
    construct(target, args) {
      if (args.length === 0) throw new Error(label + ': new Date() reads the wall clock: use rdma.now() (virtual picoseconds)');
      return new target(...args);
    },
    apply() { throw new Error(label + ': Date() reads the wall clock: use rdma.now()'); },
    get(target, key) {
      if (key === 'now') return function () { throw new Error(label + ': Date.now() reads the wall clock: use rdma.now()'); };
      return target[key];
    },
  });
  let n = 0;
  let stopped = null;
  let onStop = null;
  const s = {
    tick() {
      if (stopped !== null) throw new Error(stopped);
      if (++n > LIMIT) {
        s.stop(label + ': ran ' + (LIMIT).toLocaleString('en-US') + ' loop iterations and calls without waiting for the fabric (an endless loop?); stopped');
        throw new Error(stopped);
      }
    },
    reset() { n = 0; },
    stop(message) {
      if (stopped !== null) return;
      stopped = message;
      if (onStop !== null) onStop(message);
    },
    get stopped() { return stopped; },
    onStop(f) { onStop = f; },
  };
  return s;
})()`;

/** A fresh context with the app's bundle evaluated in it, and its tick count (which also bounds the bundle's top level and `regions()`). */
function evaluate(source: string, file: string, label: string, limit = TICK_LIMIT): { context: vm.Context; exports: AppExports; ticks: Ticks } {
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate', codeGeneration: { strings: false, wasm: false } });
  const ticks = vm.runInContext(TICKS.replace('LABEL', JSON.stringify(label)).replace(/LIMIT/g, String(limit)), context) as Ticks;
  appPromises.push(vm.runInContext('Promise', context) as PromiseConstructor);
  watchRejections();
  const factory = vm.runInContext(source, context, { filename: file }) as (tick: () => void) => AppExports;
  const exports = factory(ticks.tick) ?? {};
  (context as { __app?: AppExports }).__app = exports;
  return { context, exports, ticks };
}

/**
 * Every host's regions, from the app's `regions` export (or none): a pure function evaluated
 * once per host in a scratch context. Throws an Error naming the app and the host.
 */
export function declaredRegions(source: string, module: string, ctx: SetupContext): Array<[string, RegionSpec]> {
  const { exports } = evaluate(source, module, `app ${module} on ${ctx.node} (regions)`);
  if (exports.regions === undefined) return [];
  if (typeof exports.regions !== 'function') throw new Error(`app ${module}: its export "regions" must be a function (node, hosts, args) → {name: {bytes, access}}`);
  let declared: unknown;
  try {
    declared = (exports.regions as (c: SetupContext) => unknown)(ctx);
  } catch (err) {
    throw new Error(`app ${module} on ${ctx.node}: regions() threw: ${describe(err)}`);
  }
  return checkRegions(declared, module, ctx.node);
}

function checkRegions(declared: unknown, module: string, node: string): Array<[string, RegionSpec]> {
  const where = `app ${module} on ${node}: regions()`;
  if (typeof declared !== 'object' || declared === null) throw new Error(`${where} must return {name: {bytes, access}}, got ${String(declared)}`);
  const out: Array<[string, RegionSpec]> = [];
  for (const [name, spec] of Object.entries(declared)) {
    if (spec === undefined) continue;
    const s = spec as Partial<RegionSpec> | null;
    if (typeof s !== 'object' || s === null || !(Number.isSafeInteger(s.bytes) && s.bytes! >= 0 && s.bytes! <= 1 << 30)) {
      throw new Error(`${where}: region "${name}" needs bytes, an integer 0..2^30, got ${JSON.stringify(s?.bytes ?? spec)}`);
    }
    const access = s.access ?? [];
    for (const a of access) if (a !== 'remoteRead' && a !== 'remoteWrite' && a !== 'remoteAtomic') throw new Error(`${where}: region "${name}": access must list remoteRead, remoteWrite or remoteAtomic, got ${JSON.stringify(a)}`);
    out.push([name, { bytes: s.bytes!, access: [...access] }]);
  }
  return out;
}

/** One app instance on one host. */
export class AppSandbox {
  private readonly context: vm.Context;
  private readonly startScript = new vm.Script('__rocelab_prelude.start(__app.default)');
  private readonly dispatchScript = new vm.Script('__rocelab_prelude.dispatch()');

  constructor(
    source: string,
    module: string,
    private readonly host: SandboxHost,
    /** Tests only: a smaller count keeps an endless `async` recursion's promises few. */
    tickLimit = TICK_LIMIT,
  ) {
    const { context, exports, ticks } = evaluate(source, module, host.label, tickLimit);
    if (typeof exports.default !== 'function') throw new Error(`app ${module}: its default export must be the app, an (async) function of rdma; got ${typeof exports.default}`);
    this.context = context;
    const make = vm.runInContext(PRELUDE, context, { filename: 'rocelab-app-prelude.js' }) as (h: SandboxHost, t: Ticks) => Prelude;
    (context as { __rocelab_prelude?: Prelude }).__rocelab_prelude = make(host, ticks);
  }

  /** Run the app until it first waits (its continuations included). */
  start(): void {
    this.run(this.startScript);
  }

  /** Hand the app its events (`host.takeEvents`) and the time; returns once it waits again. */
  dispatch(): void {
    this.run(this.dispatchScript);
  }

  /** A script in the context: the context's microtasks (the app's continuations) all run before it returns. */
  private run(script: vm.Script): void {
    try {
      script.runInContext(this.context);
    } catch (err) {
      // The prelude catches the app's errors; what reaches here broke the context itself (a stack overflow in a tick…).
      this.host.failed(`${this.host.label}: ${describe(err)}`);
    }
  }
}
