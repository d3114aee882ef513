/**
 * Nodes a run lost, for `RunResult.lostNodes`: from the fault log, every `kill` that applied
 * (with when its node came back, if it did), as the engine applied them (@rocelab/topology
 * `nodeLives`). Pure: the log entries already carry each fault as written and its time, so the
 * same list comes out of every mode. Other causes (a member process that died) add their
 * entries through `RunMeta.lostNodes`. The same lives give the fault API its rules for kills
 * and restarts (`nodeLifeProblems`).
 */
import { nodeLives, parseDuration, restartGaps, type LifeClear, type LifeFault, type PodSpec } from '@rocelab/topology';
import type { Fault } from '@rocelab/wire';
import { CLEAR_KIND, faultPayload, type FaultLogEntry } from './fault-wire.js';

/** Why a node was lost: a `kill` fault, or (`lost`) the process hosting it died. */
export type LostNodeCause = 'fault' | 'lost';

export interface LostNode {
  node: string;
  atNs: number;
  cause: LostNodeCause;
  /** When it booted again (a `restart`, a `kill` with `for`, a clear); null = dead to the end. */
  restartedAtNs: number | null;
}

/** Every kill of the log that applied before `durationPs`, in time order. */
export function lostNodesOf(log: readonly FaultLogEntry[], durationPs: number): LostNode[] {
  const { faults, clears } = lifeFaultsOf(log);
  if (faults.length === 0) return [];
  return nodeLives(faults, clears)
    .lives.filter((life) => life.killedAtPs < durationPs)
    .map((life) => ({
      node: life.node,
      atNs: life.killedAtPs / 1000,
      cause: 'fault' as const,
      restartedAtNs: life.restartedAtPs !== null && life.restartedAtPs < durationPs ? life.restartedAtPs / 1000 : null,
    }));
}

/**
 * The rules of nodes' lives (@rocelab/topology `nodeLives`: no kill of a dead node, no restart of
 * a living one, a restart not too soon after its kill) for one more record on top of a fault
 * log — a fault about to be stamped, or a clear — as the fault API reports problems:
 * `fault.at: expected …, got …`. Only `next`'s own problems; none = it fits. For `FaultBook`
 * (`prepare` and `clearOf`), with its `entries()` as the log.
 */
export function nodeLifeProblems(pod: PodSpec, log: readonly FaultLogEntry[], next: Fault): string[] {
  // A clear has its fault's number: a record is the same one only with the same kind too.
  const { faults, clears } = lifeFaultsOf([...log.filter((e) => e.id !== next.id || (e.kind === CLEAR_KIND) !== (next.kind === CLEAR_KIND)), next]);
  if (!faults.some((f) => f.index === next.id) && !clears.some((c) => c.index === next.id)) return [];
  return nodeLives(faults, clears, restartGaps(pod.links))
    .problems.filter((p) => p.fault === next.id)
    .map((p) => `fault.${p.key}: expected ${p.expected}, got ${p.actual}`);
}

/** Kills, restarts and clears of kills, from fault log records (their items as written). */
function lifeFaultsOf(log: readonly Fault[]): { faults: LifeFault[]; clears: LifeClear[] } {
  const faults: LifeFault[] = [];
  const clears: LifeClear[] = [];
  for (const e of log) {
    if (e.kind === 'kill' || e.kind === 'restart') {
      // A record's `for` is as drawn: a duration (a random form never reaches a record).
      const { item } = faultPayload(e);
      faults.push({ index: e.id, atPs: e.atPs, forPs: e.kind === 'kill' && typeof item.for === 'string' ? parseDuration(item.for) : null, kind: e.kind, target: e.target });
    } else if (e.kind === CLEAR_KIND) {
      const { clears: clear } = faultPayload(e);
      if (clear !== null) clears.push({ index: e.id, fault: clear.fault, atPs: e.atPs });
    }
  }
  return { faults, clears };
}

/** Lost nodes of every cause in one list: by time, then node name. */
export function mergeLostNodes(...lists: ReadonlyArray<readonly LostNode[]>): LostNode[] {
  return lists.flat().sort((a, b) => a.atNs - b.atNs || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}
