/**
 * A drill file (DESIGN §7): YAML checked against its schema, then each variant built as a
 * topology — the drill's topology (a file beside it, or inline) with the drill's and the
 * variant's overrides merged in, their workloads and faults appended — and resolved by the
 * topology loader, so a variant is exactly what `rocelab run` would run. Every problem names
 * the file and the path where it was written and what was expected; all are reported before
 * anything runs (an unknown fault kind, a target not in the topology, a fault after the end,
 * an unknown variant, malformed YAML).
 */
import { dirname, isAbsolute, join } from 'node:path';
import {
  InputFileError,
  TopologyError,
  formatProblem,
  parseBytes,
  parseDuration,
  parseRate,
  parseYaml,
  topologyFromData,
  validateWith,
  type PodSpec,
  type Problem,
  type RawTopology,
} from '@rocelab/topology';
import { drillSchema, type ExpectationKind } from './drill-schema.js';
import { captureGroups, variantOfValue } from './program-result.js';
import { DRILL_METRIC_NAMES } from './metrics.js';

/** A problem and the file it is in. */
export type DrillProblem = Problem & { file: string };

export class DrillError extends Error {
  constructor(readonly problems: readonly DrillProblem[]) {
    super(problems.map((p) => formatProblem(p.file, p)).join('\n'));
    this.name = 'DrillError';
  }
}

export interface DrillVariant {
  name: string;
  description: string;
  /** The variant's topology as a file would say it (overrides merged, workloads and faults appended). */
  topology: RawTopology;
  pod: PodSpec;
  /** Faults with an index below this come from the topology file; the rest from the drill. */
  topologyFaults: number;
}

export interface Expectation {
  /** `expect[i]` in the drill file. */
  id: string;
  kind: ExpectationKind;
  /** The variant it applies to; null: each variant (or, for goodputRatio and fctSlowdownRatio, across two). */
  variant: string | null;
  description: string | null;
  /** Where its bound comes from (`why:`): the figure it cites, or why rocelab differs from it. */
  why: string | null;
  /** The item as written (each kind's keys). */
  raw: Record<string, unknown>;
}

/** A goodput bound: a rate like 40G, or 0 (nothing delivered) in any spelling. */
export function goodputRate(value: unknown): number {
  return value === 0 || (typeof value === 'string' && /^0+(\.0+)?[GMK]?$/.test(value)) ? 0 : parseRate(value as string | number);
}

export interface Drill {
  name: string;
  file: string;
  title: string;
  /** The published result it reproduces; '' when the file names none (a user's own drill). */
  source: string;
  description: string;
  seed: number;
  durationPs: number;
  /** Trace grids (ps), when the drill sets them. */
  trace: { ratesIntervalPs?: number; queueIntervalPs?: number };
  /** Where each variant's plots of time end (`plots: {until}`), when not at the end of the run. */
  plotUntilPs: number | null;
  /** `plots: {slowdown: true}`: the report adds FCT slowdown by message size per variant (HPCC's figures). */
  plotSlowdown: boolean;
  variants: DrillVariant[];
  expectations: Expectation[];
}

/** How the loader reads a topology the drill names by path (the CLI passes the file system). */
export interface DrillIo {
  readText(path: string): string;
}

interface RawDrill {
  title: string;
  source?: string;
  description?: string;
  topology: string | Record<string, unknown>;
  seed?: number;
  duration: string;
  trace?: { rates?: string; queue?: string };
  plots?: { until?: string; slowdown?: boolean };
  set?: Overrides;
  workloads?: unknown[];
  faults?: unknown[];
  variants?: Array<{ name: string; description?: string; set?: Overrides; workloads?: unknown[]; faults?: unknown[] }>;
  expect: Array<Record<string, unknown> & { kind: ExpectationKind }>;
}

interface Overrides {
  profile?: string;
  timing?: string;
  defaults?: Record<string, unknown>;
  nodes?: Record<string, Record<string, unknown>>;
}

