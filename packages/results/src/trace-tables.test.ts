import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResultsError } from './errors.js';
import { EVENTS_COLUMNS, FCT_COLUMNS, PACKET_EVENTS_COLUMNS, PFC_COLUMNS, PROBES_COLUMNS, QP_EVENTS_COLUMNS, QUEUE_COLUMNS, RATES_COLUMNS, TRACE_FILES } from './trace-columns.js';
import { parseTraceDir, parseTraceFile, splitRuns } from './trace-tables.js';

test('the column lists are the documented headers', () => {
  assert.equal(RATES_COLUMNS.join(','), 'time_us,node,qp,flow,dst,rate_gbps,target_gbps,alpha,acked_bytes,cnps,throughput_gbps');
  assert.equal(QUEUE_COLUMNS.join(','), 'time_us,node,port,priority,queue_bytes,threshold_bytes,ingress_bytes,headroom_bytes,paused,pausing,ecn_marks,tx_packets');
  assert.equal(PROBES_COLUMNS.join(','), 'time_us,from,to,rtt_us');
  assert.equal(EVENTS_COLUMNS.join(','), 'time_us,node,port,priority,event,detail');
  assert.equal(PFC_COLUMNS.join(','), 'time_us,node,port,priority,event,quanta,pause_us');
  assert.equal(FCT_COLUMNS.join(','), 'flow,from,to,size_bytes,start_us,completion_us,fct_us,ideal_fct_us,slowdown,status');
  assert.equal(QP_EVENTS_COLUMNS.join(','), 'time_us,node,qp,event,psn,bytes,detail');
  assert.equal(PACKET_EVENTS_COLUMNS.join(','), 'time_us,node,port,qp,index,psn,action');
  assert.deepEqual(Object.keys(TRACE_FILES), ['rates.csv', 'queue.csv', 'pfc.csv', 'fct.csv', 'probes.csv', 'events.csv', 'qp-events.csv', 'packet-events.csv']);
});

test('qp-events.csv and packet-events.csv parse into typed rows; an unknown QP event is an error naming line and column', () => {
  const qp = parseTraceFile({ name: 'qp-events.csv', path: 'q', text: `${QP_EVENTS_COLUMNS.join(',')}\n0.000000,h1,2,wr_posted,,4096,write\n0.100000,h1,2,retransmission,16777215,1024,\n` });
  assert.deepEqual(qp.rows, [
    { run: '', timeUs: 0, node: 'h1', qp: 2, event: 'wr_posted', psn: null, bytes: 4096, detail: 'write' },
    { run: '', timeUs: 0.1, node: 'h1', qp: 2, event: 'retransmission', psn: 16777215, bytes: 1024, detail: '' },
  ]);
  const hit = parseTraceFile({ name: 'packet-events.csv', path: 'p', text: `${PACKET_EVENTS_COLUMNS.join(',')}\n1.500000,h1,p0,2,3,2,drop\n` });
  assert.deepEqual(hit.rows, [{ run: '', timeUs: 1.5, node: 'h1', port: 'p0', qp: 2, index: 3, psn: 2, action: 'drop' }]);
  assert.throws(() => parseTraceFile({ name: 'qp-events.csv', path: 'ref/qp-events.csv', text: `${QP_EVENTS_COLUMNS.join(',')}\n0,h1,2,sent,,,\n` }), /ref\/qp-events\.csv:2: event \(column 4\): expected one of/);
});

