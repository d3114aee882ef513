/**
 * `--trace` writes qp-events.csv (per QP: work requests posted and completed, data packets sent
 * and retransmitted, ACK/NAK/CNP arriving) and packet-events.csv (the packets `packetEvent`
 * faults hit: PSN, where, when), issue 24. They come from observers: the trace hash is the one of
 * the untraced run, and the files are the same bytes in one process and as processes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, ROOT } from './harness.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-qp-events-'));

const POD = `name: qp-events
seed: 3
timing: drill
defaults:
  link: {rate: 40G, latency: 1us, mtu: 1024}
  switch: {bufferBytes: 1MiB}
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
workloads:
  - {kind: flow, from: h1, to: h2, sizeBytes: 100KB, start: 0us}
faults:
  - {at: 0us, kind: packetEvent, flow: {from: h1, to: h2}, packets: [5, 17], action: drop}
  - {at: 0us, kind: packetEvent, flow: {from: h1, to: h2}, packets: [30], action: ecn}
`;

function run(file: string, args: string[]): { hash: string; dir: string | null } {
  const dir = args.includes('--trace') ? null : tmp();
  const r = cli(['run', file, '--json', ...args, ...(dir === null ? [] : ['--trace', dir])]);
  assert.equal(r.status, 0, r.stderr);
  return { hash: r.json!.traceHash, dir };
}

const rows = (dir: string, file: string): string[][] => readFileSync(join(dir, file), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));

test('a flow with two dropped packets and a marked one: the hits, the NAK, the retransmissions, the CNP and the completion, the same in every mode and hash', () => {
  const file = join(tmp(), 'pod.yaml');
  writeFileSync(file, POD);
  const plain = cli(['run', file, '--duration', '1ms', '--json']);
  assert.equal(plain.status, 0, plain.stderr);
  const inproc = run(file, ['--duration', '1ms']);
  const procs = run(file, ['--duration', '1ms', '--mode', 'procs']);
  assert.equal(inproc.hash, plain.json!.traceHash, 'tracing does not change the trace hash');
  assert.equal(procs.hash, plain.json!.traceHash);
  for (const f of ['qp-events.csv', 'packet-events.csv']) assert.equal(readFileSync(join(procs.dir!, f), 'utf8'), readFileSync(join(inproc.dir!, f), 'utf8'), `${f}: the same bytes as processes`);

  // Packets 5 and 17 of QP 2 carry PSNs 4 and 16; the 30th packet is the retransmission of PSN 7 (go-back-N resent 4…).
  assert.deepEqual(rows(inproc.dir!, 'packet-events.csv'), [
    ['0.888000', 'h1', 'p0', '2', '5', '4', 'drop'],
    ['3.542400', 'h1', 'p0', '2', '17', '16', 'drop'],
    ['6.418000', 'h1', 'p0', '2', '30', '7', 'ecn'],
  ]);
  const qp = rows(inproc.dir!, 'qp-events.csv');
  const events = qp.map((r) => r[3]);
  assert.deepEqual(qp[0], ['0.000000', 'h1', '2', 'wr_posted', '', '100000', 'write']);
  assert.deepEqual(qp.at(-1)!.slice(1), ['h1', '2', 'completion', '', '100000', 'success']);
  assert.equal(events.filter((e) => e === 'psn_sent').length, 98, '100 KB in 1024 B packets: 98 PSNs');
  const nak = qp.findIndex((r) => r[3] === 'nak');
  assert.deepEqual(qp[nak]!.slice(1), ['h1', '2', 'nak', '4', '', '0x60'], 'a sequence-error NAK for PSN 4');
  assert.deepEqual(qp[nak + 1]!.slice(3, 5), ['retransmission', '4'], 'go-back-N resends from PSN 4');
  assert.equal(qp.filter((r) => r[3] === 'retransmission' && r[4] === '16').length, 1, 'the dropped PSN 16 goes again once');
  assert.deepEqual(qp.filter((r) => r[3] === 'cnp').map((r) => r.slice(1)), [['h1', '2', 'cnp', '', '', '']], 'one CNP for the marked packet');
  assert.ok(events.filter((e) => e === 'ack').length > 20);
  const times = qp.map((r) => Number(r[0]));
  assert.deepEqual(times, [...times].sort((a, b) => a - b), 'rows in time order');
});

test("an app's work requests: rdma-hello's WRITE posted and completed, with its PSN and its ACK", () => {
  const { dir } = run(join(ROOT, 'examples', 'rdma-hello', 'pod.yaml'), ['--duration', '20us']);
  const qp = rows(dir!, 'qp-events.csv').map((r) => r.slice(1));
  assert.deepEqual(
    qp.map((r) => [r[0], r[2], r[3], r[4], r[5]]),
    [
      ['h1', 'wr_posted', '', '11', 'write'],
      ['h1', 'psn_sent', '0', '11', ''],
      ['h1', 'ack', '0', '', '0x00'],
      ['h1', 'completion', '', '11', 'success'],
    ],
  );
  assert.deepEqual(rows(dir!, 'packet-events.csv'), []);
});
