/**
 * `rocelab import hpcc-ns3`, part two: the HPCC ns-3 model (`import-hpcc.ts`) → a rocelab pod,
 * as an object and as commented YAML. Every rule carried over cites the simulator's code; a
 * value rocelab cannot honour is an ImportError, an approximation is written with a comment
 * saying so and listed as a warning (docs/hpcc-ns3-import.md).
 *
 * Node ids stay the simulator's: node k is named `n` + k zero-padded to the width of the
 * largest id, so that rocelab's node index (the position of the name in sorted order) is k.
 */
import { Document, isMap, isScalar, isSeq, type Node as YamlNode, type Pair } from 'yaml';
import { ImportError, type ConfigEntry, type HpccConfig, type HpccFlows, type HpccTopology, type HpccTrace, type ImportWarning } from './import-hpcc.js';

export interface HpccImportInput {
  config: HpccConfig;
  topology: HpccTopology;
  flows: HpccFlows;
  trace: HpccTrace;
  /** The pod's name (a node-name-like string). */
  name: string;
  /** A sentence saying where the named files were found (the simulator's working directory, or beside the config). */
  resolvedFrom: string;
}

export interface HpccImport {
  pod: Record<string, unknown>;
  yaml: string;
  warnings: ImportWarning[];
}

/** The DSCP rocelab's NIC sends data with and maps to priority 3, the lossless RoCE class (`DEFAULT_DSCP_MAP`). */
const DATA_DSCP = 26;
const DATA_PRIORITY = 3;

type Path = ReadonlyArray<string | number>;

export function rateText(bps: number): string | number {
  for (const [unit, scale] of [['G', 1e9], ['M', 1e6], ['K', 1e3]] as const) if (bps % scale === 0) return `${bps / scale}${unit}`;
  return bps;
}

export function durationText(ps: number): string {
  for (const [unit, scale] of [['s', 1e12], ['ms', 1e9], ['us', 1e6], ['ns', 1e3]] as const) if (ps % scale === 0) return `${ps / scale}${unit}`;
  return `${ps}ps`;
}

/** The simulator's BFS of third.cc `CalculateRoute` from each host: the largest base RTT over host pairs, in ns (`maxRtt`). */
export function hpccMaxRttNs(topo: HpccTopology, payloadBytes: number): number {
  const nbrs = Array.from({ length: topo.nodeCount }, () => [] as Array<{ peer: number; delayNs: number; bps: number }>);
  for (const l of topo.links) {
    nbrs[l.a]!.push({ peer: l.b, delayNs: l.delayPs / 1e3, bps: l.rateBps });
    nbrs[l.b]!.push({ peer: l.a, delayNs: l.delayPs / 1e3, bps: l.rateBps });
  }
  // nbr2if is a std::map keyed by node pointer, created in id order.
  for (const list of nbrs) list.sort((x, y) => x.peer - y.peer);
  let maxRtt = 0;
  for (let h = 0; h < topo.nodeCount; h++) {
    if (topo.switches.has(h)) continue;
    const delay = new Map<number, number>([[h, 0]]);
    const tx = new Map<number, number>([[h, 0]]);
    const queue = [h];
    for (let i = 0; i < queue.length; i++) {
      const now = queue[i]!;
      for (const { peer, delayNs, bps } of nbrs[now]!) {
        if (delay.has(peer)) continue;
        delay.set(peer, delay.get(now)! + delayNs);
        tx.set(peer, tx.get(now)! + Math.floor((payloadBytes * 1e9 * 8) / bps));
        if (topo.switches.has(peer)) queue.push(peer);
      }
    }
    for (const [node, d] of delay) if (!topo.switches.has(node)) maxRtt = Math.max(maxRtt, 2 * d + tx.get(node)!);
  }
  return maxRtt;
}

/** The value most entries have; the largest on a tie. */
function mostCommon(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((x, y) => y[1] - x[1] || y[0] - x[0])[0]![0];
}

function group(groups: Map<string, number[]>, message: string, id: number): void {
  groups.set(message, [...(groups.get(message) ?? []), id]);
}