test('each file parses into typed rows; empty fields are null where the format allows', () => {
  const rates = parseTraceFile({ name: 'rates.csv', path: 'r/rates.csv', text: `${RATES_COLUMNS.join(',')}\n10.000000,h1,3,17,h2,40.000000,40.000000,,1024,0,39.500000\n` });
  assert.deepEqual(rates.rows, [{ run: '', timeUs: 10, node: 'h1', qp: 3, flow: '17', dst: 'h2', rateGbps: 40, targetGbps: 40, alpha: null, ackedBytes: 1024, cnps: 0, throughputGbps: 39.5 }]);
  assert.equal(rates.hasRunColumn, false);
  const queue = parseTraceFile({ name: 'queue.csv', path: 'q', text: `${QUEUE_COLUMNS.join(',')}\n1.000000,sw1,p3,3,5000,9000,100,0,0,1,2,40\n` });
  assert.deepEqual(queue.rows, [{ run: '', timeUs: 1, node: 'sw1', port: 'p3', priority: 3, queueBytes: 5000, thresholdBytes: 9000, ingressBytes: 100, headroomBytes: 0, paused: false, pausing: true, ecnMarks: 2, txPackets: 40 }]);
  const probes = parseTraceFile({ name: 'probes.csv', path: 'pr', text: `${PROBES_COLUMNS.join(',')}\n0.000000,h1,h2,6.120000\n1.000000,h2,h1,\n` });
  assert.deepEqual(probes.rows.map((r) => r.rttUs), [6.12, null]);
  const events = parseTraceFile({ name: 'events.csv', path: 'e', text: `${EVENTS_COLUMNS.join(',')}\n5000.000000,tor2,p2,3,pfcwd_storm_detected,drop\n2000.000000,h4,,,fault,nicPauseStorm\n` });
  assert.deepEqual(events.rows.map((r) => [r.port, r.priority, r.event]), [['p2', 3, 'pfcwd_storm_detected'], ['', null, 'fault']]);
  const pfc = parseTraceFile({ name: 'pfc.csv', path: 'p', text: `run,${PFC_COLUMNS.join(',')}\ns1,2.000000,h1,p0,3,pause,65535,838.848000\n` });
  assert.deepEqual(pfc.rows, [{ run: 's1', timeUs: 2, node: 'h1', port: 'p0', priority: 3, event: 'pause', quanta: 65535, pauseUs: 838.848 }]);
  const fct = parseTraceFile({ name: 'fct.csv', path: 'f', text: `${FCT_COLUMNS.join(',')},run\n7,h1,h2,1000,0.000000,,,1.200000,,incomplete,a\n` });
  assert.deepEqual(fct.rows, [{ run: 'a', flow: '7', from: 'h1', to: 'h2', sizeBytes: 1000, startUs: 0, completionUs: null, fctUs: null, idealFctUs: 1.2, slowdown: null, status: 'incomplete' }]);
});

test('a missing column, a bad value and a flow twice in a run are errors naming file, line and column', () => {
  assert.throws(() => parseTraceFile({ name: 'pfc.csv', path: 'ref/pfc.csv', text: 'time_us,node,port,priority,event,quanta\n' }), {
    message: 'ref/pfc.csv:1: expected the columns time_us,node,port,priority,event,quanta,pause_us, got no pause_us',
  });
  assert.throws(() => parseTraceFile({ name: 'pfc.csv', path: 'ref/pfc.csv', text: `${PFC_COLUMNS.join(',')}\n1,h1,p0,9,pause,1,1\n` }), {
    message: 'ref/pfc.csv:2: priority (column 4): expected an integer in 0..7, got "9"',
  });
  const fct = `run,${FCT_COLUMNS.join(',')}\na,7,h1,h2,1,0,1,1,1,1,success\nb,7,h1,h2,1,0,1,1,1,1,success\na,7,h1,h2,1,0,1,1,1,1,success\n`;
  assert.throws(() => parseTraceFile({ name: 'fct.csv', path: 'ref/fct.csv', text: fct }), {
    message: 'ref/fct.csv:4: flow (column 2): expected a flow id not seen before in this run (one row per message), got "7" again (line 2)',
  });
});

test('a directory splits into runs; every run has every file, even without rows in it', () => {
  const dir = parseTraceDir([
    { name: 'pfc.csv', path: 'ref/pfc.csv', text: `run,${PFC_COLUMNS.join(',')}\ns1,2,h1,p0,3,pause,65535,838.848\n` },
    { name: 'fct.csv', path: 'ref/fct.csv', text: `run,${FCT_COLUMNS.join(',')}\ns1,7,h1,h2,1,0,1,1,1,1,success\ns2,7,h1,h2,1,0,2,2,1,2,success\n` },
  ]);
  assert.deepEqual(dir.runs, ['s1', 's2']);
  const runs = splitRuns(dir);
  assert.deepEqual([...runs.keys()], ['s1', 's2']);
  assert.equal(runs.get('s2')!['pfc.csv']!.length, 0);
  assert.equal(runs.get('s2')!['fct.csv']![0]!.fctUs, 2);
  assert.equal(runs.get('s1')!['rates.csv'], undefined);
});

test('a directory without a run column is one run; a run column in some files only is an error', () => {
  const one = parseTraceDir([{ name: 'pfc.csv', path: 'run/pfc.csv', text: `${PFC_COLUMNS.join(',')}\n` }]);
  assert.deepEqual(one.runs, ['']);
  assert.deepEqual(splitRuns(one).get(''), { 'pfc.csv': [] });
  const err = (() => {
    try {
      parseTraceDir([
        { name: 'pfc.csv', path: 'ref/pfc.csv', text: `${PFC_COLUMNS.join(',')}\n` },
        { name: 'fct.csv', path: 'ref/fct.csv', text: `run,${FCT_COLUMNS.join(',')}\n` },
      ]);
    } catch (e) {
      return e;
    }
    return null;
  })();
  assert.ok(err instanceof ResultsError);
  assert.equal(err.code, 'runs');
  assert.equal(err.message, 'ref/pfc.csv: expected a "run" column, as ref/fct.csv has (all files of a directory or none), got none');
});
