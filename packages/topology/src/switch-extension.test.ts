import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import { rejection } from './testing.js';
import { switchSettingsOf } from './switch-extension.js';

const pod = (defaultsSwitch: string, torSwitch = '') => `
name: t
timing: drill
defaults:
  switch: {${defaultsSwitch}}
nodes:
  - {name: tor1, role: tor${torSwitch ? `, switch: {${torSwitch}}` : ''}}
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2}
links:
  - {a: h1:p0, b: tor1:p1}
  - {a: h2:p0, b: tor1:p2}
`;

test('switch settings resolve over the profile, defaults first, then the switch’s own', () => {
  const p = parseTopology(pod('bufferBytes: 2MiB, ecn: {kmin: 50KB}', 'ecn: {kmax: 400KB}, losslessFlood: drop'), 'pod.yaml');
  const s = switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!);
  assert.equal(s.bufferBytes, 2 * 1024 * 1024);
  assert.deepEqual(s.ecn, { enabled: true, priorities: [0, 1, 2, 3, 4, 5, 6, 7], kminBytes: 50_000, kmaxBytes: 400_000, pmax: 0.1, markNonEct: false });
  assert.deepEqual([s.ecmpHash, s.ecmpSeed], ['rocelab', null], 'no seed: the unseeded hash of earlier runs');
  assert.equal(s.losslessFlood, 'drop');
  assert.deepEqual([s.watchdog.detectionPs, s.watchdog.pollPs], [2e9, 1e9], 'timing: drill');
});

test('an unknown priority is rejected with file, path, field and valid range', () => {
  assert.equal(rejection(pod('losslessPriorities: [3, 9]')), 'pod.yaml: defaults.switch.losslessPriorities: expected a list of priorities in 0..7 (9 is not one), got [3,9]');
  assert.match(rejection(pod('', 'dscpMap: {26: 8}')), /^pod\.yaml: nodes\[0\]\.switch\.dscpMap: expected priorities in 0\.\.7 \(DSCP 26 maps to 8\), got \{"26":8\}$/);
});

test('XON above XOFF is rejected where the switch sets it', () => {
  assert.equal(rejection(pod('', 'xoffBytes: 100KB, xonBytes: 200KB')), 'pod.yaml: nodes[0].switch.xonBytes: expected an XON threshold below XOFF (< 100000 B), got 200000');
});

test('a threshold that does not fit the buffer is rejected with the room there is', () => {
  const message = rejection(pod('bufferBytes: 1MiB', 'xoffBytes: 2MiB, xonBytes: 1MiB'));
  assert.match(message, /^pod\.yaml: nodes\[0\]\.switch\.xoffBytes: expected an XOFF threshold that fits the shared pool \(≤ \d+ B after reserves and headrooms\), got 2097152$/);
  // A buffer too small for the reserves and headrooms of its ports, reported once for the defaults.
  assert.match(rejection(pod('bufferBytes: 64KB')), /^pod\.yaml: defaults\.switch\.bufferBytes: expected a buffer larger than its reserves and headrooms \(\d+ \+ \d+ B on 2 ports\), got 64000$/);
});

test('ECN and watchdog ranges are checked too, every problem listed', () => {
  const message = rejection(pod('ecn: {kmin: 300KB, kmax: 100KB, pmax: 1.5}, watchdog: {poll: 5ms}'));
  assert.deepEqual(message.split('\n'), [
    'pod.yaml: defaults.switch.ecn.pmax: expected a probability 0..1 like 0.01 or 1/256, got 1.5',
    'pod.yaml: defaults.switch.ecn.kmax: expected Kmax above Kmin (> 300000 B), got 100000',
    'pod.yaml: defaults.switch.watchdog.poll: expected a poll interval no longer than detection (2ms) and restoration (4ms), got "5ms"',
  ]);
});

test('a misspelt switch key is caught by the schema', () => {
  assert.match(rejection(pod('bufferByte: 1MiB')), /^pod\.yaml: defaults\.switch\.bufferByte: expected one of the keys bufferBytes, alpha, .*, got unknown key "bufferByte"$/);
});

test('ECN on or off per switch and per queue; the switch’s own keys override the defaults’', () => {
  const p = parseTopology(pod('ecn: {enabled: false}', 'ecn: {priorities: [4, 3, 3]}'), 'pod.yaml');
  const s = switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!);
  assert.deepEqual([s.ecn.enabled, s.ecn.priorities], [false, [3, 4]], 'off from the defaults; queues sorted, once each');
  const q = parseTopology(pod('ecn: {enabled: false, priorities: [3]}', 'ecn: {enabled: true}'), 'pod.yaml');
  const t = switchSettingsOf(q, q.nodes.find((n) => n.name === 'tor1')!);
  assert.deepEqual([t.ecn.enabled, t.ecn.priorities], [true, [3]]);
});

test('ecmpSeed and ecmpHash are read per switch', () => {
  const p = parseTopology(pod('ecmpSeed: 4294967295', 'ecmpSeed: 7, ecmpHash: hpcc-ns3'), 'pod.yaml');
  const s = switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!);
  assert.deepEqual([s.ecmpHash, s.ecmpSeed], ['hpcc-ns3', 7]);
});