/**
 * The most variants a drill may have (docs/errors.md). Each runs a whole pod, one after the
 * other, and its report shows each one's plots; the built-in drills have at most 4. A fuzzed
 * drill of 5,000 variants ran on for hours.
 */
export const MAX_DRILL_VARIANTS = 64;

/** The drill's name: its file name without `.yaml`. */
export function drillName(file: string): string {
  return (file.split('/').pop() ?? file).replace(/\.ya?ml$/, '');
}

export function loadDrill(text: string, file: string, io: DrillIo): Drill {
  const problems: DrillProblem[] = [];
  // Every variant resolves the drill's own workloads and faults again, so a problem in one of
  // them is found once per variant: it is reported once (the first time, in file order).
  const fail = () => new DrillError(problems.filter((p, i) => problems.findIndex((q) => formatProblem(q.file, q) === formatProblem(p.file, p)) === i));
  let data: unknown;
  try {
    data = parseYaml(text, file);
  } catch (err) {
    if (err instanceof TopologyError) throw new DrillError(err.problems.map((p) => ({ ...p, file })));
    throw err;
  }
  // `conservation` was an expectation until issue 24; it is now an audit of every run. Said so, instead of "not a kind".
  const retired = new Set<number>();
  const items = (data as { expect?: unknown } | null)?.expect;
  if (Array.isArray(items)) {
    items.forEach((item, i) => {
      if ((item as { kind?: unknown } | null)?.kind !== 'conservation') return;
      retired.add(i);
      problems.push({ file, code: 'value', path: `expect[${i}].kind`, expected: 'an expectation kind (conservation is no longer one: every run audits it, prints the audit and fails the drill when it breaks; remove this item)', actual: '"conservation"' });
    });
  }
  for (const p of validateWith(drillSchema(), data)) {
    const m = /^expect\[(\d+)\]/.exec(p.path);
    if (m === null || !retired.has(Number(m[1]))) problems.push({ ...p, file });
  }
  if (problems.length > 0) throw fail();
  const raw = data as RawDrill;
  if ((raw.variants ?? []).length > MAX_DRILL_VARIANTS) {
    // Refused before any variant is built: each is a whole pod to resolve, and then to run.
    problems.push({ file, code: 'value', path: 'variants', expected: `at most ${MAX_DRILL_VARIANTS} variants (rocelab's limit: each runs a whole pod; split a bigger sweep into several drills)`, actual: `${raw.variants!.length} variants` });
    throw fail();
  }
  const durationPs = parseAt(raw.duration, file, 'duration', problems);
  const trace = {
    ...(raw.trace?.rates === undefined ? {} : { ratesIntervalPs: parseAt(raw.trace.rates, file, 'trace.rates', problems) }),
    ...(raw.trace?.queue === undefined ? {} : { queueIntervalPs: parseAt(raw.trace.queue, file, 'trace.queue', problems) }),
  };
  if (durationPs === 0) problems.push({ file, code: 'value', path: 'duration', expected: 'a duration above 0', actual: JSON.stringify(raw.duration) });
  // A drill whose action is a few ms after a long quiet start (a native program's setup) plots that window, not the whole run.
  const until = raw.plots?.until;
  const plotUntilPs = until === undefined ? null : parseAt(until, file, 'plots.until', problems);
  if (until !== undefined && problems.every((p) => p.path !== 'plots.until') && !(plotUntilPs! > 0 && plotUntilPs! <= durationPs)) {
    problems.push({ file, code: 'value', path: 'plots.until', expected: `a time above 0, at most the drill's duration (${raw.duration})`, actual: JSON.stringify(until) });
  }
  const base = baseTopology(raw, file, io, problems);
  if (base === null || problems.length > 0) throw fail();
  const variants = (raw.variants ?? [{ name: 'default' }]).map((v, i) => buildVariant(raw, base, v, raw.variants === undefined ? null : i, file, durationPs, problems));
  const names = variants.map((v) => v.name);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) problems.push({ file, code: 'value', path: `variants[${i}].name`, expected: 'a name no other variant has', actual: JSON.stringify(n) });
  });
  const expectations = raw.expect.map((item, i) => checkExpectation(item, i, file, variants, durationPs, problems));
  if (problems.length > 0) throw fail();
  return {
    name: drillName(file),
    file,
    title: raw.title,
    source: raw.source ?? '',
    description: raw.description ?? '',
    seed: raw.seed ?? variants[0]!.pod.seed,
    durationPs,
    trace,
    plotUntilPs,
    plotSlowdown: raw.plots?.slowdown === true,
    variants,
    expectations,
  };
}

