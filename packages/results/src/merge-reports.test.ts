import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeNodeReports } from './merge-reports.js';
import { emptyPortReport, type NodeReport, type PortReport } from './node-report.js';

const port = (over: Partial<PortReport> = {}): PortReport => ({ ...emptyPortReport('p0'), ...over });
const sw = (p: PortReport): NodeReport => ({ node: 'tor1', role: 'tor', ports: [p], host: null });

test('two lives of a port: counts and times add, the earliest first pause and the latest last one, the highest peak', () => {
  const life1 = port({ pfcSent: [0, 0, 0, 4, 0, 0, 0, 0], pausedPs: [0, 0, 0, 100, 0, 0, 0, 0], firstPauseTxPs: 50, lastPauseTxPs: 80, ecnMarked: 3, dropped: { buffer: 2 }, peakQueueBytes: 9000, txBytes: 10, rxBytes: 20 });
  const life2 = port({ pfcSent: [0, 0, 0, 1, 0, 0, 0, 0], pausedPs: [0, 0, 0, 7, 0, 0, 0, 0], firstPauseTxPs: 500, lastPauseTxPs: 600, firstPauseRxPs: 550, lastPauseRxPs: 560, dropped: { buffer: 1, node_lost: 5 }, peakQueueBytes: 100, txBytes: 1, rxBytes: 2 });
  const merged = mergeNodeReports([sw(life1), sw(life2)]).ports[0]!;
  assert.deepEqual(merged.pfcSent, [0, 0, 0, 5, 0, 0, 0, 0]);
  assert.deepEqual(merged.pausedPs, [0, 0, 0, 107, 0, 0, 0, 0]);
  assert.deepEqual([merged.firstPauseTxPs, merged.lastPauseTxPs, merged.firstPauseRxPs, merged.lastPauseRxPs], [50, 600, 550, 560]);
  assert.deepEqual(merged.dropped, { buffer: 3, node_lost: 5 });
  assert.deepEqual([merged.ecnMarked, merged.peakQueueBytes, merged.txBytes, merged.rxBytes], [3, 9000, 11, 22]);
});

test('host counters add; one life is the identity; lives of different nodes are refused', () => {
  const host = (n: number): NodeReport => ({
    node: 'h1',
    role: 'host',
    ports: [port()],
    host: { cnpsSent: n, cnpsReceived: n, retransmittedPackets: n, naksSent: { seq: n, rnr: 0 }, naksReceived: { seq: 0, rnr: n }, rtoExpirations: n, rnrWaits: n, stormEvents: { warning: n, error: 0 }, goodputBytes: 1000 * n, receivedPayloadBytes: 2000 * n },
  });
  const merged = mergeNodeReports([host(1), host(2)]).host!;
  assert.deepEqual([merged.cnpsSent, merged.naksSent.seq, merged.naksReceived.rnr, merged.stormEvents.warning, merged.goodputBytes, merged.receivedPayloadBytes], [3, 3, 3, 3, 3000, 6000]);
  assert.deepEqual(mergeNodeReports([host(4)]), host(4));
  assert.throws(() => mergeNodeReports([host(1), sw(port())]), /not lives of one node/);
  assert.throws(() => mergeNodeReports([]), /no lives/);
});
