/**
 * The fault log of a pod, and the rules of the fault API (DESIGN §3 "Faults are events"): a live
 * fault is checked against the pod like a file's, stamped with the start of the first lease not
 * yet granted (`at: now`, `+2ms` after it, or an absolute time not before it), and recorded; a
 * fault not yet granted can be withdrawn, one that applied and can be undone is cleared by a
 * `clear` record at the stamp, numbered as the fault (to the engine, the fault's `for` ending there). The log is what replays the run: topology faults, live faults and
 * clears with their times and numbers. Pure: the controller wires it to HTTP and the coordinator.
 */
import { Problems, faultContext, faultItemSchema, parseDuration, resolveFault, schemaValidator, validateWith, type FaultSpec, type RawFault } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';
import { CLEAR_KIND, clearToWire, faultFromWire, faultPayload, faultToWire, type FaultLogEntry } from './fault-wire.js';
import { faultEvents, FaultTargetError, undoable } from './faults.js';
import { nodeLifeProblems } from './lost-nodes.js';
import type { PodContext } from './pod-context.js';

/** A refused API call: an HTTP status and what is wrong. */
export class FaultApiError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

/** A fault as the API shows it. */
export interface FaultView {
  id: number;
  kind: string;
  target: string;
  source: string;
  atNs: number;
  /** When it ends: its `for`, or when it was cleared; null = never. */
  untilNs: number | null;
  state: 'scheduled' | 'active' | 'ended' | 'cleared' | 'withdrawn';
  raw: Record<string, unknown>;
}

/** One compiled schema for every API call (the validator is cached per schema object). */
const FAULT_SCHEMA = faultItemSchema();

export class FaultBook {
  private readonly log: FaultLogEntry[] = [];
  private readonly specs = new Map<number, FaultSpec>();
  private readonly clearedAt = new Map<number, number>();
  private readonly withdrawn = new Set<number>();
  private nextId: number;

  /** `initial`: the topology's faults and any replayed log, as they travel. */
  constructor(
    private readonly pc: PodContext,
    initial: readonly FaultLogEntry[],
  ) {
    // The fault schema's validator (the build's standalone code, ≈ 40 ms to load) is loaded with
    // the book, before the pod runs, not inside the first live fault on the controller's loop.
    schemaValidator(FAULT_SCHEMA);
    for (const e of initial) this.add(e);
    this.nextId = Math.max(pc.pod.faults.length, ...initial.map((e) => e.id + 1));
  }

  /**
   * A fault from the API: `raw` is a fault item as in a topology file, except that `at` is
   * `now` (or absent), `+D` after the stamp, or an absolute time not before it.
   */
  prepare(raw: Record<string, unknown>, stampPs: number): Fault {
    const at = raw.at === undefined || raw.at === 'now' ? stampPs : typeof raw.at === 'string' && raw.at.startsWith('+') ? stampPs + this.duration(raw.at.slice(1), 'at') : this.duration(raw.at, 'at');
    if (at < stampPs) throw new FaultApiError(409, `at ${String(raw.at)}: the pod has granted time up to ${stampPs / 1e6} µs; a fault may apply from there on (at: now, or +D)`);
    if (typeof raw.kind !== 'string') throw new FaultApiError(400, 'kind: expected a fault kind, got nothing');
    const item = { ...raw, at: `${at}ps` };
    // The shape first, as a topology file's faults are: resolution assumes a known kind.
    const problems = new Problems();
    problems.list.push(...validateWith(FAULT_SCHEMA, item, 'fault'));
    const spec = problems.list.length > 0 ? null : resolveFault(item as RawFault, this.nextId, 'fault', faultContext(new Map(this.pc.pod.nodes.map((n) => [n.name, n])), this.pc.pod.links), problems);
    if (spec === null) {
      const lines = problems.list.map((p) => `${p.path}: expected ${p.expected}, got ${p.actual}`);
      throw new FaultApiError(400, `the fault does not fit pod ${this.pc.pod.name}: ${lines.join('; ')}`, lines);
    }
    this.checkTargets(spec);
    const fault = faultToWire(spec);
    // A kill of a dead node, a restart of a living one, a restart too soon after its kill.
    const lives = nodeLifeProblems(this.pc.pod, this.entries(), fault);
    if (lives.length > 0) throw new FaultApiError(409, `the fault does not fit the nodes' lives in pod ${this.pc.pod.name}: ${lives.join('; ')}`, lives);
    return fault;
  }

