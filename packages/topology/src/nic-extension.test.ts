import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import { nicPod, rejection } from './testing.js';
import { nicSettingsOf } from './nic-extension.js';

const pod = nicPod;

test('NIC settings resolve over the profile (drill timing), defaults first, then the host’s own', () => {
  const p = parseTopology(pod('recovery: goBack0, dcqcn: {rateIncreaseTimer: 55us, aiRate: 40M}', 'drainRate: 20G, dcqcn: {enabled: false}'), 'pod.yaml');
  const h1 = nicSettingsOf(p, p.nodes.find((n) => n.name === 'h1')!);
  const h2 = nicSettingsOf(p, p.nodes.find((n) => n.name === 'h2')!);
  assert.equal(h1.recovery, 'goBack0');
  assert.equal(h1.pfc.drainBps, 20e9);
  assert.equal(h1.dcqcn.enabled, false);
  assert.equal(h2.dcqcn.enabled, true);
  assert.equal(h2.dcqcn.params.rateIncreaseTimerPs, 55_000_000);
  assert.equal(h2.dcqcn.params.aiRateBps, 40e6);
  assert.equal(h2.ackTimeoutPs, 1_048_576_000, 'drill: 4.096 µs × 2^8');
  assert.equal(h2.pfc.watchdog.criticalPs, 2_000_000_000);
});

test('a DCQCN parameter out of range is rejected with file, path and the valid range', () => {
  assert.match(rejection(pod('dcqcn: {g: 1.5}')), /^pod\.yaml: defaults\.nic\.dcqcn\.g: expected .*, got 1\.5$/m);
  assert.match(rejection(pod('', 'dcqcn: {minRate: 80G}')), /^pod\.yaml: nodes\[1\]\.nic\.dcqcn\.minRate: expected .*line rate.*, got "80G"$/m);
  assert.match(rejection(pod('dcqcn: {rateIncreaseTimer: 0us}')), /defaults\.nic\.dcqcn\.rateIncreaseTimer: expected/);
});

test('transport and buffer ranges are checked, every problem listed', () => {
  const message = rejection(pod('retryCount: 9, ackEvery: 0, rnrTimerCode: 40, xoffBytes: 300KiB'));
  assert.deepEqual(message.split('\n'), [
    'pod.yaml: defaults.nic.retryCount: expected a retry count 0..7, got 9',
    'pod.yaml: defaults.nic.rnrTimerCode: expected an IBTA RNR timer code 0..31, got 40',
    'pod.yaml: defaults.nic.ackEvery: expected ACK every n packets, n ≥ 1, got 0',
    'pod.yaml: defaults.nic.xoffBytes: expected an XOFF threshold within the receive buffer (≤ 262144 B), got 307200',
  ]);
  assert.match(rejection(pod('recovery: goBack1')), /defaults\.nic\.recovery: expected one of "goBackN", "goBack0", "selectiveRepeat", got "goBack1"/);
});

test('selective repeat on a priority PFC keeps lossless is refused unless the file says so, with file, path and expectation', () => {
  assert.equal(
    rejection(pod('recovery: selectiveRepeat')),
    'pod.yaml: defaults.nic.recovery: expected selective repeat on a lossy priority: the data (DSCP 26) rides priority 3, which this NIC and tor1 keep lossless with PFC; make it lossy (losslessPriorities), or say selectiveRepeat: {onLossless: true}, got "selectiveRepeat"',
  );
  const explicit = parseTopology(pod('recovery: selectiveRepeat, selectiveRepeat: {onLossless: true, bdpCap: 40}'), 'pod.yaml');
  const sr = nicSettingsOf(explicit, explicit.nodes.find((n) => n.name === 'h1')!).selectiveRepeat;
  assert.deepEqual(sr, { bdpCapPackets: 40, rtoLowPs: 100_000_000, rtoHighPs: 320_000_000, lowRtoBelowPackets: 3, onLossless: true });
  const lossy = pod('recovery: selectiveRepeat, losslessPriorities: []').replace('defaults:\n', 'defaults:\n  switch: {losslessPriorities: []}\n');
  assert.equal(nicSettingsOf(parseTopology(lossy, 'pod.yaml'), parseTopology(lossy, 'pod.yaml').nodes[1]!).recovery, 'selectiveRepeat');
  // The ToR alone keeping priority 3 lossless is enough to refuse it.
  assert.match(rejection(pod('recovery: selectiveRepeat, losslessPriorities: []')), /which tor1 keep lossless/);
  assert.match(rejection(pod('', 'selectiveRepeat: {rtoLow: 1ms}')), /nodes\[1\]\.nic\.selectiveRepeat\.rtoLow: expected a low timeout no longer than rtoHigh \(320 us\)/);
  assert.match(rejection(pod('', 'selectiveRepeat: {bdpCap: 0}')), /nodes\[1\]\.nic\.selectiveRepeat\.bdpCap: expected packets in flight at most, an integer ≥ 1, or auto, got 0/);
  assert.match(rejection(pod('losslessPriorities: [3, 9]')), /defaults\.nic\.losslessPriorities: expected a list of distinct priorities 0\.\.7, got \[3,9\]/);
});

test('the TCP stack settings resolve, and a bad one is refused with file, path and range', () => {
  const p = parseTopology(pod('tcp: {sendLatency: 5us, dctcpGain: 0.0625, receiveWindow: 1MiB}', 'tcp: {minRto: 200us}'), 'pod.yaml');
  const h1 = nicSettingsOf(p, p.nodes.find((n) => n.name === 'h1')!).tcp;
  assert.deepEqual([h1.sendLatencyPs, h1.receiveLatencyPs, h1.schedulingPs, h1.minRtoPs, h1.initialRtoPs, h1.dctcpGain, h1.receiveWindowBytes, h1.mssBytes], [5_000_000, 3_750_000, 2_500_000, 200_000_000, 1_000_000_000, 0.0625, 1_048_576, null]);
  assert.equal(rejection(pod('tcp: {dctcpGain: 2}')), 'pod.yaml: defaults.nic.tcp.dctcpGain: expected DCTCP\'s gain g, 0 < g ≤ 1, got 2');
  assert.match(rejection(pod('', 'tcp: {initialWindow: 0}')), /nodes\[1\]\.nic\.tcp\.initialWindow: expected the initial window in segments, ≥ 1, got 0/);
});

test('ackIgnoresPause (hpcc-ns3 ACK_HIGH_PRIO 1) is off by default, on where the file says; refused on a host whose link is in credit flow control', () => {
  const p = parseTopology(pod('', 'ackIgnoresPause: true', 'hpcc-ns3'), 'pod.yaml');
  const of = (name: string) => nicSettingsOf(p, p.nodes.find((n) => n.name === name)!).ackIgnoresPause;
  assert.deepEqual([of('h1'), of('h2')], [true, false]);
  assert.match(rejection(pod('ackIgnoresPause: 1')), /^pod\.yaml: defaults\.nic\.ackIgnoresPause: expected true \(ACKs and NAKs leave while their priority is paused: hpcc-ns3's ACK_HIGH_PRIO 1\) or false \(they wait, as data does\), got 1$/m);
  const credit = pod('ackIgnoresPause: true').replace('{a: h1:p0, b: tor1:p1}', '{a: h1:p0, b: tor1:p1, flowControl: credit}');
  assert.equal(
    rejection(credit),
    'pod.yaml: defaults.nic.ackIgnoresPause: expected false on h1, whose link is in credit flow control (ACKs wait for credit as every frame does; the setting ignores PFC pauses only), got true',
  );
});
