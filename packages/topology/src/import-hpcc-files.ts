/**
 * The topology, flow and trace files HPCC ns-3's config.txt names, read as third.cc `main` reads
 * them (whitespace-separated tokens) into a typed model; a value that does not read, or breaks a
 * rule the simulator asserts, is an ImportError at its line.
 */
import { DOUBLE, ImportError, UINT, parseNs3Rate, parseNs3Time, tokens, type ImportWarning, type Token } from './import-hpcc.js';

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
    const sport = ports.get(pair) ?? HPCC_FIRST_SPORT;
    ports.set(pair, sport + 1);
    flows.push({ line, src, dst, pg, dport, sizeBytes, startPs, sport });
  }
  const rest = r.rest();
  const warnings: ImportWarning[] = rest.length === 0 ? [] : [{ file, line: rest[0]!.line, message: `the file goes on after the ${count} flows its first line counts: HPCC third.cc reads only those, and so does the import` }];
  return { file, flows, warnings };
}

/** HPCC third.cc `main`: `portNumder[i][j] = 10000`, each host pair's first source port (the import and the NIC rule `udpPorts: hpcc-ns3` count from it). */
export const HPCC_FIRST_SPORT = 10000;
/** HPCC ns-3's destination port: the one every flow of its example flow files names (mix/flow.txt, traffic_gen.py). */
export const HPCC_DPORT = 100;

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