function parseAt(text: string, file: string, path: string, problems: DrillProblem[]): number {
  try {
    return parseDuration(text);
  } catch {
    problems.push({ file, code: 'value', path, expected: 'a duration like 1us, 2.5ms', actual: JSON.stringify(text) });
    return 0;
  }
}

/** The drill's topology as written: inline, or read from a file relative to the drill. */
function baseTopology(raw: RawDrill, file: string, io: DrillIo, problems: DrillProblem[]): { data: RawTopology; file: string } | null {
  if (typeof raw.topology !== 'string') return { data: raw.topology as unknown as RawTopology, file };
  const path = isAbsolute(raw.topology) ? raw.topology : join(dirname(file), raw.topology);
  let text: string;
  try {
    text = io.readText(path);
  } catch (err) {
    // The CLI's reader refuses special and oversized files (InputFileError): say which check did.
    const refused = err instanceof InputFileError ? err : null;
    problems.push({ file, code: 'io', path: 'topology', expected: `${refused?.expected ?? 'a readable topology file'} (relative to the drill)`, actual: `${path}: ${refused?.actual ?? (err as NodeJS.ErrnoException).code ?? String(err)}` });
    return null;
  }
  try {
    return { data: parseYaml(text, path) as RawTopology, file: path };
  } catch (err) {
    if (!(err instanceof TopologyError)) throw err;
    problems.push(...err.problems.map((p) => ({ ...p, file: path })));
    return null;
  }
}

/** Where each appended workload and fault came from, to name them in problems. */
interface Origin {
  file: string;
  path: string;
}

function buildVariant(
  raw: RawDrill,
  base: { data: RawTopology; file: string },
  v: NonNullable<RawDrill['variants']>[number],
  index: number | null,
  file: string,
  durationPs: number,
  problems: DrillProblem[],
): DrillVariant {
  const at = index === null ? '' : `variants[${index}].`;
  const origins = { workloads: [] as Origin[], faults: [] as Origin[] };
  const list = (key: 'workloads' | 'faults', items: unknown[] | undefined, origin: (i: number) => Origin): unknown[] => {
    (items ?? []).forEach((_, i) => origins[key].push(origin(i)));
    return items ?? [];
  };
  let topology: RawTopology = JSON.parse(JSON.stringify(base.data)) as RawTopology;
  topology = applyOverrides(topology, raw.set, file, 'set', problems);
  topology = applyOverrides(topology, v.set, file, `${at}set`, problems);
  if (raw.seed !== undefined) topology.seed = raw.seed;
  topology.workloads = [
    ...list('workloads', base.data.workloads, (i) => ({ file: base.file, path: `workloads[${i}]` })),
    ...list('workloads', raw.workloads, (i) => ({ file, path: `workloads[${i}]` })),
    ...list('workloads', v.workloads, (i) => ({ file, path: `${at}workloads[${i}]` })),
  ] as RawTopology['workloads'];
  topology.faults = [
    ...list('faults', base.data.faults, (i) => ({ file: base.file, path: `faults[${i}]` })),
    ...list('faults', raw.faults, (i) => ({ file, path: `faults[${i}]` })),
    ...list('faults', v.faults, (i) => ({ file, path: `${at}faults[${i}]` })),
  ] as RawTopology['faults'];
  const label = `${file} (variant ${v.name})`;
  let pod: PodSpec;
  try {
    pod = topologyFromData(topology, base.file);
  } catch (err) {
    if (!(err instanceof TopologyError)) throw err;
    for (const p of err.problems) problems.push(relocate(p, origins, base.file, label));
    return { name: v.name, description: v.description ?? '', topology, pod: null as unknown as PodSpec, topologyFaults: 0 };
  }
  const topologyFaults = (base.data.faults ?? []).length;
  for (const f of pod.faults) {
    // The topology file's own faults after the end simply never apply, as in `rocelab run` (a
    // session exported as a drill keeps them, so its faults keep their numbers); the drill's must come before it.
    if (f.atPs >= durationPs && f.index >= topologyFaults) {
      const origin = origins.faults[f.index]!;
      const drawn = f.drawnFrom?.at === undefined ? '' : ` (drawn from ${JSON.stringify(f.drawnFrom.at)}, seed ${pod.seed})`;
      problems.push({ file: origin.file, code: 'value', path: `${origin.path}.at`, expected: `a time before the end of the drill (${raw.duration})`, actual: `${JSON.stringify(f.raw.at)}${drawn}` });
    }
  }
  return { name: v.name, description: v.description ?? '', topology, pod, topologyFaults };
}

