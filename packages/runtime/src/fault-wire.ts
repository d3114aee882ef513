/**
 * Faults on the wire (`Fault` in grants) and in the fault log: the fault as written, as JSON,
 * with the time it applies (for a live fault, the time the controller stamped) — its random
 * forms (`node: {random: …}`, `at`/`for: {uniform: …}`) replaced by what the loader drew, so a
 * record names one node and one time and means the same to every reader and replay. A member
 * resolves it with the same fault table and pod as everyone else, so every process derives the
 * same events. A live fault cleared early travels as kind `clear`, naming the fault it undoes and
 * numbered as that fault (a clear takes no number of its own): to the engine it is the fault's
 * own `for` ending at the clear's time (`scheduleClear`), so a session's log, its replay
 * (`rocelab run --faults LOG`) and the drill `rocelab fault export` writes from it (each cleared
 * fault with `for`) schedule the same events with the same numbers: the same trace hash.
 *
 * This module is the one place a record's `spec` (JSON text) is written and read: `faultPayload`
 * parses it once and checks it — the item against the topology's fault item schema (the
 * precompiled validator a topology file's faults are checked with), a clear's number and time by
 * hand — and hands out a typed `FaultPayload`; nothing else parses a spec. The spec stays a JSON
 * text on the wire and in the log because it is the fault item as written, whose keys are the
 * fault table's (@rocelab/topology fault-kinds.ts), and because the log is a file users keep and
 * replay: its format does not change.
 */
import type { Engine } from '@rocelab/sim';
import { Problems, faultContext, faultItemSchema, resolveFault, schemaValidator, validateWith, type FaultSpec, type PodSpec, type RawFault } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';
import { scheduleClear, scheduleFault } from './faults.js';
import type { PodContext } from './pod-context.js';

/** Where a fault of the log came from. */
export type FaultSource = 'topology' | 'live';

/** One record of a run's fault log: a fault (or the clearing of one) as it travelled. */
export interface FaultLogEntry extends Fault {
  source: FaultSource;
}

export const CLEAR_KIND = 'clear';

/** Thrown for a fault log that is not one: says which entry and what it lacks. */
export class FaultLogError extends Error {}

/**
 * A fault log's entries as read from JSON (a file, or `ROCELAB_REPLAY_FAULTS`), checked for
 * shape; whether they fit the pod is `FaultBook`'s to say.
 */
export function faultLogEntries(data: unknown): FaultLogEntry[] {
  if (!Array.isArray(data)) throw new FaultLogError('expected a list of fault log entries');
  return data.map((e: unknown, i) => {
    const r = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
    const bad = (key: string, expected: string) => new FaultLogError(`faults[${i}].${key}: expected ${expected}, got ${JSON.stringify(r[key]) ?? 'nothing'}`);
    if (!Number.isSafeInteger(r.id) || (r.id as number) < 0) throw bad('id', 'a fault number (an integer ≥ 0)');
    if (!Number.isSafeInteger(r.atPs) || (r.atPs as number) < 0) throw bad('atPs', 'a virtual time in ps (an integer ≥ 0)');
    for (const key of ['kind', 'target', 'spec']) if (typeof r[key] !== 'string') throw bad(key, 'a string');
    if (r.source !== 'topology' && r.source !== 'live') throw bad('source', '"topology" or "live"');
    const entry: FaultLogEntry = { id: r.id as number, atPs: r.atPs as number, kind: r.kind as string, target: r.target as string, spec: r.spec as string, source: r.source };
    try {
      faultPayload(entry);
    } catch (err) {
      if (err instanceof FaultPayloadError) throw new FaultLogError(`faults[${i}].${err.detail}`);
      throw err;
    }
    return entry;
  });
}

/** `raw` is the item as drawn (FaultSpec): never a random form. */
export function faultToWire(fault: FaultSpec): Fault {
  return { id: fault.index, atPs: fault.atPs, kind: fault.kind, target: fault.target, spec: JSON.stringify(fault.raw) };
}

/** Fault `fault` undone at `atPs`: numbered as the fault it ends (a clear takes no number of its own). */
export function clearToWire(atPs: number, fault: FaultSpec): Fault {
  return { id: fault.index, atPs, kind: CLEAR_KIND, target: fault.target, spec: JSON.stringify({ clears: fault.index, at: fault.atPs, raw: fault.raw }) };
}

/** Thrown for a wire fault that does not resolve: a controller and a member that disagree on the pod. */
export class WireFaultError extends Error {}

/** A record whose spec is not what its kind carries; `detail` is `spec…: expected …, got …`. */
export class FaultPayloadError extends WireFaultError {
  constructor(
    id: number,
    readonly detail: string,
  ) {
    super(`fault ${id}: ${detail}`);
  }
}

/**
 * A record's spec as read: the fault item (for a clear, the item of the fault it clears) with the
 * record's kind and time, and for a clear which fault it undoes and that fault's time.
 */
