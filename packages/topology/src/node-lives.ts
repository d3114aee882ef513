/**
 * The lives of nodes under `kill` and `restart` faults: when each node dies and boots again,
 * and the rules a set of faults must keep, checked over all of them in the order the engine
 * applies them — by time, then fault number (a `kill`'s own restart, from its `for` or a
 * clear, after the fault's other events at that instant).
 *
 * - a `kill` needs a living node, and none of its earlier kills' restarts still scheduled
 *   (a cleared kill with `for` keeps its restart events, which would bring the links up);
 * - a `restart` needs a dead node whose kill has no `for` (that one restarts it already);
 * - a restart comes at least `restartGapPs` after the kill: the node's longest link latency
 *   plus one MTU frame, so every frame on the wire toward it when it died reaches it dead — a
 *   rebooted node never sees what was sent to its previous life, in any mapping of nodes to
 *   processes (pending arrivals live in whichever process hosts the receiver).
 *
 * The topology loader runs it over a file's faults; the fault API (FaultBook) over its log
 * plus the fault or clear it is asked for; the run result over its fault log (`lives`).
 */
import { formatDuration, serializationPs } from '@rocelab/sim';
import { PREAMBLE_AND_GAP_BYTES, RETH_BYTES, ROCE_HEADER_BYTES, paddedPayload } from '@rocelab/wire';
import type { FaultSpec, LinkSpec } from './pod.js';

/** What the lives need of a fault (a `FaultSpec` has it; so does a fault log entry, read back). */
export type LifeFault = Pick<FaultSpec, 'index' | 'atPs' | 'forPs' | 'kind' | 'target'>;

/** A fault cleared before its end (the fault API): its undoing applies at `atPs`, numbered `index`. */
export interface LifeClear {
  index: number;
  fault: number;
  atPs: number;
}

/** One death of a node: the kill, and the restart (null: dead to the end). */
export interface NodeLife {
  node: string;
  kill: number;
  killedAtPs: number;
  /** The restart fault, the clear, or (its `for`) the kill itself that booted it again. */
  restart: number | null;
  restartedAtPs: number | null;
}

/** A rule broken by fault (or clear) number `fault`, at its key `key`. */
export interface LifeProblem {
  fault: number;
  key: 'at' | 'for';
  expected: string;
  actual: string;
}

interface Step {
  atPs: number;
  /** The fault or clear number: the engine's order at one instant. */
  index: number;
  /** 0: the fault's start; 1: a kill's own restart (its `for`), after the fault's other events. */
  sub: number;
  type: 'kill' | 'restart' | 'undo';
  node: string;
  /** For `undo`: the kill it restarts; for `kill`: its for-restart time (null: none). */
  kill: number;
  forEndPs: number | null;
  cleared: boolean;
}

interface State {
  life: NodeLife | null;
  /** When the restart of a cleared kill with `for` still fires (its events are scheduled). */
  staleRestartPs: number;
  staleKill: number;
}

/**
 * The lives the faults give, and every rule they break. `restartGapPs` (per node; absent = no
 * gap rule) is `FaultContext.restartGapPs`.
 */