/** A merged topology's problem, named where it was written: a drill's workload or fault, or the variant. */
function relocate(p: Problem, origins: { workloads: Origin[]; faults: Origin[] }, baseFile: string, label: string): DrillProblem {
  const m = /^(workloads|faults)\[(\d+)\](.*)$/.exec(p.path);
  if (m !== null) {
    const origin = origins[m[1] as 'workloads' | 'faults'][Number(m[2])];
    if (origin !== undefined) return { ...p, file: origin.file, path: `${origin.path}${m[3]}` };
  }
  return { ...p, file: p.path.startsWith('defaults') || p.path.startsWith('nodes') ? label : baseFile };
}

function applyOverrides(topology: RawTopology, set: Overrides | undefined, file: string, path: string, problems: DrillProblem[]): RawTopology {
  if (set === undefined) return topology;
  const out = { ...topology } as RawTopology & Record<string, unknown>;
  if (set.profile !== undefined) out.profile = set.profile as RawTopology['profile'];
  if (set.timing !== undefined) out.timing = set.timing as RawTopology['timing'];
  if (set.defaults !== undefined) out.defaults = merge(out.defaults ?? {}, set.defaults) as RawTopology['defaults'];
  for (const [name, keys] of Object.entries(set.nodes ?? {})) {
    const i = out.nodes.findIndex((n) => n.name === name);
    if (i < 0) {
      problems.push({ file, code: 'reference', path: `${path}.nodes.${name}`, expected: `a node of the topology (${out.nodes.map((n) => n.name).join(', ')})`, actual: JSON.stringify(name) });
      continue;
    }
    out.nodes = out.nodes.map((n, j) => (j === i ? (merge(n, keys) as typeof n) : n));
  }
  return out;
}

/** Mappings merge key by key; anything else is replaced. */
function merge(a: unknown, b: unknown): unknown {
  const isMap = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isMap(a) || !isMap(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v);
  return out;
}

