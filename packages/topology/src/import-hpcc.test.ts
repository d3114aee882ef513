import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseHpccFlows, parseHpccTopology, parseHpccTrace } from './import-hpcc-files.js';
import { HPCC_CONFIG_KEYS, ImportError, hpccInputNames, parseHpccConfig, parseNs3Rate, parseNs3Time } from './import-hpcc.js';
import { hpccToPod, type HpccImport } from './import-hpcc-pod.js';
import { durationText, hpccHostIp, rateText } from './import-hpcc-graph.js';
import { topologyFromData } from './load.js';
import { fixture } from './testing.js';
import { switchSettingsOf } from './switch-extension.js';
import { planSwitch } from '@rocelab/switch';

const text = (name: string): string => readFileSync(fixture(`hpcc-ns3/${name}`), 'utf8');
const CONFIG = text('config.txt');
const TOPOLOGY = text('topology.txt');
const FLOW = text('flow.txt');
const TRACE = text('trace.txt');

/** config.txt with keys replaced (a string: the new value) or removed (null); new keys are appended. */
function edit(changes: Record<string, string | null>): string {
  const lines = CONFIG.split('\n').flatMap((line) => {
    const key = line.split(/\s+/)[0]!;
    if (!(key in changes)) return [line];
    return changes[key] === null ? [] : [`${key} ${changes[key]}`];
  });
  for (const [key, value] of Object.entries(changes)) if (value !== null && !CONFIG.split('\n').some((l) => l.split(/\s+/)[0] === key)) lines.push(`${key} ${value}`);
  return lines.join('\n');
}

function importOf(o: { config?: string; topology?: string; flow?: string; trace?: string } = {}): HpccImport {
  const config = parseHpccConfig(o.config ?? CONFIG, 'config.txt');
  const topology = parseHpccTopology(o.topology ?? TOPOLOGY, 'topology.txt');
  const flows = parseHpccFlows(o.flow ?? FLOW, 'flow.txt', topology);
  const trace = parseHpccTrace(o.trace ?? TRACE, 'trace.txt', topology);
  return hpccToPod({ config, topology, flows, trace, name: 'mix', resolvedFrom: 'found in a test' });
}


function refused(fn: () => unknown, match: { file?: string; line?: number; key: string; value?: string; expected: RegExp }): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ImportError, String(err));
    assert.equal(err.key, match.key);
    if (match.file !== undefined) assert.equal(err.file, match.file);
    if (match.line !== undefined) assert.equal(err.line, match.line);
    if (match.value !== undefined) assert.equal(err.value, match.value);
    assert.match(err.expected, match.expected);
    assert.ok(err.message.includes(match.key));
    return true;
  });
}

test('ns-3 rates and times read as ns-3 reads them', () => {
  assert.equal(parseNs3Rate('50Mb/s'), 50e6);
  assert.equal(parseNs3Rate('100Gbps'), 100e9);
  assert.equal(parseNs3Rate('2.5Gbps'), 2.5e9);
  assert.equal(parseNs3Rate('1KBps'), 8000);
  assert.equal(parseNs3Rate('1000'), 1000);
  assert.equal(parseNs3Rate('fast'), null);
  assert.equal(parseNs3Time('0.001ms'), 1_000_000);
  assert.equal(parseNs3Time('1000ns'), 1_000_000);
  assert.equal(parseNs3Time('2'), 2e12);
  assert.equal(parseNs3Time('1.5us'), 1_500_000);
  assert.equal(parseNs3Time('soon'), null);
  assert.equal(rateText(100e9), '100G');
  assert.equal(rateText(50e6), '50M');
  assert.equal(rateText(1234), 1234);
  assert.equal(durationText(2e12), '2s');
  assert.equal(durationText(2_000_001_000_000), '2000001us');
  assert.equal(durationText(1500), '1500ps');
});

