/**
 * `rocelab import hpcc-ns3`, part one: the HPCC ns-3 simulator's input files (its `config.txt`
 * and the topology, flow and trace files it names) read into a typed model, with every value
 * the simulator would read and the line it stands on. Part two (`import-hpcc-pod.ts`) turns the
 * model into a pod. Pure: the caller reads the files.
 *
 * The simulator reads every file as whitespace-separated tokens (`std::ifstream >>`, HPCC
 * `third.cc main`), so lines carry no meaning to it; here they do only for the messages. A key
 * rocelab cannot honour is refused by the pod builder; here only what does not parse is.
 */

/** A value of an HPCC input file that rocelab refuses: where it is, what it is, what was expected. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly key: string,
    readonly value: string,
    readonly expected: string,
  ) {
    super(`${file}${line > 0 ? `:${line}` : ''}: ${key}${value === '' ? '' : ` ${value}`}: expected ${expected}`);
    this.name = 'ImportError';
  }
}

/** Something the import left out or approximated; it still writes the pod. */
export interface ImportWarning {
  file: string;
  line: number;
  message: string;
}

interface Token {
  text: string;
  line: number;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  text.split('\n').forEach((row, i) => {
    for (const t of row.trim().split(/\s+/)) if (t !== '') out.push({ text: t, line: i + 1 });
  });
  return out;
}

/** How each key of `third.cc main` reads its value (the order of the `else if` chain). */
type KeyShape = 'flag' | 'uint' | 'double' | 'string' | 'rate' | 'linkDown' | 'uintMap' | 'doubleMap';
export const HPCC_CONFIG_KEYS: Readonly<Record<string, KeyShape>> = {
  ENABLE_QCN: 'flag',
  USE_DYNAMIC_PFC_THRESHOLD: 'flag',
  CLAMP_TARGET_RATE: 'flag',
  PAUSE_TIME: 'double',
  DATA_RATE: 'string',
  LINK_DELAY: 'string',
  PACKET_PAYLOAD_SIZE: 'uint',
  L2_CHUNK_SIZE: 'uint',
  L2_ACK_INTERVAL: 'uint',
  L2_BACK_TO_ZERO: 'flag',
  TOPOLOGY_FILE: 'string',
  FLOW_FILE: 'string',
  TRACE_FILE: 'string',
  TRACE_OUTPUT_FILE: 'string',
  SIMULATOR_STOP_TIME: 'double',
  ALPHA_RESUME_INTERVAL: 'double',
  RP_TIMER: 'double',
  EWMA_GAIN: 'double',
  FAST_RECOVERY_TIMES: 'uint',
  RATE_AI: 'rate',
  RATE_HAI: 'rate',
  ERROR_RATE_PER_LINK: 'double',
  CC_MODE: 'uint',
  RATE_DECREASE_INTERVAL: 'double',
  MIN_RATE: 'rate',
  FCT_OUTPUT_FILE: 'string',
  HAS_WIN: 'uint',
  GLOBAL_T: 'uint',
  MI_THRESH: 'uint',
  VAR_WIN: 'flag',
  FAST_REACT: 'flag',
  U_TARGET: 'double',
  INT_MULTI: 'uint',
  RATE_BOUND: 'flag',
  ACK_HIGH_PRIO: 'uint',
  DCTCP_RATE_AI: 'rate',
  PFC_OUTPUT_FILE: 'string',
  LINK_DOWN: 'linkDown',
  ENABLE_TRACE: 'uint',
  KMAX_MAP: 'uintMap',
  KMIN_MAP: 'uintMap',
  PMAX_MAP: 'doubleMap',
  BUFFER_SIZE: 'uint',
  QLEN_MON_FILE: 'string',
  QLEN_MON_START: 'uint',
  QLEN_MON_END: 'uint',
  MULTI_RATE: 'flag',
  SAMPLE_FEEDBACK: 'flag',
  PINT_LOG_BASE: 'double',
  PINT_PROB: 'double',
};

/** One key as the file gives it: its line, its tokens as written, and the value read from them. */
export interface ConfigEntry<T = unknown> {
  line: number;
  /** The value as written (all its tokens), for messages and comments. */
  text: string;
  value: T;
}

export interface HpccConfig {
  file: string;
  /** The last occurrence of each key wins, as in the simulator (each assignment overwrites). */
  entries: ReadonlyMap<string, ConfigEntry>;
  warnings: ImportWarning[];
}

const UINT = /^\d+$/;
const DOUBLE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * ns-3 `DataRate` strings (`data-rate.cc DoParse`): a number and bps, b/s, Bps, B/s with an
 * optional SI prefix (k/K, M, G); a bare number is bit/s. Exact for decimal inputs.
 */