/** An expectation's references: variants, nodes, ports, hosts, windows inside the run. */
function checkExpectation(item: RawDrill['expect'][number], i: number, file: string, variants: ReadonlyArray<{ name: string; pod: PodSpec | null }>, durationPs: number, problems: DrillProblem[]): Expectation {
  const path = `expect[${i}]`;
  const names = variants.map((v) => v.name);
  const add = (key: string, expected: string, actual: unknown, code: Problem['code'] = 'reference') => problems.push({ file, code, path: `${path}.${key}`, expected, actual: JSON.stringify(actual) });
  for (const key of ['variant', 'variantA', 'variantB']) {
    const v = item[key];
    if (typeof v === 'string' && !names.includes(v)) add(key, `a variant of this drill (${names.join(', ')})`, v);
  }
  const pod = variants.find((v) => v.pod !== null)?.pod ?? null;
  if (pod !== null) {
    const node = (key: string, value: unknown, role?: 'host'): void => {
      if (typeof value !== 'string') return;
      const n = pod.nodes.find((x) => x.name === value.split(':')[0]);
      if (n === undefined) {
        add(key, 'a node of the topology', value);
        return;
      }
      if (role !== undefined && n.role !== role) {
        add(key, `a ${role}`, `${value} (a ${n.role})`);
        return;
      }
      const port = value.split(':')[1];
      if (port !== undefined && !n.ports.some((p) => p.name === port)) add(key, `a port of ${n.name} (${n.ports.map((p) => p.name).join(', ')})`, value);
    };
    node('node', item.node);
    if (typeof item.node === 'string' && typeof item.port === 'string') node('port', `${item.node}:${item.port}`);
    node('from', item.from);
    const each = (key: string, value: unknown, role?: 'host') => (Array.isArray(value) ? value : [value]).forEach((v) => node(key, v, role));
    if (typeof item.to === 'string' || Array.isArray(item.to)) each('to', item.to);
    const flows = item.flows as { from?: unknown; to?: unknown } | undefined;
    if (flows !== undefined) {
      each('flows.from', flows.from, 'host');
      each('flows.to', flows.to, 'host');
    }
  }
  const checkWith = (key: string, parse: (v: unknown) => number, expected: string) => {
    if (item[key] === undefined) return;
    try {
      parse(item[key]);
    } catch {
      add(key, expected, item[key], 'value');
    }
  };
  for (const key of ['within', 'stall']) checkWith(key, (x) => parseDuration(x as string), 'a duration like 1us, 2.5ms');
  if (item.kind === 'probeLatency') for (const key of ['min', 'max']) checkWith(key, (x) => parseDuration(x as string), 'a duration like 1us, 2.5ms');
  if (item.kind === 'flowGoodput') for (const key of ['min', 'max']) checkWith(key, goodputRate, 'a rate like 40G, 500M, or 0');
  const sizes = item.flows as { minBytes?: unknown; maxBytes?: unknown } | undefined;
  for (const key of ['minBytes', 'maxBytes'] as const) {
    const v = sizes?.[key];
    if (v === undefined) continue;
    try {
      parseBytes(v as string | number);
    } catch {
      add(`flows.${key}`, 'a message size like 200KB or 1MiB', v, 'value');
    }
  }
  if (item.kind === 'queueDepth') {
    for (const key of ['min', 'max']) checkWith(key, (x) => parseBytes(x as string | number), 'a size like 100KB or 1MiB');
    const [n, port] = String(item.queue).split(':');
    if (pod !== null && !pod.nodes.some((x) => x.name === n && x.role !== 'host' && x.ports.some((p) => p.name === port))) add('queue', 'a port of a switch of the topology', item.queue);
  }
  if (item.kind === 'metric' && !DRILL_METRIC_NAMES.includes(item.name as string)) add('name', `a metric a drill can read (${DRILL_METRIC_NAMES.join(', ')})`, item.name);
  for (const key of ['during', 'baseline']) {
    const w = item[key];
    if (typeof w !== 'string') continue;
    const [a, b] = w.split('-').map((t) => {
      try {
        return parseDuration(t);
      } catch {
        return NaN;
      }
    }) as [number, number];
    if (!(a < b) || b > durationPs) add(key, `a window A-B with A < B ≤ the drill's duration (${durationPs / 1e9} ms)`, w, 'value');
  }
  if (item.kind === 'timeToDetect' || item.kind === 'timeToRecover') {
    checkWith('max', (x) => parseDuration(x as string), 'a duration like 1us, 2.5ms');
    // The fault it measures from must exist in every variant it applies to.
    const index = item.fault as number | undefined;
    const applies = variants.filter((x) => x.pod !== null && (typeof item.variant !== 'string' || x.name === item.variant));
    const faultless = applies.filter((v) => v.pod!.faults.length === 0).map((v) => v.name);
    if (faultless.length > 0) add(typeof item.variant === 'string' ? 'variant' : 'kind', 'a variant with a fault to measure from (set variant: to one that has one)', `${faultless.length === 1 ? 'variant' : 'variants'} ${faultless.join(', ')}, without a fault`, 'value');
    const without = applies.filter((v) => v.pod!.faults.length > 0 && index !== undefined && !v.pod!.faults.some((f) => f.index === index));
    if (without.length > 0) add('fault', `a fault of ${without.length === 1 ? 'variant' : 'variants'} ${without.map((v) => v.name).join(', ')} (${without[0]!.pod!.faults.map((f) => `${f.index}: ${f.kind}`).join(', ')})`, index, 'value');
  }
  if (item.kind === 'appResult') {
    const hasKey = typeof item.key === 'string';
    if (hasKey === (item.finished === true)) add('key', 'either key (a value an app reported) or finished: true, not both', hasKey ? item.key : 'neither', 'value');
    for (const k of ['value', 'min', 'max']) if (!hasKey && item[k] !== undefined) add(k, 'a bound only with key', item[k], 'value');
    if (hasKey && item.value === undefined && item.min === undefined && item.max === undefined) add('key', 'a key with value, min or max', item.key, 'value');
    if (pod !== null && typeof item.node === 'string' && !pod.apps.some((a) => a.node === item.node)) add('node', `a host that runs an app (${pod.apps.map((a) => a.node).join(', ') || 'none does'})`, item.node);
  }
  if (item.kind === 'programResult') checkProgramResult(item, pod, names, add);
  const variant = typeof item.variant === 'string' ? item.variant : null;
  return { id: path, kind: item.kind, variant, description: typeof item.description === 'string' ? item.description : null, why: typeof item.why === 'string' ? item.why : null, raw: item };
}