test('config.txt: every key of the example with its value and line', () => {
  const c = parseHpccConfig(CONFIG, 'config.txt');
  const v = (k: string) => c.entries.get(k)?.value;
  assert.deepEqual(c.warnings, []);
  assert.equal(v('ENABLE_QCN'), true);
  assert.equal(v('PACKET_PAYLOAD_SIZE'), 1000);
  assert.equal(v('TOPOLOGY_FILE'), 'mix/topology.txt');
  assert.equal(v('SIMULATOR_STOP_TIME'), 4);
  assert.equal(v('CC_MODE'), 3);
  assert.equal(v('RP_TIMER'), 900);
  assert.equal(v('EWMA_GAIN'), 0.00390625);
  assert.equal(v('RATE_AI'), 50e6);
  assert.equal(v('MIN_RATE'), 100e6);
  assert.equal(v('L2_BACK_TO_ZERO'), false);
  assert.equal(v('U_TARGET'), 0.95);
  assert.deepEqual(v('LINK_DOWN'), { atUs: 0, a: 0, b: 0 });
  assert.deepEqual([...(v('KMIN_MAP') as Map<number, number>)], [[25e9, 100], [50e9, 200], [100e9, 400]]);
  assert.deepEqual([...(v('PMAX_MAP') as Map<number, number>)], [[25e9, 0.2], [50e9, 0.2], [100e9, 0.2]]);
  assert.equal(c.entries.get('CC_MODE')!.line, 15);
  assert.equal(c.entries.get('BUFFER_SIZE')!.line, 55);
  assert.equal(c.entries.get('KMAX_MAP')!.text, '3 25000000000 400 50000000000 800 100000000000 1600');
  assert.equal(c.entries.size, 47);
  assert.deepEqual(hpccInputNames(c), { topology: { path: 'mix/topology.txt', line: 6 }, flow: { path: 'mix/flow.txt', line: 7 }, trace: { path: 'mix/trace.txt', line: 8 } });
});

test('config.txt: every key third.cc reads parses in its shape', () => {
  const samples: Record<string, [string, unknown]> = {
    flag: ['1', true],
    uint: ['42', 42],
    double: ['0.5', 0.5],
    string: ['mix/x.txt', 'mix/x.txt'],
    rate: ['25Gb/s', 25e9],
    linkDown: ['7 1 2', { atUs: 7, a: 1, b: 2 }],
    uintMap: ['1 25000000000 100', new Map([[25e9, 100]])],
    doubleMap: ['1 25000000000 0.2', new Map([[25e9, 0.2]])],
  };
  // The 50 keys of third.cc main's else-if chain.
  assert.equal(Object.keys(HPCC_CONFIG_KEYS).length, 50);
  for (const [key, shape] of Object.entries(HPCC_CONFIG_KEYS)) {
    const [value, expected] = samples[shape]!;
    const c = parseHpccConfig(`\n${key} ${value}\n`, 'c.txt');
    assert.deepEqual(c.entries.get(key), { line: 2, text: value, value: expected }, key);
  }
});

test('empty and truncated files are refused naming what is missing', () => {
  refused(() => hpccInputNames(parseHpccConfig('', 'c.txt')), { key: 'TOPOLOGY_FILE', expected: /naming a file/ });
  refused(() => parseHpccTopology('', 't.txt'), { file: 't.txt', key: 'node count', expected: /NODES SWITCHES LINKS .*the file ends/ });
  refused(() => parseHpccTopology('0 0 0\n', 't.txt'), { key: 'node count', expected: /at least one node/ });
  const t = parseHpccTopology(TOPOLOGY, 'topology.txt');
  refused(() => parseHpccFlows('', 'f.txt', t), { key: 'flow count', expected: /the file ends/ });
  refused(() => parseHpccTrace('two\n', 'tr.txt', t), { line: 1, key: 'trace count', value: 'two', expected: /number of traced nodes/ });
});

test('config.txt: an unknown key is a warning with its line, its value skipped with it', () => {
  const c = parseHpccConfig('CC_MODE 1\nMY_KNOB 7 8\nRP_TIMER 300\n', 'c.txt');
  assert.deepEqual(c.warnings, [{ file: 'c.txt', line: 2, message: 'unknown key MY_KNOB (with 7 8): HPCC third.cc ignores it, and so does the import' }]);
  assert.equal(c.entries.get('RP_TIMER')!.value, 300);
});

