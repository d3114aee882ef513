/**
 * A machine for one app: QuickJS (Bellard's engine, compiled to WebAssembly by the
 * quickjs-emscripten project) in a WebAssembly instance of its own, with a memory of fixed size.
 * Nothing of Node exists inside: no `process`, no `require`, no file, socket or clock. The app
 * reaches the host only through the one function the sandbox hands its prelude, and what
 * crosses is copied (numbers, strings) or lies in the machine's own memory (its regions, which
 * the NIC reads and writes as a real NIC DMAs into host memory).
 *
 * Bounded and deterministic (docs/architecture/apps.md):
 * - **Work** is counted, not timed: every loop iteration and function call of the engine's own
 *   machine code spends a unit of fuel (wasm-meter.ts), whether it interprets the app's code or
 *   runs a built-in (a regex, a sort, `JSON.parse`), and `arm(steps)` allows that many before the
 *   machine traps. The same program with the same inputs traps at the same step everywhere; a
 *   machine that trapped never runs again (its memory, the app's regions, stays readable).
 * - **Memory**: QuickJS's own accounting refuses allocations past `memoryBytes` (an
 *   `InternalError: out of memory` the app sees); the WebAssembly memory itself has a fixed size
 *   (twice that, the regions and the engine's own), so the machine can never grow and the views
 *   the NIC holds into it never move.
 * - **Stack**: 64 KiB of QuickJS stack (about 350 plain calls deep), well inside what Node's own
 *   stack leaves the interpreter's native frames wherever the engine calls it from; a deeper
 *   recursion is a `stack overflow` error in the app, not a crash of the process.
 *
 * One instance per app, never shared: allocator state, garbage collection and the memory limit
 * then depend on that app's own history only, so they are the same in every mode.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FUEL_EXPORT, meter } from './wasm-meter.js';

/**
 * The part of the variant's interface (`@jitl/quickjs-wasmfile-release-sync/ffi`) a machine uses;
 * pointers are plain numbers. Those that take only numbers are the WebAssembly exports themselves
 * (the variant's wrappers convert arguments on every call: a third of an event's cost, measured).
 */
interface Ffi {
  QTS_NewRuntime(): number;
  QTS_RuntimeSetMemoryLimit(rt: number, limit: number): void;
  QTS_RuntimeSetMaxStackSize(rt: number, bytes: number): void;
  QTS_NewContext(rt: number, intrinsics: number): number;
  QTS_Eval(ctx: number, code: number, length: number, filename: string, detectModule: number, flags: number): number;
  QTS_Call(ctx: number, fn: number, thisValue: number, argc: number, argv: number): number;
  QTS_ResolveException(ctx: number, value: number): number;
  QTS_ExecutePendingJob(rt: number, maxJobs: number, lastContext: number): number;
  QTS_IsJobPending(rt: number): number;
  QTS_Dump(ctx: number, value: number): number;
  QTS_GetUndefined(): number;
  QTS_NewFunction(ctx: number, name: string, length: number, isConstructor: boolean, id: number): number;
  QTS_ArgvGetJSValueConstPointer(argv: number, index: number): number;
  QTS_NewString(ctx: number, chars: number): number;
  QTS_GetString(ctx: number, value: number): number;
  QTS_FreeCString(ctx: number, chars: number): void;
  QTS_NewFloat64(ctx: number, n: number): number;
  QTS_NewArrayBuffer(ctx: number, data: number, length: number): number;
  QTS_FreeValuePointer(ctx: number, value: number): void;
}

/** Functions of `Ffi` that take a string: called through the variant's wrappers. */
const WITH_STRINGS = ['QTS_Eval', 'QTS_NewFunction'] as const;
const FFI_NAMES: ReadonlyArray<keyof Ffi> = [
  'QTS_NewRuntime', 'QTS_RuntimeSetMemoryLimit', 'QTS_RuntimeSetMaxStackSize', 'QTS_NewContext', 'QTS_Eval', 'QTS_Call', 'QTS_ResolveException',
  'QTS_ExecutePendingJob', 'QTS_IsJobPending', 'QTS_Dump', 'QTS_GetUndefined', 'QTS_NewFunction', 'QTS_ArgvGetJSValueConstPointer',
  'QTS_NewString', 'QTS_GetString', 'QTS_FreeCString', 'QTS_NewFloat64', 'QTS_NewArrayBuffer', 'QTS_FreeValuePointer',
];