test('hpcc-ns3: a 32 MiB buffer (third.cc with its shipped config) and HPCC’s ECMP hash, seeded by node index', () => {
  const p = parseTopology(pod('').replace('timing: drill', 'timing: drill\nprofile: hpcc-ns3'), 'pod.yaml');
  const s = switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!);
  assert.equal(s.bufferBytes, 33_554_432);
  assert.deepEqual([s.ecmpHash, s.ecmpSeed], ['hpcc-ns3', null]);
});

test('bad ECN scopes and ECMP seeds are rejected with file, path, field and range', () => {
  assert.equal(rejection(pod('ecn: {priorities: [3, 8]}')), 'pod.yaml: defaults.switch.ecn.priorities: expected a list of priorities in 0..7 (8 is not one), got [3,8]');
  assert.equal(rejection(pod('ecn: {priorities: 3}')), 'pod.yaml: defaults.switch.ecn.priorities: expected the egress queues that mark: a list of priorities 0..7, got 3');
  assert.equal(rejection(pod('ecn: {enabled: no}')), 'pod.yaml: defaults.switch.ecn.enabled: expected true or false (false: no packet is ever marked), got "no"');
  assert.equal(rejection(pod('', 'ecmpSeed: -1')), 'pod.yaml: nodes[0].switch.ecmpSeed: expected an ECMP hash seed: an integer in 0..4294967295, got -1');
  assert.equal(rejection(pod('', 'ecmpSeed: 4294967296')), 'pod.yaml: nodes[0].switch.ecmpSeed: expected an ECMP hash seed: an integer in 0..4294967295, got 4294967296');
  assert.equal(rejection(pod('ecmpSeed: 1.5')), 'pod.yaml: defaults.switch.ecmpSeed: expected an ECMP hash seed: an integer in 0..4294967295, got 1.5');
  assert.equal(rejection(pod('ecmpHash: crc32')), 'pod.yaml: defaults.switch.ecmpHash: expected one of "rocelab", "hpcc-ns3", got "crc32"');
});

test('buffer pools resolve, and a pool set that does not cover every priority once, or does not fit, is rejected with file, path and expectation', () => {
  const p = parseTopology(pod('pools: [{name: rdma, priorities: [3], size: 4MB, alpha: 0.5}, {name: other, priorities: [0, 1, 2, 4, 5, 6, 7], size: 2MB}]'), 'pod.yaml');
  const s = switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!);
  assert.deepEqual(s.pools, [
    { name: 'rdma', priorities: [3], sizeBytes: 4_000_000, alpha: 0.5 },
    { name: 'other', priorities: [0, 1, 2, 4, 5, 6, 7], sizeBytes: 2_000_000, alpha: null },
  ]);
  assert.equal(rejection(pod('pools: [{name: rdma, priorities: [3], size: 1MB}, {name: tcp, priorities: [0, 1], size: 1MB}]')), 'pod.yaml: defaults.switch.pools: expected pools that cover every priority 0..7 exactly once, got "priorities 2, 4, 5, 6, 7 in none"');
  assert.equal(rejection(pod('', 'pools: [{name: a, priorities: [0, 1, 2, 3], size: 1MB}, {name: b, priorities: [3, 4, 5, 6, 7], size: 1MB}]')), 'pod.yaml: nodes[0].switch.pools: expected pools that cover every priority 0..7 exactly once, got "priority 3 in both a and b"');
  assert.match(rejection(pod('bufferBytes: 1MiB, pools: [{name: a, priorities: [0, 1, 2, 3], size: 1MB}, {name: b, priorities: [4, 5, 6, 7], size: 1MB}]')), /^pod\.yaml: defaults\.switch\.pools: expected pool sizes that fit the shared buffer \(≤ \d+ B after reserves and headrooms in all\), got 2000000$/);
});

test('Tagger resolves in tag order, and a tag on a lossy priority, a lossless `beyond`, a priority no DSCP maps to or a switch outside a Clos is rejected with file, path and expectation', () => {
  const ok = 'losslessPriorities: [3, 4], dscpMap: {34: 4}';
  const p = parseTopology(pod(`${ok}, tagger: {lossless: [4, 3], beyond: {lossy: 1}}`.replace("{34: 4}", "{34: 4, 8: 1}")), 'pod.yaml');
  assert.deepEqual(switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!).tagger, { losslessByTag: [4, 3], beyond: { lossy: 1 } });
  const q = parseTopology(pod(`${ok}, tagger: {lossless: [3, 4]}`), 'pod.yaml');
  assert.deepEqual(switchSettingsOf(q, q.nodes.find((n) => n.name === 'tor1')!).tagger!.beyond, { lossy: 0 }, 'past the last tag: lossy priority 0 by default (Tagger §4)');
  assert.equal(rejection(pod('dscpMap: {34: 4}, tagger: {lossless: [3, 4], beyond: drop}')), 'pod.yaml: defaults.switch.tagger.lossless: expected lossless priorities (losslessPriorities: [3]), got "4, which is lossy"');
  assert.equal(rejection(pod(`${ok}, tagger: {lossless: [3], beyond: {lossy: 4}}`)), 'pod.yaml: defaults.switch.tagger.beyond.lossy: expected a lossy priority (not in losslessPriorities: [3, 4]), got 4');
  assert.equal(rejection(pod('losslessPriorities: [3, 4], tagger: {lossless: [3, 4], beyond: drop}')), 'pod.yaml: defaults.switch.tagger.lossless: expected priorities some DSCP maps to: the tag travels as that DSCP (add one under dscpMap, e.g. {34: 4}), got "priority 4, which no DSCP maps to"');
  assert.equal(rejection(pod(`${ok}, tagger: {lossless: [3, 3]}`)), 'pod.yaml: defaults.switch.tagger.lossless: expected each priority once (a tag per priority), got [3,3]');
  assert.match(rejection(pod(ok, 'tagger: {lossless: [3, 4], beyond: drop}').replace('role: tor', 'role: switch')), /^pod\.yaml: nodes\[0\]\.switch\.tagger: expected a switch of a Clos: role tor, leaf or spine, linked only to hosts and other tiers \(Tagger: a switch has no tier/);
});