export function parseNs3Rate(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([kKMG]?)(bps|b\/s|Bps|B\/s)?$/.exec(text);
  if (m === null) return null;
  const scale = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9 }[m[2]!]!;
  const bytes = m[3] === 'Bps' || m[3] === 'B/s' ? 8 : 1;
  const v = Math.round(Number(m[1]) * scale * bytes);
  return Number.isSafeInteger(v) ? v : null;
}

const NS3_TIME_PS: Record<string, number> = { s: 1e12, ms: 1e9, us: 1e6, ns: 1e3, ps: 1 };

/**
 * ns-3 `Time` strings (`nstime.h` `Time(std::string)`): a number and s, ms, us, ns or ps; a bare
 * number is seconds. The simulator's time resolution is 1 ns, so a delay is whole nanoseconds.
 */
export function parseNs3Time(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(s|ms|us|ns|ps)?$/.exec(text);
  if (m === null) return null;
  const ns = Math.round((Number(m[1]) * NS3_TIME_PS[m[2] ?? 's']!) / 1e3);
  return Number.isSafeInteger(ns) ? ns * 1e3 : null;
}

/** `config.txt` → entries. A value that does not read as the simulator reads it is an ImportError. */
export function parseHpccConfig(text: string, file: string): HpccConfig {
  const ts = tokens(text);
  const entries = new Map<string, ConfigEntry>();
  const warnings: ImportWarning[] = [];
  let i = 0;
  const take = (key: Token, expected: string): Token => {
    const t = ts[i++];
    if (t === undefined) throw new ImportError(file, key.line, key.text, '', `${expected} after it (the file ends)`);
    return t;
  };
  const uint = (key: Token, what = 'a non-negative integer'): { t: Token; v: number } => {
    const t = take(key, what);
    if (!UINT.test(t.text) || !Number.isSafeInteger(Number(t.text))) throw new ImportError(file, t.line, key.text, t.text, what);
    return { t, v: Number(t.text) };
  };
  const double = (key: Token): { t: Token; v: number } => {
    const t = take(key, 'a number');
    if (!DOUBLE.test(t.text)) throw new ImportError(file, t.line, key.text, t.text, 'a number');
    return { t, v: Number(t.text) };
  };
  while (i < ts.length) {
    const key = ts[i++]!;
    const shape = HPCC_CONFIG_KEYS[key.text];
    if (shape === undefined) {
      // The simulator skips a token it does not know, and then reads the next token as a key:
      // a value on the same line is almost surely this key's, so it is skipped with it.
      const rest = ts.slice(i).filter((t) => t.line === key.line);
      i += rest.length;
      warnings.push({ file, line: key.line, message: `unknown key ${key.text}${rest.length ? ` (with ${rest.map((t) => t.text).join(' ')})` : ''}: HPCC third.cc ignores it, and so does the import` });
      continue;
    }
    const start = i;
    let value: unknown;
    switch (shape) {
      case 'flag':
        value = uint(key, '0 or 1').v !== 0;
        break;
      case 'uint':
        value = uint(key).v;
        break;
      case 'double':
        value = double(key).v;
        break;
      case 'string':
        value = take(key, 'a value').text;
        break;
      case 'rate': {
        const t = take(key, 'a rate');
        const bps = parseNs3Rate(t.text);
        if (bps === null) throw new ImportError(file, t.line, key.text, t.text, 'an ns-3 data rate like 50Mb/s, 100Gbps or 1000000 (bit/s)');
        value = bps;
        break;
      }
      case 'linkDown': {
        const at = uint(key, 'LINK_DOWN TIME_US NODE_A NODE_B (three non-negative integers)').v;
        const a = uint(key, 'LINK_DOWN TIME_US NODE_A NODE_B (three non-negative integers)').v;
        const b = uint(key, 'LINK_DOWN TIME_US NODE_A NODE_B (three non-negative integers)').v;
        value = { atUs: at, a, b };
        break;
      }
      case 'uintMap':
      case 'doubleMap': {
        const n = uint(key, 'a count of (rate, value) pairs').v;
        const map = new Map<number, number>();
        for (let k = 0; k < n; k++) {
          const rate = uint(key, `${n} pairs of a link rate in bit/s and a value`).v;
          map.set(rate, shape === 'uintMap' ? uint(key, 'a threshold in KB (units of 1000 B), a non-negative integer').v : double(key).v);
        }
        value = map;
        break;
      }
    }
    entries.set(key.text, { line: key.line, text: ts.slice(start, i).map((t) => t.text).join(' '), value });
  }
  return { file, entries, warnings };
}

export interface HpccLink {
  line: number;
  a: number;
  b: number;
  rateBps: number;
  delayPs: number;
  /** The link's own error rate; 0 means ERROR_RATE_PER_LINK applies (third.cc `main`). */
  errorRate: number;
  /** The link's ifIndex at each end: its position among that node's links, from 1 (device 0 is the loopback). */
  ifA: number;
  ifB: number;
}