interface EmscriptenModule {
  [raw: `_QTS_${string}`]: unknown;
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  stringToUTF8(text: string, ptr: number, maxBytes: number): void;
  lengthBytesUTF8(text: string): number;
  UTF8ToString(ptr: number): string;
  callbacks: {
    callFunction(asyncify: unknown, ctx: number, thisPtr: number, argc: number, argv: number, id: number): number;
    shouldInterrupt(asyncify: unknown, rt: number): 0 | 1;
    loadModuleSource(): number;
    normalizeModule(): number;
    freeHostRef(): void;
  };
}

/** WebAssembly as Node has it (the project's `lib` has no DOM types). */
interface WasmModule {
  readonly __wasmModule: unique symbol;
}
interface WasmInstance {
  exports: Record<string, unknown>;
}
interface WasmGlobal {
  value: number;
}
interface WasmMemory {
  buffer: ArrayBuffer;
}
const Wasm = (globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => WasmModule;
    Instance: new (module: WasmModule, imports: object) => WasmInstance;
    Memory: new (limits: { initial: number; maximum: number }) => WasmMemory;
  };
}).WebAssembly;

interface EmscriptenOptions {
  wasmMemory: WasmMemory;
  instantiateWasm(imports: object, onSuccess: (instance: WasmInstance, module: WasmModule) => void): object;
  print(): void;
  printErr(): void;
}

interface Engine {
  wasm: WasmModule;
  load: (options: EmscriptenOptions) => Promise<EmscriptenModule>;
  Ffi: new (module: EmscriptenModule) => Ffi;
}

const VARIANT = '@jitl/quickjs-wasmfile-release-sync';
const PAGE = 65_536;
/** The variant's own memory when it makes one (`INITIAL_MEMORY`): its data, stack and first heap fit here. */
const ENGINE_BYTES = 16 * 1024 * 1024;
export const STACK_BYTES = 64 * 1024;
/** The most fuel one entry can be given (the counter is a signed 32-bit integer). */
export const MAX_STEPS = 2 ** 31 - 1;
const MAX_ARGS = 8;

/**
 * QuickJS's `JS_AddIntrinsic*` flags (`@jitl/quickjs-ffi-types` `IntrinsicsFlags`): the language
 * and its data structures, no `Date` (the wall clock and the machine's time zone).
 */
const INTRINSICS = {
  BaseObjects: 1 << 0,
  Eval: 1 << 2,
  StringNormalize: 1 << 3,
  RegExp: 1 << 4,
  RegExpCompiler: 1 << 5,
  JSON: 1 << 6,
  Proxy: 1 << 7,
  MapSet: 1 << 8,
  TypedArrays: 1 << 9,
  Promise: 1 << 10,
  BigInt: 1 << 11,
};
const CONTEXT_INTRINSICS = Object.values(INTRINSICS).reduce((a, b) => a | b, 0);

let engine: Engine | null = null;

/** The variant's WebAssembly, compiled once per process; each machine instantiates it afresh. */
function loadEngine(): Engine {
  if (engine !== null) return engine;
  const req = typeof require === 'function' ? require : createRequire(import.meta.url);
  const loader = req(`${VARIANT}/emscripten-module`) as Engine['load'] | { default: Engine['load'] };
  engine = {
    wasm: new Wasm.Module(meter(readFileSync(req.resolve(`${VARIANT}/wasm`)))),
    load: typeof loader === 'function' ? loader : loader.default,
    Ffi: (req(`${VARIANT}/ffi`) as { QuickJSFFI: Engine['Ffi'] }).QuickJSFFI,
  };
  return engine;
}

