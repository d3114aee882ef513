/**
 * Faults on the wire (`Fault` in grants) and in the fault log: the fault as written, as JSON,
 * with the time it applies (for a live fault, the time the controller stamped) — its random
 * forms (`node: {random: …}`, `at`/`for: {uniform: …}`) replaced by what the loader drew, so a
 * record names one node and one time and means the same to every reader and replay. A member
 * resolves it with the same fault table and pod as everyone else, so every process derives the
 * same events. A live fault cleared early travels as kind `clear`, naming the fault it undoes.
 * The run's fault log is these records; replaying them (`rocelab run --faults LOG`) schedules the
 * same events with the same numbers, so the trace hash is the same.
 */
import type { Engine } from '@rocelab/sim';
import { Problems, faultContext, resolveFault, type FaultSpec, type PodSpec, type RawFault } from '@rocelab/topology';
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
    return { id: r.id as number, atPs: r.atPs as number, kind: r.kind as string, target: r.target as string, spec: r.spec as string, source: r.source };
  });
}

/** `raw` is the item as drawn (FaultSpec): never a random form. */
export function faultToWire(fault: FaultSpec): Fault {
  return { id: fault.index, atPs: fault.atPs, kind: fault.kind, target: fault.target, spec: JSON.stringify(fault.raw) };
}

/** Fault `fault` undone at `atPs`, as fault number `id`. */
export function clearToWire(id: number, atPs: number, fault: FaultSpec): Fault {
  return { id, atPs, kind: CLEAR_KIND, target: fault.target, spec: JSON.stringify({ clears: fault.index, at: fault.atPs, raw: fault.raw }) };
}

/** Thrown for a wire fault that does not resolve: a controller and a member that disagree on the pod. */
export class WireFaultError extends Error {}

export function faultFromWire(fault: Fault, pod: PodSpec): FaultSpec {
  return resolveWire(parseSpec(fault) as RawFault, fault.kind, fault.id, fault.atPs, pod);
}

/** Schedules a wire fault (or the clearing of one) on the nodes this engine hosts. */
export function scheduleWireFault(engine: Engine, pc: PodContext, fault: Fault, hosted: ReadonlySet<number>): void {
  if (fault.kind !== CLEAR_KIND) return scheduleFault(engine, pc, faultFromWire(fault, pc.pod), hosted);
  const { clears, at, raw } = parseSpec(fault) as { clears: number; at: number; raw: RawFault };
  scheduleClear(engine, pc, resolveWire(raw, raw.kind, clears, at, pc.pod), fault.id, fault.atPs, hosted);
}

function parseSpec(fault: Fault): unknown {
  try {
    return JSON.parse(fault.spec) as unknown;
  } catch {
    throw new WireFaultError(`fault ${fault.id}: its spec is not JSON: ${fault.spec.slice(0, 80)}`);
  }
}

function resolveWire(raw: RawFault, kind: string, id: number, atPs: number, pod: PodSpec): FaultSpec {
  const problems = new Problems();
  const spec = resolveFault({ ...raw, kind, at: `${atPs}ps` }, id, `fault ${id}`, faultContext(new Map(pod.nodes.map((n) => [n.name, n])), pod.links), problems);
  if (spec === null) throw new WireFaultError(`fault ${id} (${kind}) does not fit pod ${pod.name}: ${problems.list.map((p) => `${p.path}: expected ${p.expected}, got ${p.actual}`).join('; ')}`);
  return spec;
}
