// The congestion-control factory and the window (issue 26): which machine `cc` picks, what HPCC
// gets of the pod's path, and HAS_WIN / VAR_WIN for any algorithm (rdma-queue-pair.cc `GetWin`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCongestionControl, dcqcnOf, windowOf, type CcPath } from './cc.js';
import { DcqcnReactionPoint } from './dcqcn-rp.js';
import { HpccRp } from './hpcc.js';
import { nicProfileSettings, type NicSettings } from './nic-settings.js';

const LINE = 100e9;
const PATH: CcPath = { baseRttPs: 10_000_000, bdpBytes: 125_000 };
const settings = (change: (s: NicSettings) => void = () => undefined): NicSettings => {
  const s = nicProfileSettings('vendor', 'drill', { in: { rateBps: LINE, latencyPs: 1_000_000, mtu: 1024 } });
  change(s);
  return s;
};

test('cc picks the machine: DCQCN by default (none when switched off), HPCC with the pod\'s path', () => {
  const d = createCongestionControl(settings(), LINE, null);
  assert.ok(d instanceof DcqcnReactionPoint);
  assert.equal(d.kind, 'dcqcn');
  assert.equal(d.windowBytes(), null);
  assert.equal(dcqcnOf(d), d);
  assert.equal(createCongestionControl(settings((s) => (s.dcqcn.enabled = false)), LINE, null), null);
  const h = createCongestionControl(settings((s) => (s.cc = 'hpcc')), LINE, PATH);
  assert.ok(h instanceof HpccRp);
  assert.equal(dcqcnOf(h), null);
  assert.equal(h.windowBytes(), null, 'the window is off unless the settings turn it on (the loader does, under cc: hpcc)');
  assert.equal(createCongestionControl(settings((s) => ((s.cc = 'hpcc'), (s.window.enabled = true))), LINE, PATH)!.windowBytes(), 125_000, 'bytes auto: the pod\'s BDP');
  assert.throws(() => createCongestionControl(settings((s) => (s.cc = 'hpcc')), LINE, null), /base RTT and BDP/);
});

test('W_AI in bytes becomes the rate W_AI·8/T: 80 B over a 10 µs base RTT is 64 Mb/s', () => {
  const h = createCongestionControl(settings((s) => ((s.cc = 'hpcc'), (s.hpcc.waiBytes = 80))), LINE, PATH) as HpccRp;
  // A first ACK, then a congested one (u = 1.024 + 0 → c > 1): R = trunc(100e9/c) + W_AI; with
  // hp.u = (1·9 + 1.024)/10 = 1.0024, c = 1.05515…: trunc(94,772,545,889.86) + 64,000,000.
  const hop = (tsPs: number, txBytes: number) => ({ tsPs, txBytes, qlenBytes: 0, lineRateBps: LINE });
  h.onAck(0, { nowPs: 0, ackedBytes: 1, nextSendBytes: 10, ecnEcho: false, hops: [hop(1_000_000, 0)], sentTsPs: null });
  h.onAck(0, { nowPs: 0, ackedBytes: 11, nextSendBytes: 20, ecnEcho: false, hops: [hop(2_000_000, 12_800)], sentTsPs: null });
  assert.equal(h.rateBps(0), 94_772_545_889 + 64_000_000);
});

test('HAS_WIN for any cc: bytes or the pod\'s BDP, scaled by rate / line rate with VAR_WIN, at least 1 byte', () => {
  assert.equal(windowOf(settings(), PATH, LINE, LINE), null, 'off by default');
  const on = (bytes: number | null, varWin: boolean) => settings((s) => (s.window = { enabled: true, bytes, varWin }));
  assert.equal(windowOf(on(null, false), PATH, 10e9, LINE), 125_000);
  assert.equal(windowOf(on(null, true), PATH, 10e9, LINE), 12_500);
  assert.equal(windowOf(on(64_000, true), null, 25e9, LINE), 16_000);
  assert.equal(windowOf(on(64_000, true), null, 1, LINE), 1);
  assert.equal(windowOf(on(null, true), null, LINE, LINE), null, 'auto without a path: none');
});
