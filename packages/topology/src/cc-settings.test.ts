// `cc`, `hpcc` and `window` in a host's NIC settings (issue 26): defaults from HPCC ns-3's
// mix/config.txt, resolution over the layers, and the refusals with file, path and range.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import { nicPod, rejection } from './testing.js';
import { nicSettingsOf } from './nic-extension.js';

const pod = nicPod;
const settings = (text: string, host = 'h1') => {
  const p = parseTopology(text, 'pod.yaml');
  return nicSettingsOf(p, p.nodes.find((n) => n.name === host)!);
};

test('by default DCQCN, no window, and HPCC parameters as mix/config.txt has them', () => {
  const s = settings(pod(''));
  assert.equal(s.cc, 'dcqcn');
  assert.deepEqual(s.window, { enabled: false, bytes: null, varWin: true });
  assert.deepEqual(s.hpcc, { eta: 0.95, maxStage: 0, aiBps: 50e6, waiBytes: null, fastReact: true, multiRate: false, sampleFeedback: false, minRateBps: 100e6 });
  assert.equal(s.ackEvery, 4);
});

test('cc: hpcc turns the window on (HAS_WIN 1) and ACKs every packet unless the file says otherwise', () => {
  const s = settings(pod('cc: hpcc, hpcc: {eta: 0.9, maxStage: 5, wai: 80M, fastReact: false}'));
  assert.equal(s.cc, 'hpcc');
  assert.deepEqual(s.window, { enabled: true, bytes: null, varWin: true });
  assert.equal(s.ackEvery, 1);
  assert.deepEqual(s.hpcc, { eta: 0.9, maxStage: 5, aiBps: 80e6, waiBytes: null, fastReact: false, multiRate: false, sampleFeedback: false, minRateBps: 100e6 });
  // The paper's W_AI in bytes (a size unit), turned into a rate per QP with the pod's base RTT.
  assert.equal(settings(pod('cc: hpcc, hpcc: {wai: 80B}')).hpcc.waiBytes, 80);
  assert.equal(settings(pod('hpcc: {wai: 80B}', 'hpcc: {wai: 60M}')).hpcc.waiBytes, null);
  const own = settings(pod('cc: hpcc, ackEvery: 2', 'window: {enabled: false}'));
  assert.equal(own.window.enabled, false);
  assert.equal(own.ackEvery, 2);
  assert.deepEqual(settings(pod('window: {enabled: true, bytes: 64KiB, varWin: false}')).window, { enabled: true, bytes: 65_536, varWin: false });
  assert.equal(settings(pod('window: {enabled: true, bytes: auto}')).window.bytes, null);
});

test('bad HPCC and window values are refused with file, path and the valid range', () => {
  assert.equal(rejection(pod('cc: hpcc, hpcc: {eta: 1.5}')), 'pod.yaml: defaults.nic.hpcc.eta: expected a target utilisation η, 0 < η ≤ 1, got 1.5');
  assert.equal(rejection(pod('', 'hpcc: {maxStage: -1}')), 'pod.yaml: nodes[1].nic.hpcc.maxStage: expected additive steps before a multiplicative one, an integer ≥ 0, got -1');
  assert.match(rejection(pod('hpcc: {wai: 100G}')), /defaults\.nic\.hpcc\.wai: expected an additive increase no faster than the port \(40 Gb\/s\), got 100000000000/);
  assert.equal(rejection(pod('hpcc: {wai: 0B}')), 'pod.yaml: defaults.nic.hpcc.wai: expected an additive increase W_AI ≥ 1 byte, got "0B"');
  assert.match(rejection(pod('window: {bytes: 0}')), /defaults\.nic\.window\.bytes: expected a window in bytes ≥ 1, or auto, got 0/);
  assert.match(rejection(pod('cc: cubic')), /defaults\.nic\.cc: expected one of "dcqcn", "hpcc", "timely", "dctcp", got "cubic"/);
});