export interface HpccTopology {
  file: string;
  nodeCount: number;
  switches: ReadonlySet<number>;
  links: HpccLink[];
}

/** Reads the next unsigned integer of a token stream, or refuses naming the field. */
function reader(ts: Token[], file: string) {
  let i = 0;
  const next = (what: string, expected: string): Token => {
    const t = ts[i++];
    if (t === undefined) throw new ImportError(file, ts.at(-1)?.line ?? 1, what, '', `${expected} (the file ends)`);
    return t;
  };
  return {
    next,
    uint(what: string, expected = 'a non-negative integer'): number {
      const t = next(what, expected);
      if (!UINT.test(t.text) || !Number.isSafeInteger(Number(t.text))) throw new ImportError(file, t.line, what, t.text, expected);
      return Number(t.text);
    },
    rest: (): Token[] => ts.slice(i),
    line: (): number => ts[Math.max(0, i - 1)]?.line ?? 1,
  };
}

/** The topology file: `N S L`, the S switch ids, then L lines `a b rate delay error` (third.cc `main`). */
export function parseHpccTopology(text: string, file: string): HpccTopology {
  const r = reader(tokens(text), file);
  const nodeCount = r.uint('node count', 'a header NODES SWITCHES LINKS (non-negative integers)');
  const switchCount = r.uint('switch count', 'a header NODES SWITCHES LINKS (non-negative integers)');
  const linkCount = r.uint('link count', 'a header NODES SWITCHES LINKS (non-negative integers)');
  if (nodeCount < 1) throw new ImportError(file, 1, 'node count', String(nodeCount), 'at least one node');
  const switches = new Set<number>();
  for (let k = 0; k < switchCount; k++) {
    const id = r.uint('switch id', `${switchCount} switch ids, each below the node count ${nodeCount}`);
    if (id >= nodeCount) throw new ImportError(file, r.line(), 'switch id', String(id), `a node id below the node count ${nodeCount}`);
    switches.add(id);
  }
  const degree = new Array<number>(nodeCount).fill(0);
  const pairs = new Map<string, number>();
  const links: HpccLink[] = [];
  for (let k = 0; k < linkCount; k++) {
    const expected = `${linkCount} links "A B RATE DELAY ERROR_RATE"`;
    const aTok = r.next('link', expected);
    const line = aTok.line;
    const id = (t: Token): number => {
      if (!UINT.test(t.text) || Number(t.text) >= nodeCount) throw new ImportError(file, t.line, 'link end', t.text, `a node id below the node count ${nodeCount}`);
      return Number(t.text);
    };
    const a = id(aTok);
    const b = id(r.next('link', expected));
    const rateTok = r.next('link rate', expected);
    const rateBps = parseNs3Rate(rateTok.text);
    if (rateBps === null || rateBps <= 0) throw new ImportError(file, rateTok.line, 'link rate', rateTok.text, 'an ns-3 data rate like 100Gbps or 25Gbps');
    const delayTok = r.next('link delay', expected);
    const delayPs = parseNs3Time(delayTok.text);
    if (delayPs === null) throw new ImportError(file, delayTok.line, 'link delay', delayTok.text, 'an ns-3 time like 0.001ms or 1000ns (whole nanoseconds)');
    const errTok = r.next('link error rate', expected);
    const errorRate = Number(errTok.text);
    if (!DOUBLE.test(errTok.text) || errorRate < 0 || errorRate > 1) throw new ImportError(file, errTok.line, 'link error rate', errTok.text, 'a packet error rate 0..1');
    if (a === b) throw new ImportError(file, line, 'link', `${a} ${b}`, 'a link between two different nodes');
    const pair = `${Math.min(a, b)} ${Math.max(a, b)}`;
    const earlier = pairs.get(pair);
    // third.cc keeps one interface per node pair (`nbr2if[a][b]`): a second link would be wired but never routed.
    if (earlier !== undefined) throw new ImportError(file, line, 'link', `${a} ${b}`, `one link per node pair (line ${earlier} links them already; third.cc routes over one interface per pair)`);
    pairs.set(pair, line);
    degree[a]!++;
    degree[b]!++;
    links.push({ line, a, b, rateBps, delayPs, errorRate, ifA: degree[a]!, ifB: degree[b]! });
  }
  return { file, nodeCount, switches, links };
}

export interface HpccFlow {
  line: number;
  src: number;
  dst: number;
  pg: number;
  dport: number;
  sizeBytes: number;
  /** `Seconds(start_time)` at ns-3's resolution of 1 ns, in ps. */
  startPs: number;
  /** The source port third.cc gives it: per (src, dst) pair, counted from 10000 in flow order (`ScheduleFlowInputs`). */
  sport: number;
}