test('config.txt: values that do not read are refused with file, line, key and expectation', () => {
  refused(() => parseHpccConfig('CC_MODE 1\nENABLE_QCN yes\n', 'c.txt'), { file: 'c.txt', line: 2, key: 'ENABLE_QCN', value: 'yes', expected: /0 or 1/ });
  refused(() => parseHpccConfig('RATE_AI fifty\n', 'c.txt'), { line: 1, key: 'RATE_AI', value: 'fifty', expected: /data rate/ });
  refused(() => parseHpccConfig('U_TARGET high\n', 'c.txt'), { line: 1, key: 'U_TARGET', expected: /a number/ });
  refused(() => parseHpccConfig('KMIN_MAP 2 25000000000 100\n', 'c.txt'), { line: 1, key: 'KMIN_MAP', expected: /the file ends/ });
  refused(() => parseHpccConfig('LINK_DOWN 5 1\n', 'c.txt'), { key: 'LINK_DOWN', expected: /TIME_US NODE_A NODE_B/ });
  refused(() => hpccInputNames(parseHpccConfig('FLOW_FILE f\nTRACE_FILE t\n', 'c.txt')), { line: 0, key: 'TOPOLOGY_FILE', expected: /naming a file/ });
  assert.equal(new ImportError('c.txt', 0, 'TOPOLOGY_FILE', '(unset)', 'x').message, 'c.txt: TOPOLOGY_FILE (unset): expected x');
});

