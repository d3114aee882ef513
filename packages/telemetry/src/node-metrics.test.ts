import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { DROP_REASONS, NodeStats } from '@rocelab/sim';
import { createNodeRegistry, type NodeMetricsSource, type SwitchMetricsSource } from './node-metrics.js';

const ID = { node: 'tor1', role: 'tor', version: '9.9.9-test' };
const PORTS = ['p1', 'p9'];
const PRIORITIES = ['0', '1', '2', '3', '4', '5', '6', '7'];

/** Metrics every node serves, by type (DESIGN §6 names). */
const COUNTERS = [
  'rocelab_transmitted_packets_total',
  'rocelab_transmitted_bytes_total',
  'rocelab_received_packets_total',
  'rocelab_received_bytes_total',
  'rocelab_dropped_packets_total',
  'rocelab_pfc_pause_frames_sent_total',
  'rocelab_pfc_pause_frames_received_total',
  'rocelab_pfc_paused_seconds_total',
  'rocelab_virtual_seconds_total',
  'rocelab_events_processed_total',
  'rocelab_causality_violations_total',
  'rocelab_sync_windows_total',
];
const GAUGES = ['rocelab_pfc_paused', 'rocelab_node_up', 'rocelab_build_info'];
/** Only switches serve these; all but the last two are per (port, priority). */
const QUEUE_DEPTH = 'rocelab_queue_depth_bytes';
const SWITCH_METRICS = [
  QUEUE_DEPTH,
  'rocelab_ingress_buffer_bytes',
  'rocelab_headroom_buffer_bytes',
  'rocelab_ecn_marked_packets_total',
  'rocelab_pfc_pausing_seconds_total',
  'rocelab_pfcwd_stormed',
  'rocelab_pfcwd_storms_detected_total',
  'rocelab_pfcwd_storms_restored_total',
  'rocelab_shared_buffer_used_bytes',
  'rocelab_flooded_packets_total',
  'rocelab_egress_stuck',
  'rocelab_egress_stuck_seconds_total',
  'rocelab_egress_slow_rate_bytes_per_second',
  'rocelab_switch_pause_storm',
  'rocelab_switch_pause_storm_seconds_total',
];
/** DESIGN §6: labels bounded to node, role, port, priority, reason (+ build_info's version). */
const ALLOWED_LABELS = new Set(['node', 'role', 'port', 'priority', 'reason', 'version']);

/** A metrics source over a real NodeStats whose other readings the test can change. */
class FakeSource implements NodeMetricsSource {
  readonly stats = new NodeStats(PORTS.length);
  readonly portNames = PORTS;
  virtualPs = 0;
  eventCount = 0;
  windowCount = 0;
  /** `${port}:${priority}` → seconds paused so far. */
  readonly pausedFor = new Map<string, number>();
  readonly pausedNow = new Set<string>();
  /** Bytes in queue 3 of each port. */
  readonly queues = [0, 0];
  readonly switch: SwitchMetricsSource = {
    queueDepthBytes: (port, priority) => (priority === 3 ? this.queues[port]! : 0),
    ingressBytes: () => 0,
    headroomBytes: () => 0,
    sharedUsedBytes: () => 0,
    ecnMarked: () => 0,
    pausingSeconds: () => 0,
    stormed: () => 0,
    stormsDetected: () => 0,
    stormsRestored: () => 0,
    floodCopies: () => 0,
    tagger: null,
    egressStuck: () => 0,
    egressStuckSeconds: () => 0,
    egressSlowBps: (port, priority) => (port === 1 && priority === 3 ? 10e9 : 0),
    pauseStorm: () => 0,
    pauseStormSeconds: () => 0,
  };

  virtualSeconds(): number {
    return this.virtualPs / 1e12;
  }
  pausedSeconds(port: number, priority: number): number {
    return this.pausedFor.get(`${port}:${priority}`) ?? 0;
  }
  paused(port: number, priority: number): boolean {
    return this.pausedNow.has(`${port}:${priority}`);
  }
  events(): number {
    return this.eventCount;
  }
  windows(): number {
    return this.windowCount;
  }
}