test('ECN thresholds and α by port rate resolve per switch, the switch’s own list replacing the defaults’', () => {
  const p = parseTopology(pod('ecn: {byRate: [{rate: 25G, kmin: 100KB, kmax: 400KB, pmax: 0.2}, {rate: 50G, kmin: 200KB, kmax: 800KB, pmax: 0.2}]}', 'alphaByRate: [{rate: 100G, alpha: 0.25}]'), 'pod.yaml');
  const s = switchSettingsOf(p, p.nodes.find((n) => n.name === 'tor1')!);
  assert.deepEqual(s.ecnByRate, [
    { rateBps: 25e9, kminBytes: 100_000, kmaxBytes: 400_000, pmax: 0.2 },
    { rateBps: 50e9, kminBytes: 200_000, kmaxBytes: 800_000, pmax: 0.2 },
  ]);
  assert.deepEqual(s.alphaByRate, [{ rateBps: 100e9, alpha: 0.25 }]);
  assert.equal(s.ecn.kminBytes, 104_000, 'the switch-wide thresholds stay for other rates');
  const q = parseTopology(pod('ecn: {byRate: [{rate: 25G, kmin: 100KB, kmax: 400KB, pmax: 0.2}]}', 'ecn: {byRate: []}'), 'pod.yaml');
  assert.deepEqual(switchSettingsOf(q, q.nodes.find((n) => n.name === 'tor1')!).ecnByRate, []);
});

test('bad entries by rate are rejected with path, expected and got', () => {
  assert.deepEqual(rejection(pod('ecn: {byRate: [{rate: 25G, kmin: 400KB, kmax: 100KB, pmax: 0.2}, {rate: 25G, kmin: 1KB, kmax: 2KB, pmax: 2}]}')).split('\n'), [
    'pod.yaml: defaults.switch.ecn.byRate[1].pmax: expected a probability 0..1 like 0.01 or 1/256, got 2',
    'pod.yaml: defaults.switch.ecn.byRate[0].kmax: expected Kmax above Kmin (> 400000 B), got 100000',
    'pod.yaml: defaults.switch.ecn.byRate[1].rate: expected each rate once (ecn.byRate[0] has it already), got "25000000000 b/s"',
  ]);
  assert.equal(rejection(pod('alphaByRate: [{rate: 25Q, alpha: 0.25}]')), 'pod.yaml: defaults.switch.alphaByRate[0].rate: expected a rate like 40G, 100M or 2.5G, got "25Q"');
  assert.equal(rejection(pod('alphaByRate: [{rate: 25G, alpha: 0}]')), 'pod.yaml: defaults.switch.alphaByRate[0].alpha: expected a dynamic-threshold factor α > 0, e.g. 0.25, got 0');
  assert.deepEqual(rejection(pod('ecn: {byRate: [{rate: 25G, kmin: 1KB}]}')).split('\n'), [
    'pod.yaml: defaults.switch.ecn.byRate[0].kmax: expected a size in bytes: an integer or a string like 64KB or 1MiB (required), got nothing',
    'pod.yaml: defaults.switch.ecn.byRate[0].pmax: expected a probability 0..1 (required), got nothing',
  ]);
  assert.equal(
    rejection(pod('alphaByRate: [{rate: 40G, alpha: 0.25}], pools: [{name: all, priorities: [0, 1, 2, 3, 4, 5, 6, 7], size: 1MB}]')),
    'pod.yaml: defaults.switch.alphaByRate: expected alphaByRate without pools: a pool has its own α (pools[].alpha), alphaByRate the α of each ingress port; set one of them, got "both alphaByRate and pools"',
  );
  assert.equal(
    rejection(pod('', 'alphaByRate: [{rate: 40G, alpha: 0.25}], xoffBytes: 200KB, xonBytes: 100KB')),
    'pod.yaml: nodes[0].switch.alphaByRate: expected alphaByRate with the dynamic threshold: fixed xoffBytes/xonBytes take no α, got "both alphaByRate and xoffBytes"',
  );
});
