/**
 * Seeded choices in faults: the node drawn from a list or a role (`node: {random: [leaf1, tor2]}`,
 * `node: {random: switch}`) and times drawn uniformly (`at: {uniform: [2ms, 4ms]}`, likewise
 * `for` — the form a flow's `start` takes, @rocelab/workload time-choice.ts). Each is drawn once,
 * when the file loads, from the pod's seed through a stream of its own, (seed, `<pod>`,
 * `fault:<index>:<key>`): randomness added to one fault never shifts another's draw, and every
 * process that loads the file draws the same. A drill's seed is its pod's; `rocelab run --seed`
 * changes the workloads' draws, not these (the controller and every member load the file alone).
 *
 * What comes out is the item with each random form replaced by what was drawn, an exact duration
 * or a node name: that is what resolves, travels to members, goes into the fault log and replays,
 * so the rules across faults (node-lives.ts) and every reader see concrete values. The forms as
 * written are kept beside it (`drawnFrom`) for reports.
 */
import { Rng, formatDuration } from '@rocelab/sim';
import { Fields, drawTime, resolveTimeChoice, timeChoiceSchema, type RawTimeChoice } from '@rocelab/workload';
import { childPath, describeValue, type Problems } from './errors.js';
import type { DrawnFrom, DrawnKey, FaultContext, FaultTarget, NodeSpec, RawFault } from './pod.js';
import { nodeName, object, type JsonSchema } from './schema-atoms.js';
import { UNITS } from './units.js';

/** Roles a random node may be drawn from; `switch` is any switch (every role but host). */
export const RANDOM_ROLES = ['host', 'switch', 'tor', 'leaf', 'spine'] as const;
export type RandomRole = (typeof RANDOM_ROLES)[number];

/** `at` and `for`: a duration, or `{uniform: [a, b]}`. */
export function timeChoice(what: string): JsonSchema {
  return timeChoiceSchema(what);
}

/** `node`: a name, or `{random: [names]}` / `{random: role}`. */
export const nodeChoice: JsonSchema = {
  description: "a node name, or one drawn from the pod's seed: {random: [leaf1, tor2]} or {random: switch}",
  anyOf: [
    nodeName,
    object('a random node {random: [names] or a role}', {
      random: {
        description: `a list of distinct node names, or a role: ${RANDOM_ROLES.join(', ')} (switch: any switch)`,
        anyOf: [
          { type: 'array', minItems: 1, maxItems: 1000, uniqueItems: true, items: nodeName, description: 'a list of distinct node names' },
          { enum: [...RANDOM_ROLES], description: `a role: ${RANDOM_ROLES.join(', ')}` },
        ],
      },
    }, ['random']),
  ],
};

const isRandom = (v: unknown): v is { random: string[] | RandomRole } => typeof v === 'object' && v !== null && 'random' in v;
const isUniform = (v: unknown): v is { uniform: [string, string] } => typeof v === 'object' && v !== null && 'uniform' in v;

/** The stream a fault's key draws from. */
export function drawStream(seed: number, index: number, key: DrawnKey): Rng {
  return new Rng(seed, '<pod>', `fault:${index}:${key}`);
}

/**
 * A schema-valid fault with its random forms drawn: the concrete item, and the forms as written
 * (null: it had none). Problems (all of them) go to `problems`; the result is null when there
 * were any. `target` is what the kind acts on: a drawn node must be one.
 */
export function drawFault(raw: RawFault, index: number, path: string, target: FaultTarget, ctx: FaultContext, problems: Problems): { raw: RawFault; drawnFrom: DrawnFrom | null } | null {
  const keys = (['node', 'at', 'for'] as const).filter((k) => (k === 'node' ? isRandom(raw[k]) : isUniform(raw[k])));
  if (keys.length === 0) return { raw, drawnFrom: null };
  const before = problems.list.length;
  const seed = ctx.seed;
  if (seed === null) {
    for (const k of keys) problems.add('value', childPath(path, k), `a fixed ${k === 'node' ? 'node name' : 'time'} (random forms are drawn from the pod's seed when a topology or drill file loads, not here)`, describeValue(raw[k]));
    return null;
  }
  const out: RawFault = { ...raw };
  const drawnFrom: DrawnFrom = {};
  for (const key of keys) {
    drawnFrom[key] = raw[key];
    const at = childPath(path, key);
    if (key === 'node') {
      const candidates = candidatesOf(raw.node as { random: string[] | RandomRole }, raw.kind, target, at, ctx, problems);
      if (candidates.length > 0) out.node = candidates[drawStream(seed, index, 'node').uniformInt(0, candidates.length - 1)];
      continue;
    }
    const fields = new Fields();
    const choice = resolveTimeChoice(raw[key] as RawTimeChoice, key, UNITS, fields);
    for (const p of fields.problems) problems.add('value', `${path}.${p.field}`, p.expected, describeValue(p.actual));
    if (fields.problems.length === 0) out[key] = formatDuration(drawTime(choice, () => drawStream(seed, index, key)));
  }
  return problems.list.length > before ? null : { raw: out, drawnFrom };
}

/** The names a random node is drawn from, in order: the list as written, or the role's nodes by name. */
function candidatesOf(choice: { random: string[] | RandomRole }, kind: string, target: FaultTarget, at: string, ctx: FaultContext, problems: Problems): string[] {
  const fits = (n: NodeSpec) => target === 'node' || (target === 'host' ? n.role === 'host' : n.role !== 'host');
  const wanted = target === 'node' ? 'a node' : `a ${target}`;
  if (Array.isArray(choice.random)) {
    const before = problems.list.length;
    choice.random.forEach((name, i) => {
      const node = ctx.nodes.get(name);
      if (node === undefined || !fits(node)) problems.add('reference', childPath(childPath(at, 'random'), i), `the name of ${wanted} (a ${kind} fault acts on one)`, node === undefined ? describeValue(name) : `${JSON.stringify(name)} (a ${node.role})`);
    });
    return problems.list.length > before ? [] : choice.random;
  }
  const role = choice.random;
  const nodes = [...ctx.nodes.values()].filter((n) => (role === 'switch' ? n.role !== 'host' : n.role === role));
  const names = nodes.filter(fits).map((n) => n.name).sort();
  if (names.length === 0) {
    const why = nodes.length === 0 ? 'no node of this pod has it' : `${nodes.length} nodes, none ${wanted}`;
    problems.add('reference', childPath(at, 'random'), `a role with nodes in this pod that a ${kind} fault acts on (${wanted})`, `${JSON.stringify(role)} (${why})`);
  }
  return names;
}

/** What a fault drew, for a message: `fault 3 drew node tor2 from {"random":[…]}, at 2.5ms from {"uniform":[…]}`. */
export function describeDraws(fault: { index: number; raw: RawFault; drawnFrom?: DrawnFrom | undefined }): string {
  const keys = Object.keys(fault.drawnFrom ?? {}) as DrawnKey[];
  return keys.length === 0 ? '' : `fault ${fault.index} drew ${keys.map((k) => `${k} ${String(fault.raw[k])} from ${describeValue(fault.drawnFrom![k])}`).join(', ')}`;
}
