/**
 * `rocelab import hpcc-ns3`, part two: the HPCC ns-3 model (`import-hpcc.ts`) → a rocelab pod,
 * as an object and as commented YAML. Every rule carried over cites the simulator's code; a
 * value rocelab cannot honour is an ImportError, an approximation is written with a comment
 * saying so and listed as a warning (docs/hpcc-ns3-import.md).
 *
 * Node ids stay the simulator's: node k is named `n` + k zero-padded to the width of the
 * largest id, so that rocelab's node index (the position of the name in sorted order) is k.
 */
import { durationText, hpccHostIp, rateText, roles } from './import-hpcc-graph.js';
import { renderImportedPod } from './import-hpcc-yaml.js';
import { hpccNic } from './import-hpcc-nic.js';
import { ConfigReader } from './import-hpcc-reader.js';
import { hpccSwitches } from './import-hpcc-switch.js';
import type { HpccFlows, HpccTopology, HpccTrace } from './import-hpcc-files.js';
import { ImportError, type HpccConfig, type ImportWarning } from './import-hpcc.js';

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

export function hpccToPod(input: HpccImportInput): HpccImport {
  const { config, topology: topo, flows, trace } = input;
  const warnings: ImportWarning[] = [...config.warnings, ...flows.warnings, ...trace.warnings];
  const r = new ConfigReader(config, warnings);
  const header: string[] = [];
  const cfg = config.file;

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
  const globalError = r.get<number>('ERROR_RATE_PER_LINK', 0);
  if (globalError < 0 || globalError > 1) r.refuse('ERROR_RATE_PER_LINK', 'a packet error rate 0..1');
  const links = topo.links.map((l) => {
    const link: Record<string, unknown> = { a: port(l.a, l.ifA), b: port(l.b, l.ifB), rate: rateText(l.rateBps), latency: durationText(l.delayPs) };
    // third.cc `main`: a link's own error rate when above 0, else ERROR_RATE_PER_LINK.
    if (l.errorRate > 0) link.impairments = { a_to_b: { loss: l.errorRate }, b_to_a: { loss: l.errorRate } };
    return link;
  });

  const { nic, cc, payload, chunkMessages } = hpccNic(r);
  const sw = hpccSwitches(r, topo, role);
  const hostIds = [...Array(topo.nodeCount).keys()].filter((id) => role[id] === 'host');

  const defaultsLink: Record<string, unknown> = { mtu: payload };
  if (globalError > 0) defaultsLink.impairments = { loss: globalError };
  r.note(['defaults', 'link', 'mtu'], `${r.where('PACKET_PAYLOAD_SIZE')}: the payload of one packet`);
  if (globalError > 0) r.note(['defaults', 'link', 'impairments'], `${r.where('ERROR_RATE_PER_LINK')}: APPROXIMATION: the simulator drops at that rate on receive (RateErrorModel, ERROR_UNIT_PACKET, stream 50); rocelab loses frames at that rate on each direction, from its own seeded stream`);

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
      ...(chunkMessages !== null ? { messageBytes: chunkMessages } : {}),
    };
  });
  if (workloads.length > 0) r.note(['workloads', 0], `from ${flows.file} (src dst pg dport size start): pg ${DATA_PRIORITY} → DSCP ${DATA_DSCP}; udpPorts.src counts from 10000 per (src, dst) in file order (third.cc ScheduleFlowInputs), dst is the flow's dport`);

  // --- faults --------------------------------------------------------------------------------
  const faults: Array<Record<string, unknown>> = [];
  const down = r.get<{ atUs: number; a: number; b: number } | null>('LINK_DOWN', null);
  if (down !== null && down.atUs > 0) {
    const l = topo.links.find((x) => (x.a === down.a && x.b === down.b) || (x.a === down.b && x.b === down.a));
    if (l === undefined) r.refuse('LINK_DOWN', `two linked node ids (${topo.file} has no link between ${down.a} and ${down.b})`);
    const atPs = 2e12 + down.atUs * 1e6;
    const link = l!.a === down.a ? port(l!.a, l!.ifA) : port(l!.b, l!.ifB);
    faults.push({ at: durationText(atPs), kind: 'linkDown', link });
    r.note(['faults', 0], `${r.where('LINK_DOWN')}: at 2 s + ${down.atUs} µs (third.cc schedules TakeDownLink at Seconds(2) + MicroSeconds(t)); the simulator then recomputes its routes (CalculateRoutes) and moves QPs off the port (RedistributeQp)`);
  }

  // --- header --------------------------------------------------------------------------------
  const stop = r.get<number>('SIMULATOR_STOP_TIME', 3.01);
  const stopText = durationText(Math.round(stop * 1e9) * 1e3);
  header.push(
    ` Imported by rocelab import hpcc-ns3 from ${cfg} (HPCC ns-3, github.com/alibaba-edu/High-Precision-Congestion-Control)`,
    ` files: ${topo.file}, ${flows.file}, ${trace.file} (${input.resolvedFrom})`,
    ` ${topo.nodeCount} nodes (${hostIds.length} hosts, ${topo.switches.size} switches), ${topo.links.length} links, ${flows.flows.length} flows; node k is n + k in ${width} digits, host k's address 11.(k/256).(k%256).1 (third.cc node_id_to_ip)`,
    ` Run it as the simulator would (${r.where('SIMULATOR_STOP_TIME')}): rocelab run THIS_FILE --duration ${stopText}`,
  );
  if (r.get<number>('ENABLE_TRACE', 1) !== 0 && trace.nodes.length > 0) {
    const ports = trace.nodes.flatMap((id) => topo.links.filter((l) => l.a === id || l.b === id).map((l) => (l.a === id ? port(l.a, l.ifA) : port(l.b, l.ifB))));
    header.push(
      ports.length <= 64
        ? ` ${r.where('ENABLE_TRACE')}, ${trace.file} traces nodes ${trace.nodes.join(', ')}: capture them with --pcap DIR --pcap-ports ${ports.join(',')}`
        : ` ${r.where('ENABLE_TRACE')}, ${trace.file} traces ${trace.nodes.length} nodes (${ports.length} ports): capture them with --pcap DIR --pcap-ports listing their ports (default: every host port)`,
    );
  }
  const ignored = ['TRACE_OUTPUT_FILE', 'FCT_OUTPUT_FILE', 'PFC_OUTPUT_FILE', 'QLEN_MON_FILE', 'QLEN_MON_START', 'QLEN_MON_END'].filter((k) => r.entry(k) !== undefined);
  if (ignored.length > 0) header.push(` Output files (ignored: rocelab run --trace DIR writes fct.csv, pfc.csv and queue.csv): ${ignored.map((k) => r.where(k)).join('; ')}`);
  const unused = ['DATA_RATE', 'LINK_DELAY', 'PAUSE_TIME', 'PINT_LOG_BASE', 'PINT_PROB'].filter((k) => r.entry(k) !== undefined);
  if (unused.length > 0) header.push(` Read but without effect in the simulator (third.cc never uses DATA_RATE or LINK_DELAY, pauses hold until resumed whatever PAUSE_TIME, PINT only in CC_MODE 10, which is refused): ${unused.map((k) => r.where(k)).join('; ')}`);
  const unusedCc = [
    ...(cc !== 'dcqcn' ? ['ALPHA_RESUME_INTERVAL', 'RATE_DECREASE_INTERVAL', 'RP_TIMER', 'FAST_RECOVERY_TIMES', 'CLAMP_TARGET_RATE', 'MIN_RATE'] : []),
    ...(cc !== 'dcqcn' && cc !== 'dctcp' ? ['EWMA_GAIN'] : []),
    ...(cc !== 'dcqcn' && cc !== 'timely' ? ['RATE_HAI'] : []),
    ...(cc === 'dctcp' ? ['RATE_AI'] : []),
    ...(cc !== 'dctcp' ? ['DCTCP_RATE_AI'] : []),
    ...(cc !== 'hpcc' ? ['U_TARGET', 'MI_THRESH', 'FAST_REACT', 'MULTI_RATE', 'SAMPLE_FEEDBACK', 'INT_MULTI'] : []),
  ].filter((k) => r.entry(k) !== undefined);
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
  r.note(['profile'], 'the simulator\'s switch MMU, PFC, ECN placement, NIC ACK and NAK behaviour (PHYSICS §7)');
  return { pod, yaml: renderImportedPod(pod, header, r.notes), warnings };
}