/** What went wrong in the machine: the JavaScript error as QuickJS reports it, or the machine itself broke. */
export interface MachineError {
  name: string;
  message: string;
  stack: string;
  /** The step budget ran out (`arm`): the machine trapped. */
  exhausted: boolean;
}

export type Outcome = { ok: true; value: number } | { ok: false; error: MachineError };

/** A host function's answer: nothing, a number, or a string. */
export type HostResult = undefined | number | string;

export interface MachineOptions {
  /** QuickJS's own allocations, at most. */
  memoryBytes: number;
  /** Bytes `allocate` will hand out beside them (the app's regions, the mailbox). */
  extraBytes: number;
}

export class Machine {
  private exhausted = false;
  /** Fuel the app has left of the last `arm`; the host's own calls into the machine run on a full tank between entries. */
  private budget: number = MAX_STEPS;
  /** The WebAssembly instance failed under the interpreter (a trap, Node's stack): nothing may run in it again. */
  broken: string | null = null;
  private hostFunction: ((argc: number, argv: number) => HostResult) | null = null;
  private readonly lastJobContext: number;
  /** Room for a call's arguments (the prelude's entries take at most a few). */
  private readonly argv: number;
  private readonly undefinedValue: number;
  private readonly u32: Uint32Array;

  private constructor(
    private readonly module: EmscriptenModule,
    private readonly ffi: Ffi,
    private readonly fuel: WasmGlobal,
    readonly rt: number,
    readonly ctx: number,
  ) {
    this.lastJobContext = module._malloc(4);
    this.argv = module._malloc(4 * MAX_ARGS);
    this.undefinedValue = ffi.QTS_GetUndefined();
    this.u32 = new Uint32Array(module.HEAPU8.buffer);
  }

  /** A fresh machine. Asynchronous only because the variant's loader is: nothing is read or fetched (the WebAssembly is compiled once per process). */
  static async create(options: MachineOptions): Promise<Machine> {
    const e = loadEngine();
    const pages = Math.ceil((ENGINE_BYTES + 2 * options.memoryBytes + options.extraBytes) / PAGE);
    let self: Machine | null = null;
    let fuel: WasmGlobal | null = null;
    const module = await e.load({
      wasmMemory: new Wasm.Memory({ initial: pages, maximum: pages }),
      instantiateWasm(imports, onSuccess) {
        const instance = new Wasm.Instance(e.wasm, imports);
        fuel = instance.exports[FUEL_EXPORT] as WasmGlobal;
        onSuccess(instance, e.wasm);
        return instance.exports;
      },
      print() {},
      printErr() {},
    });
    module.callbacks = {
      callFunction: (_asyncify, _ctx, _this, argc, argv) => self!.onCall(argc, argv),
      shouldInterrupt: () => 0,
      loadModuleSource: () => 0,
      normalizeModule: () => 0,
      freeHostRef: () => {},
    };
    const wrapped = new e.Ffi(module);
    const ffi = Object.fromEntries(FFI_NAMES.map((name) => [name, (WITH_STRINGS as readonly string[]).includes(name) ? wrapped[name] : module[`_${name}`]])) as unknown as Ffi;
    const rt = ffi.QTS_NewRuntime();
    ffi.QTS_RuntimeSetMemoryLimit(rt, options.memoryBytes);
    ffi.QTS_RuntimeSetMaxStackSize(rt, STACK_BYTES);
    // Enough fuel to make the context; every entry after is armed with the app's budget.
    fuel!.value = MAX_STEPS;
    const ctx = ffi.QTS_NewContext(rt, CONTEXT_INTRINSICS);
    if (ctx === 0) throw new Error('the app machine could not make a QuickJS context (out of memory?)');
    self = new Machine(module, ffi, fuel!, rt, ctx);
    self.checkValueLayout();
    return self;
  }