/** `3, 5, 7` or `320–339` for a run: a warning about 20 switches stays one line. */
function idList(ids: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    runs.push(j - i >= 2 ? `${ids[i]}–${ids[j]}` : ids.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  return runs.join(', ');
}

/** Tiers by distance from the hosts: next to hosts a ToR, then leaf, then spine; anything farther the generic `switch`. */
function roles(topo: HpccTopology): string[] {
  const dist = new Array<number>(topo.nodeCount).fill(Infinity);
  const queue: number[] = [];
  for (let id = 0; id < topo.nodeCount; id++) {
    if (topo.switches.has(id)) continue;
    dist[id] = 0;
    queue.push(id);
  }
  const nbrs = Array.from({ length: topo.nodeCount }, () => [] as number[]);
  for (const l of topo.links) {
    nbrs[l.a]!.push(l.b);
    nbrs[l.b]!.push(l.a);
  }
  for (let i = 0; i < queue.length; i++) {
    for (const p of nbrs[queue[i]!]!) {
      if (dist[p] !== Infinity) continue;
      dist[p] = dist[queue[i]!]! + 1;
      queue.push(p);
    }
  }
  return dist.map((d, id) => (!topo.switches.has(id) ? 'host' : (['tor', 'leaf', 'spine'][d - 1] ?? 'switch')));
}

/** third.cc `node_id_to_ip`: 0x0b000001 + (id / 256) · 2¹⁶ + (id % 256) · 2⁸, i.e. 11.(id/256).(id%256).1. */
export function hpccHostIp(id: number): string {
  const ip = 0x0b000001 + Math.floor(id / 256) * 0x10000 + (id % 256) * 0x100;
  return [24, 16, 8, 0].map((s) => (ip >>> s) & 0xff).join('.');
}

export function hpccToPod(input: HpccImportInput): HpccImport {
  const { config, topology: topo, flows, trace } = input;
  const warnings: ImportWarning[] = [...config.warnings, ...flows.warnings, ...trace.warnings];
  const notes: Array<{ path: Path; text: string }> = [];
  const header: string[] = [];
  const cfg = config.file;
  const entry = (key: string): ConfigEntry | undefined => config.entries.get(key);
  const get = <T>(key: string, fallback: T): T => (entry(key)?.value as T | undefined) ?? fallback;
  const where = (key: string): string => {
    const e = entry(key);
    return e === undefined ? `${key} unset, third.cc's default` : `${key} ${e.text}, ${cfg}:${e.line}`;
  };
  const refuse = (key: string, expected: string): never => {
    const e = entry(key);
    throw new ImportError(cfg, e?.line ?? 0, key, e?.text ?? '(unset)', expected);
  };
  const approx = (key: string, path: Path | null, message: string): void => {
    warnings.push({ file: cfg, line: entry(key)?.line ?? 0, message: `${key}: ${message}` });
    if (path !== null) notes.push({ path, text: `APPROXIMATION (${where(key)}): ${message}` });
  };
  const note = (path: Path, text: string): void => void notes.push({ path, text });

  // --- nodes ---------------------------------------------------------------------------------
  const width = String(topo.nodeCount - 1).length;
  const name = (id: number): string => `n${String(id).padStart(width, '0')}`;
  const degree = new Array<number>(topo.nodeCount).fill(0);
  for (const l of topo.links) {
    degree[l.a]!++;
    degree[l.b]!++;
  }
  const port = (id: number, ifIndex: number): string => `${name(id)}:p${String(ifIndex).padStart(String(degree[id]).length, '0')}`;
  const role = roles(topo);
  for (let id = 0; id < topo.nodeCount; id++) {
    if (role[id] !== 'host') continue;
    const own = topo.links.filter((l) => l.a === id || l.b === id);
    if (own.length !== 1) throw new ImportError(topo.file, own[1]?.line ?? 1, `host ${id}`, `${own.length} links`, 'a host with exactly one link, to a switch (a rocelab host hangs off one ToR)');
    const peer = own[0]!.a === id ? own[0]!.b : own[0]!.a;
    if (role[peer] === 'host') throw new ImportError(topo.file, own[0]!.line, `host ${id}`, `linked to host ${peer}`, 'a host linked to a switch (list it among the switch ids on line 2)');
  }
  const nodes = Array.from({ length: topo.nodeCount }, (_, id) => (role[id] === 'host' ? { name: name(id), role: 'host', ip: hpccHostIp(id) } : { name: name(id), role: role[id] }));

  // --- links ---------------------------------------------------------------------------------
  const globalError = get<number>('ERROR_RATE_PER_LINK', 0);
  if (globalError < 0 || globalError > 1) refuse('ERROR_RATE_PER_LINK', 'a packet error rate 0..1');
  const links = topo.links.map((l) => {
    const link: Record<string, unknown> = { a: port(l.a, l.ifA), b: port(l.b, l.ifB), rate: rateText(l.rateBps), latency: durationText(l.delayPs) };
    // third.cc `main`: a link's own error rate when above 0, else ERROR_RATE_PER_LINK.
    if (l.errorRate > 0) link.impairments = { a_to_b: { loss: l.errorRate }, b_to_a: { loss: l.errorRate } };
    return link;
  });

  // --- congestion control --------------------------------------------------------------------
  const ccMode = get<number>('CC_MODE', 1);
  const cc = ({ 1: 'dcqcn', 3: 'hpcc', 7: 'timely', 8: 'dctcp' } as Record<number, string>)[ccMode];
  if (ccMode === 10) refuse('CC_MODE', '1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP): rocelab has no HPCC-PINT (mode 10)');
  if (cc === undefined) refuse('CC_MODE', '1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP), the modes of HPCC rdma-hw.cc');
  if (!get('RATE_BOUND', true)) refuse('RATE_BOUND', '1: rocelab\'s NIC always paces each QP at its rate (RATE_BOUND 0 sends without a rate limiter)');
  const payload = get<number>('PACKET_PAYLOAD_SIZE', 1000);
  if (payload < 256 || payload > 9000) refuse('PACKET_PAYLOAD_SIZE', 'a payload of 256..9000 bytes (rocelab\'s MTU range)');
  const rate = (key: string): string | number => {
    if (entry(key) === undefined) refuse(key, `a rate: third.cc has no usable default for ${key} (DataRate of an empty string)`);
    return rateText(get(key, 0));
  };
  const us = (key: string, fallback: number): string => durationText(Math.round(get(key, fallback) * 1e6));

  const nic: Record<string, unknown> = { cc };
  const P = ['defaults', 'nic'] as const;
  note([...P, 'cc'], `${where('CC_MODE')} (HPCC rdma-hw.cc ReceiveAck dispatches on m_cc_mode)`);
  if (cc === 'dcqcn') {
    if (entry('RP_TIMER') === undefined) refuse('RP_TIMER', 'a rate-increase period in µs: third.cc leaves rp_timer unset');
    // rdma-hw.cc: AlphaResumInterval, RateDecreaseInterval and RPTimer are MicroSeconds(...).
    nic.dcqcn = {
      alphaPeriod: us('ALPHA_RESUME_INTERVAL', 55),
      rateDecreasePeriod: us('RATE_DECREASE_INTERVAL', 4),
      rateIncreaseTimer: us('RP_TIMER', 0),
      g: get<number>('EWMA_GAIN', 0),
      fastRecoverySteps: get<number>('FAST_RECOVERY_TIMES', 5),
      aiRate: rate('RATE_AI'),
      haiRate: rate('RATE_HAI'),
      minRate: rateText(get<number>('MIN_RATE', 100e6)),
      clampTargetRate: get('CLAMP_TARGET_RATE', false),
    };
    note([...P, 'dcqcn'], `DCQCN (rdma-hw.cc UpdateAlphaMlx, CheckRateDecreaseMlx, RateIncEventTimerMlx): ${['ALPHA_RESUME_INTERVAL', 'RATE_DECREASE_INTERVAL', 'RP_TIMER', 'EWMA_GAIN', 'FAST_RECOVERY_TIMES', 'RATE_AI', 'RATE_HAI', 'MIN_RATE', 'CLAMP_TARGET_RATE'].map(where).join('; ')}`);
  }
  const maxRttNs = hpccMaxRttNs(topo, payload);
  if (cc === 'hpcc') {
    if (entry('RATE_AI') === undefined) refuse('RATE_AI', 'a rate: HPCC\'s additive increase (third.cc has no default)');
    const raiBps = get<number>('RATE_AI', 0);
    const waiBytes = Math.floor((raiBps * maxRttNs) / 1e9 / 8);
    nic.hpcc = { eta: get<number>('U_TARGET', 0.95), maxStage: get<number>('MI_THRESH', 5), wai: waiBytes, fastReact: get('FAST_REACT', true), multiRate: get('MULTI_RATE', true), sampleFeedback: get('SAMPLE_FEEDBACK', false) };
    note(
      [...P, 'hpcc'],
      `HPCC (rdma-hw.cc UpdateRateHp): eta ← ${where('U_TARGET')}; maxStage ← ${where('MI_THRESH')}; fastReact ← ${where('FAST_REACT')}; multiRate ← ${where('MULTI_RATE')}; sampleFeedback ← ${where('SAMPLE_FEEDBACK')}; wai = RATE_AI × maxRtt / 8 = ${raiBps} b/s × ${maxRttNs} ns / 8 = ${waiBytes} B (${where('RATE_AI')}: the simulator adds m_rai to the rate, and its window is rate × T with T = maxRtt, third.cc main)`,
    );
    const multi = get<number>('INT_MULTI', 1);
    if (multi !== 1) approx('INT_MULTI', [...P, 'hpcc'], `rocelab's INT carries exact queue lengths and byte counts; the simulator counts them in units of ${multi} B (IntHop::multi)`);
  }
  if (cc === 'timely') {
    nic.timely = { ai: rate('RATE_AI') };
    note([...P, 'timely'], `TIMELY (rdma-hw.cc UpdateRateTimely): ai ← ${where('RATE_AI')}; config.txt has no key for TimelyAlpha, TimelyBeta, TimelyTLow, TimelyTHigh or TimelyMinRtt, so the profile's values (rdma-hw.cc attribute defaults) apply; hyper-additive step ${where('RATE_HAI')} after 5 rounds`);
  }
  if (cc === 'dctcp') {
    nic.dctcp = { g: get<number>('EWMA_GAIN', 0), ai: rateText(get<number>('DCTCP_RATE_AI', 1e9)) };
    note([...P, 'dctcp'], `DCTCP (rdma-hw.cc UpdateRateDctcp): g ← ${where('EWMA_GAIN')}; ai ← ${where('DCTCP_RATE_AI')}`);
  }
  const hasWin = get<number>('HAS_WIN', 1) !== 0;
  if (hasWin && get<number>('GLOBAL_T', 1) !== 1) refuse('GLOBAL_T', '1: rocelab\'s window `bytes: auto` is the largest BDP over host pairs (GLOBAL_T 0 gives each pair its own)');
  nic.window = hasWin ? { enabled: true, bytes: 'auto' } : { enabled: false };
  note([...P, 'window'], `${where('HAS_WIN')}; ${where('GLOBAL_T')} (third.cc ScheduleFlowInputs: win = maxBdp); ${where('VAR_WIN')}`);
  if (hasWin && cc === 'hpcc' && !get('VAR_WIN', false)) approx('VAR_WIN', [...P, 'window'], 'VAR_WIN 0 keeps the window at its maximum whatever the rate; rocelab\'s HPCC window follows its rate (VAR_WIN 1)');

  const ackInterval = get<number>('L2_ACK_INTERVAL', 0);
  if (ackInterval === 0) refuse('L2_ACK_INTERVAL', 'an ACK interval in bytes ≥ 1 (0 sends no ACK: rdma-hw.cc "shouldn\'t receive ack")');
  const chunk = get<number>('L2_CHUNK_SIZE', 0);
  const backToZero = get('L2_BACK_TO_ZERO', false);
  if ((backToZero || ackInterval > payload) && chunk === 0) refuse('L2_CHUNK_SIZE', 'a chunk size in bytes ≥ 1 (rdma-hw.cc ReceiverCheckSeq divides by it)');
  // rdma-hw.cc ReceiverCheckSeq: an ACK when the next expected byte reaches the milestone, which then grows by L2_ACK_INTERVAL bytes.
  const ackEvery = Math.max(1, Math.round(ackInterval / payload));
  nic.ackEvery = ackEvery;
  note([...P, 'ackEvery'], `${where('L2_ACK_INTERVAL')}: an ACK per ${ackInterval} B of ${payload} B packets (rdma-hw.cc ReceiverCheckSeq)`);
  if (ackInterval > payload && (ackInterval % payload !== 0 || chunk % ackInterval !== 0)) {
    approx('L2_ACK_INTERVAL', [...P, 'ackEvery'], `the simulator also ACKs at each ${chunk} B chunk boundary and its milestone does not fall on packet boundaries; rocelab ACKs every ${ackEvery} packets`);
  }
  nic.recovery = backToZero ? 'goBack0' : 'goBackN';
  note([...P, 'recovery'], `${where('L2_BACK_TO_ZERO')}: ${backToZero ? `sender and receiver go back to the start of the ${chunk} B chunk (rdma-hw.cc ReceiveAck, ReceiverCheckSeq); each flow is posted as messages of L2_CHUNK_SIZE bytes, so goBack0 goes back to the chunk` : 'resend from the first missing byte (go-back-N); config_doc.txt has the flag the wrong way round (PHYSICS §5)'}`);
  if (backToZero && chunk % payload !== 0) approx('L2_CHUNK_SIZE', [...P, 'recovery'], `a chunk of ${chunk} B is not a whole number of ${payload} B packets: rocelab starts a packet at each message, the simulator cuts packets across chunk boundaries`);

  const ackHigh = get<number>('ACK_HIGH_PRIO', 0);
  if (ackHigh !== 0) approx('ACK_HIGH_PRIO', [...P, 'cc'], 'the simulator sends ACKs from queue 0, which PAUSE does not stop (RdmaEgressQueue::ack_q_idx); rocelab\'s ACKs ride their QP\'s priority, as with ACK_HIGH_PRIO 0');

  // --- switches ------------------------------------------------------------------------------
  const sw: Record<string, unknown> = { bufferBytes: `${get<number>('BUFFER_SIZE', 16)}MiB`, ecmpHash: 'hpcc-ns3', ecmpOrder: 'hpcc-bfs' };
  if (get<number>('BUFFER_SIZE', 16) === 0) refuse('BUFFER_SIZE', 'a buffer of at least 1 MiB per switch');
  const S = ['defaults', 'switch'] as const;
  note([...S, 'bufferBytes'], `${where('BUFFER_SIZE')} (MB of 2²⁰ B, third.cc ConfigBufferSize(buffer_size * 1024 * 1024)); headroom per port 3 · rate · delay / 8 and the 4096 B reserve are the hpcc-ns3 profile's (third.cc ConfigHdrm, switch-mmu.cc)`);
  note([...S, 'ecmpHash'], 'the simulator\'s ECMP hash and next-hop order (switch-node.cc GetOutDev, third.cc CalculateRoute)');
  if (!get('USE_DYNAMIC_PFC_THRESHOLD', true)) approx('USE_DYNAMIC_PFC_THRESHOLD', [...S, 'bufferBytes'], 'the simulator never reads it (QbbNetDevice m_dynamicth is unused; switch-mmu.cc GetPfcThreshold is always dynamic), so the threshold stays dynamic');
  const kmin = get<Map<number, number>>('KMIN_MAP', new Map());
  const kmax = get<Map<number, number>>('KMAX_MAP', new Map());
  const pmax = get<Map<number, number>>('PMAX_MAP', new Map());
  const enableQcn = get('ENABLE_QCN', true);
  const hostIds = [...Array(topo.nodeCount).keys()].filter((id) => role[id] === 'host');
  // third.cc get_nic_rate: the rate of the first host's first device.
  const nicLink = topo.links.find((l) => l.a === hostIds[0] || l.b === hostIds[0]);
  const nicRate = nicLink?.rateBps ?? 0;
  const perSwitch = new Map<number, { ecn: Record<string, unknown>; alpha: number | null }>();
  const mixedEcn = new Map<string, number[]>();
  const mixedAlpha = new Map<string, number[]>();
  for (const id of topo.switches) {
    const own = topo.links.filter((l) => l.a === id || l.b === id);
    if (own.length === 0) continue;
    const rates = [...new Set(own.map((l) => l.rateBps))].sort((x, y) => y - x);
    for (const r of rates) {
      for (const [key, map] of [['KMIN_MAP', kmin], ['KMAX_MAP', kmax], ['PMAX_MAP', pmax]] as const) {
        if (!map.has(r)) refuse(key, `an entry for every switch port rate: ${r} b/s (switch ${id}, ${topo.file}:${own.find((l) => l.rateBps === r)!.line}) is missing (third.cc asserts "must set ${key.slice(0, 4).toLowerCase()} for each link speed")`);
      }
    }
    const ecnOf = (r: number) => ({ enabled: enableQcn, kmin: `${kmin.get(r)}KB`, kmax: `${kmax.get(r)}KB`, pmax: pmax.get(r)! });
    // rocelab has one ECN setting and one α per switch: those of most of its ports (of the faster on a tie).
    const ecnRate = mostCommon(own.map((l) => l.rateBps));
    const ecn = ecnOf(ecnRate);
    if (rates.some((r) => JSON.stringify(ecnOf(r)) !== JSON.stringify(ecn))) {
      group(mixedEcn, `ports at ${rates.join(', ')} b/s with different ECN thresholds: rocelab sets one per switch, those of most of its ports (${ecnRate} b/s)`, id);
    }
    // third.cc main: pfc_a_shift starts at 3 and drops by one per halving of the port rate above the NIC rate.
    const shifts = own.map((l) => {
      let shift = 3;
      let r = l.rateBps;
      while (r > nicRate && shift > 0) {
        shift--;
        r /= 2;
      }
      return shift;
    });
    const shift = mostCommon(shifts);
    if (new Set(shifts).size > 1) group(mixedAlpha, `ports with PFC α = 2^-pfc_a_shift for shifts ${[...new Set(shifts)].sort().join(', ')} (third.cc main sets the shift by port rate): rocelab has one α per switch, 2^-${shift}, that of most of its ports`, id);
    perSwitch.set(id, { ecn, alpha: shift === 3 ? null : 2 ** -shift });
  }
  for (const [message, ids] of mixedEcn) approx('KMIN_MAP', null, `switch${ids.length > 1 ? 'es' : ''} ${idList(ids)} ${ids.length > 1 ? 'have' : 'has'} ${message}`);
  for (const [message, ids] of mixedAlpha) approx('BUFFER_SIZE', null, `switch${ids.length > 1 ? 'es' : ''} ${idList(ids)} ${ids.length > 1 ? 'have' : 'has'} ${message}`);
  // The ECN most switches have goes under defaults; a switch with other thresholds gets its own.
  const ecnCounts = new Map<string, number>();
  for (const v of perSwitch.values()) ecnCounts.set(JSON.stringify(v.ecn), (ecnCounts.get(JSON.stringify(v.ecn)) ?? 0) + 1);
  const commonEcn = [...ecnCounts.entries()].sort((x, y) => y[1] - x[1])[0]?.[0];
  if (commonEcn !== undefined) {
    sw.ecn = JSON.parse(commonEcn) as unknown;
    note([...S, 'ecn'], `ECN by port rate (${where('KMIN_MAP')}; ${where('KMAX_MAP')}; ${where('PMAX_MAP')}; ${where('ENABLE_QCN')}): kmin/kmax in KB of 1000 B (switch-mmu.cc ConfigEcn: _kmin * 1000)${ecnCounts.size > 1 ? '; switches whose ports are mostly at another rate have their own' : ''}`);
  }
  for (const [id, s] of perSwitch) {
    const own: Record<string, unknown> = {};
    if (JSON.stringify(s.ecn) !== commonEcn) own.ecn = s.ecn;
    if (s.alpha !== null) own.alpha = s.alpha;
    if (Object.keys(own).length > 0) (nodes[id] as Record<string, unknown>).switch = own;
  }

  const defaultsLink: Record<string, unknown> = { mtu: payload };
  if (globalError > 0) defaultsLink.impairments = { loss: globalError };
  note(['defaults', 'link', 'mtu'], `${where('PACKET_PAYLOAD_SIZE')}: the payload of one packet`);
  if (globalError > 0) note(['defaults', 'link', 'impairments'], `${where('ERROR_RATE_PER_LINK')}: APPROXIMATION: the simulator drops at that rate on receive (RateErrorModel, ERROR_UNIT_PACKET, stream 50); rocelab loses frames at that rate on each direction, from its own seeded stream`);

  // --- workloads -----------------------------------------------------------------------------
  const workloads = flows.flows.map((f) => {
    if (f.pg !== DATA_PRIORITY) throw new ImportError(flows.file, f.line, 'pg', String(f.pg), `priority group ${DATA_PRIORITY}: rocelab's NIC sends RDMA data as DSCP ${DATA_DSCP}, which every hpcc-ns3 switch maps to priority ${DATA_PRIORITY} (the lossless class)`);
    return {
      kind: 'flow',
      from: name(f.src),
      to: name(f.dst),
      sizeBytes: f.sizeBytes,
      start: durationText(f.startPs),
      dscp: DATA_DSCP,
      udpPorts: { src: f.sport, dst: f.dport },
      ...(backToZero ? { messageBytes: chunk } : {}),
    };
  });
  if (workloads.length > 0) note(['workloads', 0], `from ${flows.file} (src dst pg dport size start): pg ${DATA_PRIORITY} → DSCP ${DATA_DSCP}; udpPorts.src counts from 10000 per (src, dst) in file order (third.cc ScheduleFlowInputs), dst is the flow's dport`);

  // --- faults --------------------------------------------------------------------------------
  const faults: Array<Record<string, unknown>> = [];
  const down = get<{ atUs: number; a: number; b: number } | null>('LINK_DOWN', null);
  if (down !== null && down.atUs > 0) {
    const l = topo.links.find((x) => (x.a === down.a && x.b === down.b) || (x.a === down.b && x.b === down.a));
    if (l === undefined) refuse('LINK_DOWN', `two linked node ids (${topo.file} has no link between ${down.a} and ${down.b})`);
    const atPs = 2e12 + down.atUs * 1e6;
    const link = l!.a === down.a ? port(l!.a, l!.ifA) : port(l!.b, l!.ifB);
    faults.push({ at: durationText(atPs), kind: 'linkDown', link });
    note(['faults', 0], `${where('LINK_DOWN')}: at 2 s + ${down.atUs} µs (third.cc schedules TakeDownLink at Seconds(2) + MicroSeconds(t)); the simulator then recomputes its routes (CalculateRoutes) and moves QPs off the port (RedistributeQp)`);
  }

  // --- header --------------------------------------------------------------------------------
  const stop = get<number>('SIMULATOR_STOP_TIME', 3.01);
  const stopText = durationText(Math.round(stop * 1e9) * 1e3);
  header.push(
    ` Imported by rocelab import hpcc-ns3 from ${cfg} (HPCC ns-3, github.com/alibaba-edu/High-Precision-Congestion-Control)`,
    ` files: ${topo.file}, ${flows.file}, ${trace.file} (${input.resolvedFrom})`,
    ` ${topo.nodeCount} nodes (${hostIds.length} hosts, ${topo.switches.size} switches), ${topo.links.length} links, ${flows.flows.length} flows; node k is n${'0'.repeat(width - 1)}k, host k's address 11.(k/256).(k%256).1 (third.cc node_id_to_ip)`,
    ` Run it as the simulator would (${where('SIMULATOR_STOP_TIME')}): rocelab run THIS_FILE --duration ${stopText}`,
  );
  if (get<number>('ENABLE_TRACE', 1) !== 0 && trace.nodes.length > 0) {
    const ports = trace.nodes.flatMap((id) => topo.links.filter((l) => l.a === id || l.b === id).map((l) => (l.a === id ? port(l.a, l.ifA) : port(l.b, l.ifB))));
    header.push(
      ports.length <= 16
        ? ` ${where('ENABLE_TRACE')}, ${trace.file} traces nodes ${trace.nodes.join(', ')}: capture them with --pcap DIR --pcap-ports ${ports.join(',')}`
        : ` ${where('ENABLE_TRACE')}, ${trace.file} traces ${trace.nodes.length} nodes (${ports.length} ports): capture them with --pcap DIR --pcap-ports listing their ports (default: every host port)`,
    );
  }
  const ignored = ['TRACE_OUTPUT_FILE', 'FCT_OUTPUT_FILE', 'PFC_OUTPUT_FILE', 'QLEN_MON_FILE', 'QLEN_MON_START', 'QLEN_MON_END'].filter((k) => entry(k) !== undefined);
  if (ignored.length > 0) header.push(` Output files (ignored: rocelab run --trace DIR writes fct.csv, pfc.csv and queue.csv): ${ignored.map(where).join('; ')}`);
  const unused = ['DATA_RATE', 'LINK_DELAY', 'PAUSE_TIME', ...(ccMode === 10 ? [] : ['PINT_LOG_BASE', 'PINT_PROB'])].filter((k) => entry(k) !== undefined);
  if (unused.length > 0) header.push(` Read but without effect in the simulator (third.cc never uses DATA_RATE or LINK_DELAY, pauses hold until resumed whatever PAUSE_TIME, PINT only in CC_MODE 10): ${unused.map(where).join('; ')}`);
  const unusedCc = [
    ...(cc !== 'dcqcn' ? ['ALPHA_RESUME_INTERVAL', 'RATE_DECREASE_INTERVAL', 'RP_TIMER', 'FAST_RECOVERY_TIMES', 'CLAMP_TARGET_RATE', 'MIN_RATE'] : []),
    ...(cc !== 'dcqcn' && cc !== 'dctcp' ? ['EWMA_GAIN'] : []),
    ...(cc !== 'dcqcn' && cc !== 'timely' ? ['RATE_HAI'] : []),
    ...(cc === 'dctcp' ? ['RATE_AI'] : []),
    ...(cc !== 'dctcp' ? ['DCTCP_RATE_AI'] : []),
    ...(cc !== 'hpcc' ? ['U_TARGET', 'MI_THRESH', 'FAST_REACT', 'MULTI_RATE', 'SAMPLE_FEEDBACK', 'INT_MULTI'] : []),
  ].filter((k) => entry(k) !== undefined);
  if (unusedCc.length > 0) header.push(` Parameters of other CC_MODEs (not written): ${unusedCc.join(', ')}`);
  for (const w of warnings) header.push(` WARNING ${w.file}${w.line > 0 ? `:${w.line}` : ''}: ${w.message}`);

  const pod: Record<string, unknown> = {
    name: input.name,
    seed: 1,
    profile: 'hpcc-ns3',
    defaults: { link: defaultsLink, switch: sw, nic },
    nodes,
    links,
    ...(workloads.length > 0 ? { workloads } : {}),
    ...(faults.length > 0 ? { faults } : {}),
  };
  note(['profile'], 'the simulator\'s switch MMU, PFC, ECN placement, NIC ACK and NAK behaviour (PHYSICS §7)');
  return { pod, yaml: render(pod, header, notes), warnings };
}

/** The pod as YAML: block style, one line per node, link and flow, with the notes as comments before their keys. */
function render(pod: Record<string, unknown>, header: string[], notes: ReadonlyArray<{ path: Path; text: string }>): string {
  const doc = new Document(pod);
  doc.commentBefore = header.join('\n');
  for (const key of ['nodes', 'links', 'workloads', 'faults']) {
    const seq = doc.get(key, true);
    if (isSeq(seq)) for (const item of seq.items) if (isMap(item)) item.flow = true;
  }
  for (const { path, text } of notes) {
    const parent = doc.getIn(path.slice(0, -1), true) as YamlNode | undefined;
    const last = path.at(-1)!;
    const comment = ` ${text}`;
    if (isSeq(parent) && typeof last === 'number') {
      const item = parent.items[last] as YamlNode | undefined;
      if (item !== undefined) item.commentBefore = item.commentBefore ? `${item.commentBefore}\n${comment}` : comment;
    } else if (isMap(parent)) {
      const pair = parent.items.find((p: Pair) => (isScalar(p.key) ? p.key.value : p.key) === last);
      if (pair === undefined) continue;
      if (!isScalar(pair.key)) pair.key = doc.createNode(pair.key);
      const k = pair.key as YamlNode;
      k.commentBefore = k.commentBefore ? `${k.commentBefore}\n${comment}` : comment;
    } else if (path.length === 1) {
      const pair = doc.contents && isMap(doc.contents) ? doc.contents.items.find((p: Pair) => (isScalar(p.key) ? p.key.value : p.key) === last) : undefined;
      if (pair === undefined) continue;
      if (!isScalar(pair.key)) pair.key = doc.createNode(pair.key);
      (pair.key as YamlNode).commentBefore = comment;
    }
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