/** The same source without queues: what a host serves. */
function hostSource(): NodeMetricsSource {
  const { stats, portNames } = new FakeSource();
  return { stats, portNames, virtualSeconds: () => 0, pausedSeconds: () => 0, paused: () => false, events: () => 0, windows: () => 0 };
}

/** A host whose NIC exports everything it can: per-QP DCQCN state and the TCP stack's counters too. */
function fullHostSource(): NodeMetricsSource {
  const histogram = { bounds: [1e-6, 2e-6], cumulative: () => [1, 2, 3], sum: 4e-6, count: 3 };
  return {
    ...hostSource(),
    nic: {
      cnpsSent: () => 1,
      cnpsReceived: () => 2,
      retransmittedPackets: () => 3,
      naksSent: () => 4,
      naksReceived: () => 5,
      rtoExpirations: () => 6,
      goodputBytes: () => 7,
      receivedPayloadBytes: () => 8,
      stormEvents: () => 0,
      pausingSeconds: () => 0.5,
      messageCompletionSeconds: histogram,
      probeRttSeconds: histogram,
      qps: () => [{ qp: '2', rateBps: 40e9, targetBps: 40e9, alpha: 1 }],
      tcp: () => ({ segmentsSent: 10, retransmittedSegments: 1, fastRetransmits: 1, rtoExpirations: 0, cwndCuts: 2, outOfOrder: 3 }),
    },
  };
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  text: string;
  samples: Sample[];
  types: Map<string, string>;
  helps: Set<string>;
  /** The value of the one sample of `name` whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
}

/** Parses the Prometheus text format (0.0.4) as prom-client writes it. */
function parse(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') types.set(comment[2]!, comment[3]!);
      else helps.add(comment[2]!);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `unparseable sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return {
    text,
    samples,
    types,
    helps,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      assert.equal(found.length, 1, `exactly one sample of ${name}${JSON.stringify(labels)}, found ${found.length}`);
      return found[0]!.value;
    },
  };
}

async function scrape(source: NodeMetricsSource, registry = createNodeRegistry(ID, source)): Promise<Exposition> {
  return parse(await registry.metrics());
}

test('every node metric is served, each sample labelled with the node and role, labels within the bounded set', async () => {
  const source = new FakeSource();
  const got = await scrape(source);
  const expected = [...COUNTERS, ...GAUGES, ...SWITCH_METRICS].sort();
  assert.deepEqual([...new Set(got.samples.map((s) => s.name))].sort(), expected);
  assert.deepEqual([...got.types.keys()].sort(), expected, 'a TYPE line for each');
  assert.deepEqual([...got.helps].sort(), expected, 'a HELP line for each');
  for (const s of got.samples) {
    assert.equal(s.labels.node, 'tor1', `${s.name} carries node`);
    assert.equal(s.labels.role, 'tor', `${s.name} carries role`);
    for (const label of Object.keys(s.labels)) assert.ok(ALLOWED_LABELS.has(label), `${s.name} has unbounded label ${label}`);
  }
  // Series counts: per-port metrics 2 ports; per-priority 2 × 8 = 16; drops 2 × 12 reasons = 24.
  const count = (name: string) => got.samples.filter((s) => s.name === name).length;
  assert.equal(count('rocelab_transmitted_packets_total'), 2);
  assert.equal(count('rocelab_pfc_pause_frames_sent_total'), 16);
  assert.equal(count('rocelab_pfc_paused'), 16);
  assert.equal(count(QUEUE_DEPTH), 16);
  assert.equal(count('rocelab_flooded_packets_total'), 2);
  assert.equal(count('rocelab_egress_stuck'), 16);
  assert.equal(got.value('rocelab_egress_slow_rate_bytes_per_second', { port: 'p9', priority: '3' }), 1.25e9, 'a 10 Gb/s drain, in bytes per second');
  assert.equal(count('rocelab_shared_buffer_used_bytes'), 1);
  assert.equal(count('rocelab_virtual_seconds_total'), 1);
  assert.equal(got.value('rocelab_node_up'), 1);
  assert.equal(got.value('rocelab_build_info', { version: '9.9.9-test' }), 1);
});

test('a node without queues (a host) serves no queue depth, and everything else', async () => {
  const got = await scrape(hostSource());
  assert.deepEqual([...new Set(got.samples.map((s) => s.name))].sort(), [...COUNTERS, ...GAUGES].sort());
});

test('every (port, reason) drop series exists from the first scrape, at 0 until something drops', async () => {
  const source = new FakeSource();
  source.stats.countDrop('ttl', 1);
  const got = await scrape(source);
  const drops = got.samples.filter((s) => s.name === 'rocelab_dropped_packets_total');
  assert.equal(DROP_REASONS.length, 16); // mtu_exceeded is the 16th (issue 24)
  assert.equal(drops.length, PORTS.length * DROP_REASONS.length); // 2 × 16 = 32
  for (const port of PORTS) {
    for (const reason of DROP_REASONS) {
      const expected = port === 'p9' && reason === 'ttl' ? 1 : 0;
      assert.equal(got.value('rocelab_dropped_packets_total', { port, reason }), expected, `${port}/${reason}`);
    }
  }
  // Per-priority PFC series are pre-touched the same way: 2 ports × 8 priorities, all 0.
  for (const port of PORTS) for (const priority of PRIORITIES) assert.equal(got.value('rocelab_pfc_pause_frames_received_total', { port, priority }), 0);
});

test('counters, and only counters, end in _total', async () => {
  const got = await scrape(new FakeSource());
  const counters = [...got.types].filter(([, type]) => type === 'counter').map(([name]) => name);
  assert.deepEqual(counters.sort(), [...COUNTERS, ...SWITCH_METRICS.filter((m) => m.endsWith('_total'))].sort());
  for (const [name, type] of got.types) {
    assert.equal(name.endsWith('_total'), type === 'counter', `${name} is a ${type}`);
    assert.ok(name.startsWith('rocelab_'), `${name} has the rocelab_ prefix`);
  }
});

test('values are read from the stats at each scrape: change the stats, scrape again, see the new values', async () => {
  const source = new FakeSource();
  const registry = createNodeRegistry(ID, source);
  const { stats } = source;
  stats.ports[0]!.txFrames = 3;
  stats.ports[0]!.txBytes = 3 * 1086;
  stats.ports[1]!.rxFrames = 2;
  stats.ports[1]!.rxBytes = 2 * 1086;
  stats.ports[1]!.pfcRx[3] = 4;
  stats.countDrop('buffer', 0);
  source.virtualPs = 1_500_000; // 1.5 µs = 0.0000015 s
  source.eventCount = 42;
  source.windowCount = 7;
  source.queues[1] = 2172;

  const first = await scrape(source, registry);
  assert.equal(first.value('rocelab_transmitted_packets_total', { port: 'p1' }), 3);
  assert.equal(first.value('rocelab_transmitted_bytes_total', { port: 'p1' }), 3258);
  assert.equal(first.value('rocelab_received_packets_total', { port: 'p9' }), 2);
  assert.equal(first.value('rocelab_received_bytes_total', { port: 'p9' }), 2172);
  assert.equal(first.value('rocelab_pfc_pause_frames_received_total', { port: 'p9', priority: '3' }), 4);
  assert.equal(first.value('rocelab_dropped_packets_total', { port: 'p1', reason: 'buffer' }), 1);
  assert.equal(first.value('rocelab_virtual_seconds_total'), 0.0000015);
  assert.equal(first.value('rocelab_events_processed_total'), 42);
  assert.equal(first.value('rocelab_sync_windows_total'), 7);
  assert.equal(first.value('rocelab_causality_violations_total'), 0);
  assert.equal(first.value(QUEUE_DEPTH, { port: 'p9', priority: '3' }), 2172);
  assert.equal(first.value('rocelab_pfc_paused', { port: 'p9', priority: '3' }), 0);
  assert.equal(first.value('rocelab_pfc_paused_seconds_total', { port: 'p9', priority: '3' }), 0);

  // More traffic, a pause, a drain, time passes.
  stats.ports[0]!.txFrames += 5; // 8
  stats.ports[0]!.txBytes += 5 * 1086; // 8 × 1086 = 8688
  stats.ports[0]!.pfcTx[3] = 1;
  stats.countDrop('buffer', 0); // 2
  stats.countDrop('link_down', 1);
  stats.causalityViolations = 1;
  source.virtualPs = 2_000_000_000; // 2 ms = 0.002 s
  source.eventCount = 1000;
  source.windowCount = 9;
  source.pausedFor.set('1:3', 0.00025);
  source.pausedNow.add('1:3');
  source.queues[1] = 0;

  const second = await scrape(source, registry);
  assert.equal(second.value('rocelab_transmitted_packets_total', { port: 'p1' }), 8);
  assert.equal(second.value('rocelab_transmitted_bytes_total', { port: 'p1' }), 8688);
  assert.equal(second.value('rocelab_pfc_pause_frames_sent_total', { port: 'p1', priority: '3' }), 1);
  assert.equal(second.value('rocelab_dropped_packets_total', { port: 'p1', reason: 'buffer' }), 2);
  assert.equal(second.value('rocelab_dropped_packets_total', { port: 'p9', reason: 'link_down' }), 1);
  assert.equal(second.value('rocelab_causality_violations_total'), 1);
  assert.equal(second.value('rocelab_virtual_seconds_total'), 0.002);
  assert.equal(second.value('rocelab_events_processed_total'), 1000);
  assert.equal(second.value('rocelab_sync_windows_total'), 9);
  assert.equal(second.value('rocelab_pfc_paused_seconds_total', { port: 'p9', priority: '3' }), 0.00025);
  assert.equal(second.value('rocelab_pfc_paused', { port: 'p9', priority: '3' }), 1);
  assert.equal(second.value('rocelab_pfc_paused', { port: 'p9', priority: '4' }), 0);
  assert.equal(second.value(QUEUE_DEPTH, { port: 'p9', priority: '3' }), 0, 'a gauge goes down as well');
  // Nothing accumulates between scrapes: a third scrape with no change reads the same.
  assert.deepEqual((await scrape(source, registry)).samples, second.samples);
});

/** Whether `promtool` runs from PATH (Debian: `apt-get install prometheus`). */
function havePromtool(): boolean {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return probe.error === undefined && probe.status === 0;
}

test('promtool check metrics accepts the exposition (switch, host, and a host with DCQCN per QP and a TCP stack; zero and non-zero values)', async (t) => {
  if (!havePromtool()) {
    t.skip('promtool not installed');
    return;
  }
  const source = new FakeSource();
  source.stats.ports[0]!.txFrames = 12;
  source.stats.countDrop('misdelivered', 1);
  source.virtualPs = 1_500_000;
  source.pausedNow.add('0:3');
  for (const registry of [createNodeRegistry(ID, source), createNodeRegistry({ ...ID, node: 'h1', role: 'host' }, hostSource()), createNodeRegistry({ ...ID, node: 'h2', role: 'host' }, fullHostSource())]) {
    const text = await registry.metrics();
    // `promtool check metrics` reads the exposition on stdin: exit 0 and no findings when clean,
    // exit 3 with "… should have "_total" suffix"-style lint findings, exit 1 on parse errors.
    const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(run.error, undefined);
    assert.equal(run.status, 0, `promtool check metrics failed (exit ${run.status}):\n${run.stdout}${run.stderr}`);
    assert.equal(`${run.stdout}${run.stderr}`.trim(), '', 'promtool reports no findings');
  }
});