  /** `runJobs` tells a count from an exception by the value's tag word (NaN boxing, as QuickJS does on 32-bit machines): make sure this build does. */
  private checkValueLayout(): void {
    const object = this.eval('({})', 'layout.js');
    const number = this.eval('3', 'layout.js');
    const ok = object.ok && number.ok && this.u32[(object.value >> 2) + 1] === 0xffff_ffff && this.u32[(number.value >> 2) + 1] !== 0xffff_ffff;
    if (object.ok) this.free(object.value);
    if (number.ok) this.free(number.value);
    if (!ok) throw new Error('the app engine stores its values otherwise than a 32-bit QuickJS does (NaN boxing): this build cannot run apps');
  }

  /** The machine's memory (fixed: views into it stay valid). */
  get heap(): Uint8Array {
    return this.module.HEAPU8;
  }

  /** Allow the entries from now on `steps` steps of the engine (loop iterations and calls of its machine code) in all before the machine traps. */
  arm(steps: number): void {
    this.budget = Math.min(steps, MAX_STEPS);
  }

  /** Steps left of the last `arm(steps)` (negative once it trapped). */
  get fuelLeft(): number {
    return this.budget;
  }

  /** Evaluate a script (global code); its completion value. */
  eval(code: string, file: string): Outcome {
    const bytes = this.module.lengthBytesUTF8(code);
    const chars = this.module._malloc(bytes + 1);
    if (chars === 0) throw new Error('the app machine has no memory left for the script');
    this.module.stringToUTF8(code, chars, bytes + 1);
    const outcome = this.run(() => this.ffi.QTS_Eval(this.ctx, chars, bytes, file, 0, 0));
    if (this.broken === null) this.module._free(chars);
    return outcome;
  }

  /** Call `fn` with `args` (at most MAX_ARGS values this machine made; borrowed, not freed). */
  call(fn: number, args: readonly number[] = []): Outcome {
    if (args.length > MAX_ARGS) throw new Error(`a machine call takes at most ${MAX_ARGS} arguments`);
    for (let i = 0; i < args.length; i++) this.u32[(this.argv >> 2) + i] = args[i]!;
    return this.run(() => this.ffi.QTS_Call(this.ctx, fn, this.undefinedValue, args.length, this.argv));
  }

  /** Run every pending job (promise reactions: the app's continuations) until none is left. */
  runJobs(): Outcome {
    if (this.broken !== null || this.ffi.QTS_IsJobPending(this.rt) === 0) return { ok: true, value: 0 };
    this.module.HEAPU8.fill(0, this.lastJobContext, this.lastJobContext + 4);
    const outcome = this.run(() => this.ffi.QTS_ExecutePendingJob(this.rt, -1, this.lastJobContext));
    if (!outcome.ok) return outcome;
    // The count of jobs run, or the exception a job ended in: an object, whose tag (JS_TAG_OBJECT, -1) is the high word of QuickJS's NaN-boxed value on a 32-bit machine.
    if (this.u32[(outcome.value >> 2) + 1] !== 0xffff_ffff) {
      this.free(outcome.value);
      return { ok: true, value: 0 };
    }
    // A job ended in an exception: only what QuickJS cannot turn into a rejection (memory its own machinery needed).
    const error = this.describe(outcome.value);
    this.free(outcome.value);
    return { ok: false, error };
  }

  /** The one function through which the app reaches the host: `f(argc, argv)` reads its arguments with `number`/`string`. */
  installHost(name: string, f: (argc: number, argv: number) => HostResult): number {
    this.hostFunction = f;
    return this.ffi.QTS_NewFunction(this.ctx, name, 0, false, 1);
  }

  /** The `index`-th of a host call's `argc` arguments, as a string (the prelude passes strings only); '' if there is none. */
  string(argc: number, argv: number, index: number): string {
    if (index >= argc) return '';
    const chars = this.ffi.QTS_GetString(this.ctx, this.ffi.QTS_ArgvGetJSValueConstPointer(argv, index));
    if (chars === 0) return '';
    const text = this.module.UTF8ToString(chars);
    this.ffi.QTS_FreeCString(this.ctx, chars);
    return text;
  }