export function nodeLives(faults: readonly LifeFault[], clears: readonly LifeClear[] = [], restartGapPs?: ReadonlyMap<string, number>): { lives: NodeLife[]; problems: LifeProblem[] } {
  const byIndex = new Map(faults.map((f) => [f.index, f]));
  const steps: Step[] = [];
  for (const f of faults) {
    if (f.kind === 'kill') {
      const forEndPs = f.forPs === null ? null : f.atPs + f.forPs;
      steps.push({ atPs: f.atPs, index: f.index, sub: 0, type: 'kill', node: f.target, kill: f.index, forEndPs, cleared: false });
      if (forEndPs !== null) steps.push({ atPs: forEndPs, index: f.index, sub: 1, type: 'undo', node: f.target, kill: f.index, forEndPs, cleared: false });
    } else if (f.kind === 'restart') {
      steps.push({ atPs: f.atPs, index: f.index, sub: 0, type: 'restart', node: f.target, kill: -1, forEndPs: null, cleared: false });
    }
  }
  for (const c of clears) {
    const f = byIndex.get(c.fault);
    if (f?.kind !== 'kill') continue;
    steps.push({ atPs: c.atPs, index: c.index, sub: 0, type: 'undo', node: f.target, kill: f.index, forEndPs: f.forPs === null ? null : f.atPs + f.forPs, cleared: true });
  }
  steps.sort((x, y) => x.atPs - y.atPs || x.index - y.index || x.sub - y.sub);

  const lives: NodeLife[] = [];
  const problems: LifeProblem[] = [];
  const states = new Map<string, State>();
  const refused = new Set<number>();
  const gapOf = (node: string) => restartGapPs?.get(node) ?? 0;
  /** A restart at `atPs` of `life`: null when it keeps the gap, else the problem's actual text. */
  const tooSoon = (life: NodeLife, atPs: number): string | null => {
    const gap = gapOf(life.node);
    return atPs - life.killedAtPs >= gap ? null : `${formatDuration(atPs - life.killedAtPs)} after its kill at ${formatDuration(life.killedAtPs)}`;
  };
  const gapExpected = (node: string, what: string) =>
    `${what} at least ${formatDuration(gapOf(node))} after the kill (${node}'s longest link latency plus one MTU frame): every frame on the wire toward it when it died must reach it dead, whatever the mapping of nodes to processes`;

  for (const step of steps) {
    const state = states.get(step.node) ?? { life: null, staleRestartPs: -1, staleKill: -1 };
    states.set(step.node, state);
    const at = formatDuration(step.atPs);
    switch (step.type) {
      case 'kill': {
        if (state.life !== null) {
          problems.push({ fault: step.index, key: 'at', expected: `a time when ${step.node} is alive (a kill needs a living node)`, actual: `${at}: ${step.node} is dead since ${formatDuration(state.life.killedAtPs)} (fault ${state.life.kill})` });
          refused.add(step.index);
        } else if (state.staleRestartPs >= step.atPs) {
          problems.push({
            fault: step.index,
            key: 'at',
            expected: `a time after ${formatDuration(state.staleRestartPs)}, when the restart of fault ${state.staleKill} (its for; it was cleared earlier) no longer brings ${step.node}'s links up`,
            actual: at,
          });
          refused.add(step.index);
        } else {
          state.life = { node: step.node, kill: step.index, killedAtPs: step.atPs, restart: null, restartedAtPs: null };
          lives.push(state.life);
          if (step.forEndPs !== null && tooSoon(state.life, step.forEndPs) !== null) {
            problems.push({ fault: step.index, key: 'for', expected: gapExpected(step.node, 'a for of'), actual: formatDuration(step.forEndPs - step.atPs) });
          }
        }
        break;
      }
      case 'undo': {
        if (refused.has(step.kill)) break;
        const life = state.life;
        if (life === null || life.kill !== step.kill) {
          // The engine ignores it (the kill it undoes is over); a clear of such a kill is refused.
          if (step.cleared) problems.push({ fault: step.index, key: 'at', expected: `a kill still in force (fault ${step.kill} keeps ${step.node} dead)`, actual: `${at}: ${step.node} ${life === null ? 'is alive' : `is dead by fault ${life.kill}`}` });
          break;
        }
        if (step.cleared) {
          const soon = tooSoon(life, step.atPs);
          if (soon !== null) {
            problems.push({ fault: step.index, key: 'at', expected: gapExpected(step.node, 'a clear'), actual: soon });
            break;
          }
          if (step.forEndPs !== null && step.forEndPs > step.atPs) {
            state.staleRestartPs = step.forEndPs;
            state.staleKill = step.kill;
          }
        }
        life.restart = step.index;
        life.restartedAtPs = step.atPs;
        state.life = null;
        break;
      }
      case 'restart': {
        const life = state.life;
        if (life === null) {
          problems.push({ fault: step.index, key: 'at', expected: `a time when ${step.node} is dead (a restart boots a killed node)`, actual: `${at}: ${step.node} is alive` });
          break;
        }
        const killFor = byIndex.get(life.kill)?.forPs ?? null;
        if (killFor !== null) {
          problems.push({ fault: step.index, key: 'at', expected: `a node killed without for (fault ${life.kill} restarts ${step.node} itself at ${formatDuration(life.killedAtPs + killFor)})`, actual: at });
          break;
        }
        const soon = tooSoon(life, step.atPs);
        if (soon !== null) {
          problems.push({ fault: step.index, key: 'at', expected: gapExpected(step.node, 'a restart'), actual: soon });
          break;
        }
        life.restart = step.index;
        life.restartedAtPs = step.atPs;
        state.life = null;
        break;
      }
    }
  }
  return { lives, problems };
}

/**
 * The shortest time from a kill to a restart for every node: over its links, both ways, the
 * latency plus the serialization of the largest frame (an MTU payload with RoCEv2 headers, RETH,
 * preamble and gap) — when the last frame started before the kill arrives.
 */
export function restartGaps(links: readonly LinkSpec[]): Map<string, number> {
  const gaps = new Map<string, number>();
  for (const link of links) {
    const worst = Math.max(...[link.aToB, link.bToA].map((d) => d.latencyPs + serializationPs(paddedPayload(d.mtu) + ROCE_HEADER_BYTES + RETH_BYTES + PREAMBLE_AND_GAP_BYTES, d.rateBps)));
    for (const node of [link.a.node, link.b.node]) gaps.set(node, Math.max(gaps.get(node) ?? 0, worst));
  }
  return gaps;
}