/** programResult's keys together: a program that exists, a usable regex, a bound that goes with it. */
function checkProgramResult(item: RawDrill['expect'][number], pod: PodSpec | null, variants: readonly string[], add: (key: string, expected: string, actual: unknown, code?: Problem['code']) => void): void {
  const match = item.match;
  if (typeof match === 'string') {
    const groups = captureGroups(match);
    if (groups === null) add('match', 'a regular expression (JavaScript syntax) with one capture group', match, 'value');
    else if (groups !== 1) add('match', 'a regular expression with exactly one capture group: the number to read', `${match} (${groups} groups)`, 'value');
  }
  const hasOp = item.op !== undefined;
  const hasValue = item.value !== undefined;
  if (hasOp !== hasValue) add(hasOp ? 'op' : 'value', 'op and value together (the number compared, and what with)', hasOp ? item.op : item.value, 'value');
  if ((hasOp || hasValue) && match === undefined) add(hasOp ? 'op' : 'value', 'a bound only with match (the number it bounds is what match captures)', hasOp ? item.op : item.value, 'value');
  if (typeof item.value === 'string') {
    const other = variantOfValue(item.value);
    if (!variants.includes(other)) add('value', `variant:NAME naming a variant of this drill (${variants.join(', ')})`, item.value);
    else if (typeof item.variant !== 'string') add('value', `variant: set too, to the variant whose figure is compared with ${other}'s`, item.value, 'value');
    else if (item.variant === other) add('value', `another variant than the expectation's own (${item.variant})`, item.value, 'value');
  }
  if (pod === null || typeof item.node !== 'string') return;
  const hosts = [...new Set(pod.programs.map((p) => p.node))];
  const count = pod.programs.filter((p) => p.node === item.node).length;
  if (count === 0) add('node', `a host that runs programs (${hosts.join(', ') || 'none does'})`, item.node);
  else if (typeof item.index === 'number' && item.index >= count) add('index', `a program of ${item.node} (0..${count - 1})`, item.index, 'value');
}