  /** `undefined`, for an argument (a constant: never freed). */
  get undefined(): number {
    return this.undefinedValue;
  }

  /** A value of this machine as a string (`String(value)` inside it). */
  stringOf(value: number): string {
    const chars = this.ffi.QTS_GetString(this.ctx, value);
    if (chars === 0) return '';
    const text = this.module.UTF8ToString(chars);
    this.ffi.QTS_FreeCString(this.ctx, chars);
    return text;
  }

  newString(text: string): number {
    const bytes = this.module.lengthBytesUTF8(text);
    const chars = this.module._malloc(bytes + 1);
    if (chars === 0) throw new Error('the app machine has no memory left for a string');
    this.module.stringToUTF8(text, chars, bytes + 1);
    const value = this.ffi.QTS_NewString(this.ctx, chars);
    this.module._free(chars);
    return value;
  }

  /** `bytes` zeroed bytes of the machine's memory, outside QuickJS's accounting, and an ArrayBuffer over them (which owns them). */
  allocate(bytes: number): { pointer: number; arrayBuffer: number } {
    const pointer = this.module._malloc(Math.max(1, bytes));
    if (pointer === 0) throw new Error(`the app machine has no room for ${bytes} bytes`);
    this.module.HEAPU8.fill(0, pointer, pointer + bytes);
    return { pointer, arrayBuffer: this.ffi.QTS_NewArrayBuffer(this.ctx, pointer, bytes) };
  }

  free(value: number): void {
    if (value !== 0 && this.broken === null) this.ffi.QTS_FreeValuePointer(this.ctx, value);
  }

  private onCall(argc: number, argv: number): number {
    const result = this.hostFunction === null ? undefined : this.hostFunction(argc, argv);
    if (result === undefined) return 0;
    if (typeof result === 'string') return this.newString(result);
    return this.ffi.QTS_NewFloat64(this.ctx, result);
  }

  /** One entry into the interpreter: its value or its exception; a failure of the instance itself breaks the machine. */
  private run(enter: () => number): Outcome {
    if (this.broken !== null) return { ok: false, error: { name: 'Error', message: this.broken, stack: '', exhausted: false } };
    let value: number;
    this.fuel.value = this.budget;
    try {
      value = enter();
    } catch (err) {
      // The fuel ran out (the trap), or another trap in the engine, or Node's own stack exhausted under its native frames: its state is unknown now.
      this.budget = this.fuel.value;
      this.exhausted = this.budget < 0;
      this.broken = this.exhausted ? 'its step budget ran out' : `the app's interpreter failed (${err instanceof Error ? `${err.name}: ${err.message}` : String(err)})`;
      return { ok: false, error: { name: 'Error', message: this.broken, stack: '', exhausted: this.exhausted } };
    }
    this.budget = this.fuel.value;
    this.fuel.value = MAX_STEPS;
    const exception = this.ffi.QTS_ResolveException(this.ctx, value);
    if (exception === 0) return { ok: true, value };
    this.free(value);
    const error = this.describe(exception);
    this.free(exception);
    return { ok: false, error };
  }

  private describe(value: number, exhausted = false): MachineError {
    const chars = this.ffi.QTS_Dump(this.ctx, value);
    const text = this.module.UTF8ToString(chars);
    this.ffi.QTS_FreeCString(this.ctx, chars);
    try {
      const v = JSON.parse(text) as { name?: unknown; message?: unknown; stack?: unknown } | null;
      if (typeof v === 'object' && v !== null && typeof v.message === 'string') {
        return { name: typeof v.name === 'string' ? v.name : 'Error', message: v.message, stack: typeof v.stack === 'string' ? v.stack : '', exhausted };
      }
      return { name: 'Error', message: typeof v === 'string' ? v : text, stack: '', exhausted };
    } catch {
      return { name: 'Error', message: text, stack: '', exhausted };
    }
  }
}