  /** Records a fault the coordinator accepted (stamped) and returns its record. */
  record(fault: Fault): FaultLogEntry {
    this.nextId = Math.max(this.nextId, fault.id + 1);
    return this.add({ ...fault, source: 'live' });
  }

  /** The number the next live fault or clear gets. */
  get next(): number {
    return this.nextId;
  }

  /** Marks a fault the coordinator withdrew before any grant carried it. */
  withdraw(id: number): void {
    this.withdrawn.add(id);
  }

  /**
   * The clear record undoing fault `id` at `stampPs`, or why it cannot be cleared: unknown,
   * not applied yet (withdraw it instead), already over, or nothing to undo.
   */
  clearOf(id: number, stampPs: number): Fault {
    const spec = this.open(id);
    if (spec.forPs !== null && spec.atPs + spec.forPs <= stampPs) throw new FaultApiError(409, `fault ${id} already ended at ${(spec.atPs + spec.forPs) / 1e6} µs`);
    // A clear is the fault's own `for` ending early (faults.ts `scheduleClear`): a fault with a `for`
    // of its own already has that end scheduled on the nodes, and would end twice.
    if (spec.forPs !== null) throw new FaultApiError(409, `fault ${id} ends by itself at ${(spec.atPs + spec.forPs) / 1e6} µs (its for): only a fault without for can be cleared`);
    if (!undoable(this.pc, spec)) throw new FaultApiError(409, `fault ${id} (${spec.kind}) has nothing to undo once applied`);
    const clear = clearToWire(Math.max(stampPs, spec.atPs), spec);
    // Clearing a kill restarts the node: not before its links' in-flight frames are lost to it.
    const lives = nodeLifeProblems(this.pc.pod, this.entries(), clear);
    if (lives.length > 0) throw new FaultApiError(409, `fault ${id} cannot be cleared yet: ${lives.join('; ')}`, lives);
    return clear;
  }

  /**
   * The fault numbered `id`, neither withdrawn nor cleared: what a `DELETE /faults/ID` may act on.
   * Checked before the coordinator is asked to withdraw it, since a clear carries its fault's number.
   */
  open(id: number): FaultSpec {
    const spec = this.specs.get(id);
    if (spec === undefined || this.withdrawn.has(id)) throw new FaultApiError(404, `no fault ${id} in this pod's log (GET /faults lists them)`);
    if (this.clearedAt.has(id)) throw new FaultApiError(409, `fault ${id} was already cleared at ${this.clearedAt.get(id)! / 1e6} µs`);
    return spec;
  }

  /** Every record, in the order made (what `--faults` replays). */
  entries(): FaultLogEntry[] {
    return this.log.filter((e) => !this.withdrawn.has(e.id));
  }

  /** The faults as they stand at virtual time `nowPs`. */
  view(nowPs: number): FaultView[] {
    return this.log
      .filter((e) => e.kind !== CLEAR_KIND)
      .map((e) => {
        const spec = this.specs.get(e.id)!;
        const cleared = this.clearedAt.get(e.id) ?? null;
        const end = cleared ?? (spec.forPs === null ? null : spec.atPs + spec.forPs);
        const state: FaultView['state'] = this.withdrawn.has(e.id) ? 'withdrawn' : nowPs < spec.atPs ? 'scheduled' : end !== null && nowPs >= end ? (cleared !== null ? 'cleared' : 'ended') : 'active';
        return { id: e.id, kind: e.kind, target: e.target, source: e.source, atNs: spec.atPs / 1000, untilNs: end === null ? null : end / 1000, state, raw: spec.raw };
      });
  }

  private add(e: FaultLogEntry): FaultLogEntry {
    this.log.push(e);
    const { clears } = faultPayload(e);
    if (clears !== null) {
      this.clearedAt.set(clears.fault, e.atPs);
    } else {
      this.specs.set(e.id, faultFromWire(e, this.pc.pod));
    }
    return e;
  }

  /** Targets only the runtime can check (a packet event's flow must exist). */
  private checkTargets(spec: FaultSpec): void {
    try {
      faultEvents(this.pc, spec);
    } catch (err) {
      if (err instanceof FaultTargetError) throw new FaultApiError(400, err.message, [err.message]);
      throw err;
    }
  }

  private duration(text: unknown, key: string): number {
    try {
      return parseDuration(text as string);
    } catch {
      throw new FaultApiError(400, `${key}: expected now, +D or a time like 5ms, got ${JSON.stringify(text)}`);
    }
  }
}