export interface FaultPayload {
  item: RawFault;
  clears: { fault: number; atPs: number } | null;
}

/** The fault item schema, one object for every call (its validator is cached per schema object). */
const FAULT_ITEM_SCHEMA = faultItemSchema();

/**
 * The spec of a wire fault or log record, parsed and checked: a record whose spec is not JSON,
 * not a fault item, or (kind `clear`) not `{clears, at, raw}` is refused with what is wrong.
 */
export function faultPayload(fault: Fault): FaultPayload {
  let data: unknown;
  try {
    data = JSON.parse(fault.spec) as unknown;
  } catch {
    throw new FaultPayloadError(fault.id, `spec: expected the fault as JSON, got ${JSON.stringify(fault.spec.slice(0, 80))}`);
  }
  if (fault.kind !== CLEAR_KIND) return { item: checkedItem(fault, asRecord(data, { kind: fault.kind, at: `${fault.atPs}ps` }), 'spec'), clears: null };
  const { clears, at, raw } = isObject(data) ? data : {};
  if (!isCount(clears)) throw new FaultPayloadError(fault.id, `spec.clears: expected the number of the fault it clears (an integer ≥ 0), got ${JSON.stringify(clears) ?? 'nothing'}`);
  if (!isCount(at)) throw new FaultPayloadError(fault.id, `spec.at: expected the cleared fault's time in ps (an integer ≥ 0), got ${JSON.stringify(at) ?? 'nothing'}`);
  return { item: checkedItem(fault, asRecord(raw, { at: `${at}ps` }), 'spec.raw'), clears: { fault: clears, atPs: at } };
}

/**
 * An object with `record`'s keys over its own: a record's kind and time are the record's
 * (`kind`, `atPs`; a clear's, the cleared fault's time), whatever its spec says of them, as they
 * always were (a log written by hand may leave them out of the spec). Anything else as it is.
 */
function asRecord(data: unknown, record: Record<string, string>): unknown {
  return isObject(data) ? { ...data, ...record } : data;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isCount(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 0;
}

function checkedItem(fault: Fault, data: unknown, path: string): RawFault {
  if (!isFaultItem(data)) {
    const lines = validateWith(FAULT_ITEM_SCHEMA, data, path).map((p) => `${p.path}: expected ${p.expected}, got ${p.actual}`);
    throw new FaultPayloadError(fault.id, lines.join('; '));
  }
  return data;
}

/** True when the fault item schema finds nothing wrong: then `data` is a fault item as written. */
function isFaultItem(data: unknown): data is RawFault {
  return schemaValidator(FAULT_ITEM_SCHEMA).validate(data);
}

export function faultFromWire(fault: Fault, pod: PodSpec): FaultSpec {
  return resolveWire(faultPayload(fault).item, fault.kind, fault.id, fault.atPs, pod);
}

/** Schedules a wire fault (or the clearing of one) on the nodes this engine hosts. */
export function scheduleWireFault(engine: Engine, pc: PodContext, fault: Fault, hosted: ReadonlySet<number>): void {
  const { item, clears } = faultPayload(fault);
  if (clears === null) return scheduleFault(engine, pc, resolveWire(item, fault.kind, fault.id, fault.atPs, pc.pod), hosted);
  // The record's own id is not used: a log written before clears took their fault's number replays too.
  scheduleClear(engine, pc, resolveWire(item, item.kind, clears.fault, clears.atPs, pc.pod), fault.atPs, hosted);
}

function resolveWire(raw: RawFault, kind: string, id: number, atPs: number, pod: PodSpec): FaultSpec {
  const problems = new Problems();
  const spec = resolveFault({ ...raw, kind, at: `${atPs}ps` }, id, `fault ${id}`, faultContext(new Map(pod.nodes.map((n) => [n.name, n])), pod.links), problems);
  if (spec === null) throw new WireFaultError(`fault ${id} (${kind}) does not fit pod ${pod.name}: ${problems.list.map((p) => `${p.path}: expected ${p.expected}, got ${p.actual}`).join('; ')}`);
  return spec;
}

/**
 * A log's records numbered from `first` on when they start below it (`rocelab drill run --faults`:
 * a drill's variant may have more faults of its own than the session's pod had, and two faults
 * must never share the numbers their events are ordered by); a clear keeps naming its fault. The
 * order and the times stay as they are.
 */
export function renumberFrom(entries: readonly FaultLogEntry[], first: number): FaultLogEntry[] {
  const lowest = Math.min(...entries.map((e) => (e.kind === CLEAR_KIND ? Infinity : e.id)));
  const shift = Number.isFinite(lowest) && lowest < first ? first - lowest : 0;
  if (shift === 0) return [...entries];
  return entries.map((e) => {
    const { clears } = faultPayload(e);
    if (clears === null) return { ...e, id: e.id + shift };
    const spec = JSON.parse(e.spec) as Record<string, unknown>;
    return { ...e, id: e.id + shift, spec: JSON.stringify({ ...spec, clears: clears.fault + shift }) };
  });
}