export interface HpccFlows {
  file: string;
  flows: HpccFlow[];
  warnings: ImportWarning[];
}

/** The flow file: a count, then that many lines `src dst pg dport size start_s` (third.cc `ReadFlowInput`). */
export function parseHpccFlows(text: string, file: string, topo: HpccTopology): HpccFlows {
  const r = reader(tokens(text), file);
  const count = r.uint('flow count', 'the number of flows on the first line, a non-negative integer');
  const flows: HpccFlow[] = [];
  const ports = new Map<string, number>();
  const host = (t: Token, field: string): number => {
    if (!UINT.test(t.text) || Number(t.text) >= topo.nodeCount) throw new ImportError(file, t.line, field, t.text, `a node id below the node count ${topo.nodeCount} of ${topo.file}`);
    const id = Number(t.text);
    // third.cc `ReadFlowInput` asserts both ends are hosts (node type 0).
    if (topo.switches.has(id)) throw new ImportError(file, t.line, field, t.text, `a host (node ${id} is a switch in ${topo.file})`);
    return id;
  };
  for (let k = 0; k < count; k++) {
    const expected = `${count} flows "SRC DST PG DPORT SIZE_BYTES START_S" (the count on line 1)`;
    const srcTok = r.next('flow', expected);
    const line = srcTok.line;
    const src = host(srcTok, 'src');
    const dst = host(r.next('dst', expected), 'dst');
    const pg = r.uint('pg', 'a priority group 0..7');
    const dport = r.uint('dport', 'a UDP port 0..65535');
    if (dport > 0xffff) throw new ImportError(file, line, 'dport', String(dport), 'a UDP port 0..65535');
    const sizeBytes = r.uint('size', 'a flow size in bytes, a non-negative integer');
    const startTok = r.next('start', expected);
    if (!DOUBLE.test(startTok.text) || Number(startTok.text) < 0) throw new ImportError(file, startTok.line, 'start', startTok.text, 'a start time in seconds ≥ 0, like 2.000001');
    const startPs = Math.round(Number(startTok.text) * 1e9) * 1e3;
    if (src === dst) throw new ImportError(file, line, 'dst', String(dst), `a host other than the source ${src}`);
    const prev = flows.at(-1);
    // ScheduleFlowInputs schedules the next flow at (its start − now): an earlier start would be in the past.
    if (prev !== undefined && startPs < prev.startPs) throw new ImportError(file, startTok.line, 'start', startTok.text, `a start time no earlier than the flow before it (line ${prev.line}, ${prev.startPs / 1e12} s): the simulator reads flows in start order`);
    const pair = `${src} ${dst}`;
    const sport = ports.get(pair) ?? 10000;
    ports.set(pair, sport + 1);
    flows.push({ line, src, dst, pg, dport, sizeBytes, startPs, sport });
  }
  const rest = r.rest();
  const warnings: ImportWarning[] = rest.length === 0 ? [] : [{ file, line: rest[0]!.line, message: `the file goes on after the ${count} flows its first line counts: HPCC third.cc reads only those, and so does the import` }];
  return { file, flows, warnings };
}

export interface HpccTrace {
  file: string;
  nodes: number[];
  warnings: ImportWarning[];
}

/** The trace file: a count, then that many node ids; ids past the topology are skipped, as in third.cc `main`. */
export function parseHpccTrace(text: string, file: string, topo: HpccTopology): HpccTrace {
  const r = reader(tokens(text), file);
  const count = r.uint('trace count', 'the number of traced nodes on the first line, a non-negative integer');
  const nodes: number[] = [];
  let skipped = 0;
  let firstSkipped = 0;
  for (let k = 0; k < count; k++) {
    const id = r.uint('node id', `${count} node ids (the count on line 1)`);
    if (id >= topo.nodeCount) {
      if (skipped++ === 0) firstSkipped = r.line();
      continue;
    }
    if (!nodes.includes(id)) nodes.push(id);
  }
  const warnings: ImportWarning[] = skipped === 0 ? [] : [{ file, line: firstSkipped, message: `${skipped} node id(s) at or past the node count ${topo.nodeCount} of ${topo.file}: HPCC third.cc skips them, and so does the import` }];
  return { file, nodes, warnings };
}

/** The three input files config.txt names, as written, with their lines; a missing one is refused. */
export function hpccInputNames(config: HpccConfig): Record<'topology' | 'flow' | 'trace', { path: string; line: number }> {
  const named = (key: string) => {
    const e = config.entries.get(key);
    if (e === undefined) throw new ImportError(config.file, 0, key, '(unset)', `${key} naming a file (third.cc opens it with no default)`);
    return { path: e.value as string, line: e.line };
  };
  return { topology: named('TOPOLOGY_FILE'), flow: named('FLOW_FILE'), trace: named('TRACE_FILE') };
}