test('topology file: nodes, switches, links with their ifIndex; bad files refused at their line', () => {
  const t = parseHpccTopology(TOPOLOGY, 'topology.txt');
  assert.equal(t.nodeCount, 66);
  assert.deepEqual([...t.switches], [0]);
  assert.equal(t.links.length, 65);
  assert.deepEqual(t.links[0], { line: 3, a: 0, b: 1, rateBps: 100e9, delayPs: 1_000_000, errorRate: 0, ifA: 1, ifB: 1 });
  assert.deepEqual([t.links[64]!.ifA, t.links[64]!.ifB], [65, 1]);
  refused(() => parseHpccTopology('3 1 1\n5\n0 1 100Gbps 1us 0\n', 'x.txt'), { line: 2, key: 'switch id', value: '5', expected: /below the node count 3/ });
  refused(() => parseHpccTopology('3 1 2\n0\n0 1 100Gbps 1us 0\n1 0 100Gbps 1us 0\n', 'x.txt'), { line: 4, key: 'link', expected: /one link per node pair \(line 3/ });
  refused(() => parseHpccTopology('3 1 1\n0\n0 1 fast 1us 0\n', 'x.txt'), { line: 3, key: 'link rate', value: 'fast', expected: /data rate/ });
  refused(() => parseHpccTopology('3 1 1\n0\n0 0 1Gbps 1us 0\n', 'x.txt'), { line: 3, key: 'link', expected: /two different nodes/ });
  refused(() => parseHpccTopology('3 1 1\n0\n0 7 1Gbps 1us 0\n', 'x.txt'), { line: 3, key: 'link end', value: '7', expected: /below the node count 3/ });
  refused(() => parseHpccTopology('3 1 2\n0\n0 1 1Gbps 1us 0\n', 'x.txt'), { key: 'link', expected: /2 links .*the file ends/ });
  refused(() => parseHpccTopology('3 1 1\n0\n0 1 1Gbps 1us 2\n', 'x.txt'), { line: 3, key: 'link error rate', value: '2', expected: /0\.\.1/ });
});

test('flow file: ports counted per pair from 10000; the count, order and host rules refused at their line', () => {
  const t = parseHpccTopology(TOPOLOGY, 'topology.txt');
  const f = parseHpccFlows(FLOW, 'flow.txt', t);
  assert.equal(f.flows.length, 2);
  assert.deepEqual(f.flows[0], { line: 2, src: 2, dst: 1, pg: 3, dport: 100, sizeBytes: 200_000_000, startPs: 2e12, sport: 10000 });
  assert.deepEqual(f.warnings.map((w) => w.line), [4]);
  const ports = parseHpccFlows('4\n2 1 3 100 10 2\n2 1 3 200 10 2\n3 1 3 100 10 2.000001\n2 1 3 100 10 2.000001\n', 'f.txt', t).flows.map((x) => [x.sport, x.dport, x.startPs]);
  assert.deepEqual(ports, [[10000, 100, 2e12], [10001, 200, 2e12], [10000, 100, 2_000_001_000_000], [10002, 100, 2_000_001_000_000]]);
  refused(() => parseHpccFlows('2\n2 1 3 100 10 2\n3 1 3 100 10 1\n', 'f.txt', t), { file: 'f.txt', line: 3, key: 'start', value: '1', expected: /no earlier than the flow before it \(line 2/ });
  refused(() => parseHpccFlows('1\n0 1 3 100 10 2\n', 'f.txt', t), { line: 2, key: 'src', value: '0', expected: /a host \(node 0 is a switch/ });
  refused(() => parseHpccFlows('1\n1 99 3 100 10 2\n', 'f.txt', t), { line: 2, key: 'dst', value: '99', expected: /below the node count 66/ });
  refused(() => parseHpccFlows('3\n2 1 3 100 10 2\n', 'f.txt', t), { key: 'flow', expected: /3 flows .*the file ends/ });
  refused(() => parseHpccFlows('1\n2 2 3 100 10 2\n', 'f.txt', t), { line: 2, key: 'dst', expected: /other than the source/ });
  refused(() => parseHpccFlows('1\n2 1 3 70000 10 2\n', 'f.txt', t), { line: 2, key: 'dport', expected: /UDP port/ });
  refused(() => parseHpccFlows('1\n2 1 3 100 10 soon\n', 'f.txt', t), { line: 2, key: 'start', expected: /seconds/ });
});

test('trace file: ids past the topology are skipped with one warning', () => {
  const t = parseHpccTopology(TOPOLOGY, 'topology.txt');
  const tr = parseHpccTrace(TRACE, 'trace.txt', t);
  assert.equal(tr.nodes.length, 66);
  assert.equal(tr.warnings.length, 1);
  assert.match(tr.warnings[0]!.message, /282 node id\(s\) at or past the node count 66/);
});

test('the example imports: ids, addresses, roles, links, settings, flows; the pod loads', () => {
  const { pod, yaml, warnings } = importOf();
  const p = pod as { nodes: Array<Record<string, unknown>>; links: Array<Record<string, unknown>>; defaults: Record<string, Record<string, unknown>>; workloads: Array<Record<string, unknown>> };
  assert.deepEqual(p.nodes[0], { name: 'n00', role: 'tor' });
  assert.deepEqual(p.nodes[1], { name: 'n01', role: 'host', ip: '11.0.1.1' });
  assert.equal(hpccHostIp(256), '11.1.0.1');
  assert.equal(hpccHostIp(300), '11.1.44.1');
  assert.deepEqual(p.links[0], { a: 'n00:p01', b: 'n01:p1', rate: '100G', latency: '1us' });
  assert.deepEqual(p.links[64], { a: 'n00:p65', b: 'n65:p1', rate: '100G', latency: '1us' });
  assert.equal(pod.profile, 'hpcc-ns3');
  assert.deepEqual(p.defaults.link, { mtu: 1000 });
  assert.deepEqual(p.defaults.switch, { bufferBytes: '32MiB', ecmpHash: 'hpcc-ns3', ecmpOrder: 'hpcc-bfs', ecn: { enabled: true, kmin: '400KB', kmax: '1600KB', pmax: 0.2 } });
  assert.deepEqual(p.defaults.nic, {
    cc: 'hpcc',
    hpcc: { eta: 0.95, maxStage: 0, wai: '50M', fastReact: true, multiRate: false, sampleFeedback: false },
    window: { enabled: true, bytes: 'auto', varWin: true },
    ackEvery: 1,
    recovery: 'goBackN',
  });
  assert.deepEqual(p.workloads[1], { kind: 'flow', from: 'n03', to: 'n01', sizeBytes: 200_000_000, start: '2s', dscp: 26, udpPorts: { src: 10000, dst: 100 } });
  assert.equal(pod.faults, undefined);
  assert.equal(warnings.length, 2);
  // The YAML is the object, with comments naming the source of each setting.
  assert.deepEqual(parse(yaml), pod);
  assert.match(yaml, /^# Imported by rocelab import hpcc-ns3 from config\.txt/);
  assert.match(yaml, /# CC_MODE 3, config\.txt:15/);
  assert.match(yaml, /--duration 4s/);
  assert.match(yaml, /  - \{name: n01, role: host, ip: 11\.0\.1\.1\}/);
  const spec = topologyFromData(pod, 'mix.yaml');
  assert.equal(spec.nodes.length, 66);
  assert.equal(spec.nodes[1]!.name, 'n01');
  assert.equal(spec.workloads.length, 2);
});

test('CC_MODE maps to cc and its parameters; DCQCN takes its keys in µs', () => {
  const nic = (changes: Record<string, string | null>) => (importOf({ config: edit(changes) }).pod.defaults as Record<string, Record<string, unknown>>).nic!;
  const dcqcn = nic({ CC_MODE: '1' });
  assert.equal(dcqcn.cc, 'dcqcn');
  assert.deepEqual(dcqcn.dcqcn, { alphaPeriod: '1us', rateDecreasePeriod: '4us', rateIncreaseTimer: '900us', g: 0.00390625, fastRecoverySteps: 1, aiRate: '50M', haiRate: '100M', minRate: '100M', clampTargetRate: false });
  assert.deepEqual(nic({ CC_MODE: '8' }).dctcp, { g: 0.00390625, ai: '1G', minRate: '100M' });
  assert.deepEqual(nic({ CC_MODE: '7' }).timely, { ai: '50M', hai: '100M', minRate: '100M' });
  assert.deepEqual(nic({ HAS_WIN: '0' }).window, { enabled: false });
  const back0 = importOf({ config: edit({ L2_BACK_TO_ZERO: '1' }) }).pod as { defaults: { nic: Record<string, unknown> }; workloads: Array<Record<string, unknown>> };
  assert.equal(back0.defaults.nic.recovery, 'goBack0');
  assert.equal(back0.workloads[0]!.messageBytes, 4000);
  assert.equal(nic({ L2_ACK_INTERVAL: '4000' }).ackEvery, 4);
  // The DCQCN pod loads as it is (no key of another helper in it but cc and window).
  topologyFromData(importOf({ config: edit({ CC_MODE: "1" }) }).pod);
});

test('error rates, LINK_DOWN and per-switch settings', () => {
  const lossy = importOf({ config: edit({ ERROR_RATE_PER_LINK: '0.001' }), topology: TOPOLOGY.replace('0 2 100Gbps 0.001ms 0', '0 2 100Gbps 0.001ms 0.01') }).pod as { defaults: { link: Record<string, unknown> }; links: Array<Record<string, unknown>> };
  assert.deepEqual(lossy.defaults.link.impairments, { loss: 0.001 });
  assert.deepEqual(lossy.links[1]!.impairments, { a_to_b: { loss: 0.01 }, b_to_a: { loss: 0.01 } });
  topologyFromData(lossy as unknown as Record<string, unknown>);
  const down = importOf({ config: edit({ LINK_DOWN: '50 0 2' }) }).pod;
  assert.deepEqual(down.faults, [{ at: '2000050us', kind: 'linkDown', link: 'n00:p02' }]);
  topologyFromData(down);
  const off = importOf({ config: edit({ ENABLE_QCN: '0', BUFFER_SIZE: '12' }) }).pod as { defaults: { switch: Record<string, unknown> } };
  assert.deepEqual(off.defaults.switch.ecn, { enabled: false, kmin: '400KB', kmax: '1600KB', pmax: 0.2 });
  assert.equal(off.defaults.switch.bufferBytes, '12MiB');
  const faster = importOf({ topology: TOPOLOGY.replace('0 1 100Gbps', '0 1 50Gbps') }).pod as { nodes: Array<Record<string, unknown>>; defaults: { switch: Record<string, unknown> } };
  // The first host's link sets the NIC rate (third.cc get_nic_rate): 50G, so the switch's 100G ports get pfc_a_shift 2.
  assert.deepEqual(faster.defaults.switch.alphaByRate, [{ rate: '100G', alpha: 0.25 }]);
  assert.deepEqual(faster.nodes[0], { name: 'n00', role: 'tor' });
  const w = importOf({ config: edit({ ACK_HIGH_PRIO: '1', USE_DYNAMIC_PFC_THRESHOLD: '0', MY_KNOB: '3' }) });
  assert.deepEqual(w.warnings.map((x) => x.message.split(':')[0]).sort(), ['282 node id(s) at or past the node count 66 of topology.txt', 'USE_DYNAMIC_PFC_THRESHOLD', 'the file goes on after the 2 flows its first line counts', 'unknown key MY_KNOB (with 3)'].sort());
  // ACK_HIGH_PRIO 1 is modelled, not approximated: the NIC's ACKs ignore PAUSE (PHYSICS §1.6).
  assert.equal((w.pod as { defaults: { nic: Record<string, unknown> } }).defaults.nic.ackIgnoresPause, true);
  assert.equal((importOf({}).pod as { defaults: { nic: Record<string, unknown> } }).defaults.nic.ackIgnoresPause, undefined, 'ACK_HIGH_PRIO 0 (mix/config.txt): the default');
  assert.doesNotMatch(w.yaml, /APPROXIMATION \(ACK_HIGH_PRIO/);
});

test('fat.txt: a Clos of ToRs, leaves and spines; each switch port takes the ECN and α of its rate', () => {
  const maps = { KMAX_MAP: '4 25000000000 400 50000000000 800 100000000000 1600 400000000000 6400', KMIN_MAP: '4 25000000000 100 50000000000 200 100000000000 400 400000000000 1600', PMAX_MAP: '4 25000000000 0.2 50000000000 0.2 100000000000 0.2 400000000000 0.2' };
  const { pod, warnings } = importOf({ config: edit(maps), topology: text('fat.txt'), flow: '1\n0 100 3 100 1000 2\n', trace: '1\n320\n' });
  const p = pod as { nodes: Array<Record<string, unknown>>; defaults: { switch: Record<string, unknown> } };
  const count = (role: string) => p.nodes.filter((n) => n.role === role).length;
  assert.deepEqual([count('host'), count('tor'), count('leaf'), count('spine')], [320, 20, 20, 16]);
  assert.equal(p.nodes[7]!.name, 'n007');
  // ToRs have 16 host ports at 100G and 4 uplinks at 400G: ECN by rate, the same map for every switch (third.cc main).
  assert.deepEqual(p.defaults.switch.ecn, {
    enabled: true,
    byRate: [
      { rate: '100G', kmin: '400KB', kmax: '1600KB', pmax: 0.2 },
      { rate: '400G', kmin: '1600KB', kmax: '6400KB', pmax: 0.2 },
    ],
  });
  // 400G ports above the 100G NIC rate: pfc_a_shift 3 − 2 = 1, α = 1/2 (third.cc main); 100G ports keep 3.
  assert.deepEqual(p.defaults.switch.alphaByRate, [{ rate: '400G', alpha: 0.5 }]);
  assert.deepEqual(p.nodes[320], { name: 'n320', role: 'tor' });
  assert.deepEqual(p.nodes[340], { name: 'n340', role: 'leaf' });
  assert.deepEqual(warnings.filter((w) => /^(KMIN_MAP|BUFFER_SIZE)/.test(w.message)), [], 'nothing approximated');
  const yaml = importOf({ config: edit(maps), topology: text('fat.txt'), flow: '0\n', trace: '1\n320\n' }).yaml;
  assert.match(yaml, /--pcap-ports n320:p01,n320:p02,.*n320:p20\n/);
  assert.equal(topologyFromData(pod).nodes.length, 376);
});

test('a mixed-rate Clos (hosts at 25G, fabric at 50G): the exact ECN and α maps are written, and each port of the loaded pod takes its rate’s', () => {
  const { pod, yaml, warnings } = importOf({ topology: text('clos26/topology.txt'), flow: '1\n0 12 3 100 1000 2\n', trace: '1\n16\n' });
  const p = pod as { nodes: Array<Record<string, unknown>>; defaults: { switch: Record<string, unknown> } };
  // config.txt's KMIN_MAP/KMAX_MAP/PMAX_MAP entries for the two rates the switch ports run at (third.cc main: ConfigEcn per port).
  assert.deepEqual(p.defaults.switch.ecn, {
    enabled: true,
    byRate: [
      { rate: '25G', kmin: '100KB', kmax: '400KB', pmax: 0.2 },
      { rate: '50G', kmin: '200KB', kmax: '800KB', pmax: 0.2 },
    ],
  });
  // The NIC rate is 25G (host 0's link, third.cc get_nic_rate): 50G ports get pfc_a_shift 2, 25G ports keep 3.
  assert.deepEqual(p.defaults.switch.alphaByRate, [{ rate: '50G', alpha: 0.25 }]);
  assert.ok(p.nodes.every((n) => n.switch === undefined), 'no switch of its own settings');
  assert.deepEqual(warnings.filter((w) => /^(KMIN_MAP|BUFFER_SIZE)/.test(w.message)), [], 'nothing approximated');
  assert.match(yaml, /each egress port takes its link rate's \(third\.cc main: ConfigEcn/);
  assert.match(yaml, /pfc_a_shift .*third\.cc main, get_nic_rate; switch-mmu\.cc GetPfcThreshold/);
  // The pod loads; ToR n16 (ports to hosts 0–3 at 25G, to leaves 20 and 21 at 50G) resolves per port.
  const spec = topologyFromData(pod, 'mixed.yaml');
  const tor = spec.nodes.find((n) => n.name === 'n16')!;
  const plan = planSwitch(switchSettingsOf(spec, tor), tor.ports, [])!;
  const at = (rate: number) => tor.ports.map((port, i) => [port.out.rateBps, i] as const).filter(([r]) => r === rate).map(([, i]) => i);
  assert.deepEqual([at(25e9).length, at(50e9).length], [4, 2]);
  for (const i of at(25e9)) assert.deepEqual([plan.ecnByPort![i], plan.mmu.alphaByPort![i]], [{ kminBytes: 100_000, kmaxBytes: 400_000, pmax: 0.2 }, 0.125]);
  for (const i of at(50e9)) assert.deepEqual([plan.ecnByPort![i], plan.mmu.alphaByPort![i]], [{ kminBytes: 200_000, kmaxBytes: 800_000, pmax: 0.2 }, 0.25]);
});

test('what rocelab cannot honour is refused with the key, its line and value, and what was expected', () => {
  refused(() => importOf({ config: edit({ CC_MODE: '10' }) }), { file: 'config.txt', line: 15, key: 'CC_MODE', value: '10', expected: /no HPCC-PINT/ });
  refused(() => importOf({ config: edit({ CC_MODE: '2' }) }), { line: 15, key: 'CC_MODE', value: '2', expected: /1 \(DCQCN\), 3 \(HPCC\), 7 \(TIMELY\) or 8 \(DCTCP\)/ });
  refused(() => importOf({ config: edit({ RATE_BOUND: '0' }) }), { line: 44, key: 'RATE_BOUND', expected: /always paces/ });
  refused(() => importOf({ config: edit({ GLOBAL_T: '0' }) }), { line: 33, key: 'GLOBAL_T', expected: /largest BDP/ });
  refused(() => importOf({ config: edit({ L2_ACK_INTERVAL: '0' }) }), { line: 29, key: 'L2_ACK_INTERVAL', expected: /≥ 1/ });
  refused(() => importOf({ config: edit({ L2_BACK_TO_ZERO: '1', L2_CHUNK_SIZE: '0' }) }), { key: 'L2_CHUNK_SIZE', expected: /chunk size/ });
  refused(() => importOf({ config: edit({ PACKET_PAYLOAD_SIZE: '9500' }) }), { line: 4, key: 'PACKET_PAYLOAD_SIZE', expected: /256\.\.9000/ });
  refused(() => importOf({ config: edit({ LINK_DOWN: '50 1 2' }) }), { line: 48, key: 'LINK_DOWN', value: '50 1 2', expected: /no link between 1 and 2/ });
  refused(() => importOf({ config: edit({ KMIN_MAP: '1 25000000000 100' }) }), { line: 53, key: 'KMIN_MAP', expected: /100000000000 b\/s \(switch 0, topology\.txt:3\) is missing/ });
  refused(() => importOf({ config: edit({ CC_MODE: '1', RP_TIMER: null }) }), { line: 0, key: 'RP_TIMER', value: '(unset)', expected: /rp_timer unset/ });
  refused(() => importOf({ flow: '1\n2 1 2 100 10 2\n' }), { file: 'flow.txt', line: 2, key: 'pg', value: '2', expected: /priority group 3/ });
  refused(() => importOf({ topology: '3 1 3\n0\n0 1 1Gbps 1us 0\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n', flow: '0\n', trace: '0\n' }), { file: 'topology.txt', line: 5, key: 'host 1', value: '2 links', expected: /exactly one link/ });
});
