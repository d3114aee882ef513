/**
 * examples/verbs-c (issue 25): our own plain-libibverbs ping-pong, built by `npm run build`, runs
 * between two hosts under different ToRs of a Clos. Both programs exit 0, the client reads every
 * pong the server WROTE into its memory, and each round trip it prints with clock_gettime is the
 * one the fabric's physics gives: computed here frame by frame from the path's links, the
 * frames' sizes and the hosts' memory drain, ACKs included (they go out ahead of the answer).
 * A second run prints the same and has the same trace hash.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Hop } from '@rocelab/results';
import { sendOpcode, udpSourcePort, writeOpcode } from '@rocelab/rnic';
import { hostPath, podContext, runInproc, type RunResult } from '@rocelab/runtime';
import { wireTimePs, type WireModel } from '@rocelab/sim';
import { loadTopologyFile, nicSettingsOf, type PodSpec } from '@rocelab/topology';
import { FrameKind, Opcode, frameBytes, newFrame, serializedBytes, type Frame } from '@rocelab/wire';
import { cli, ROOT } from './harness.js';

const DIR = join(ROOT, 'examples', 'verbs-c');
const BINARY = join(DIR, 'build', 'pingpong');
const ROUNDS = 8;
const skip = existsSync(BINARY) ? false : `${BINARY} is not built (npm run build needs gcc and libibverbs-dev)`;

/** One direction between the two hosts: when each link last finished sending, and the receiver's memory drain. */
interface Direction {
  hops: Hop[];
  doneAt: number[];
  drainBps: number;
  drainedAt: number;
}

/** Store and forward, in the order the NIC sends: when `frame`, ready at `readyPs`, is drained at the far end. */
function cross(d: Direction, frame: Frame, readyPs: number, wire: WireModel): number {
  const bytes = serializedBytes(frame, wire.accounting);
  let arrival = readyPs;
  d.hops.forEach((hop, h) => {
    d.doneAt[h] = Math.max(arrival, d.doneAt[h]!) + wireTimePs(bytes, hop.rateBps, wire);
    arrival = d.doneAt[h] + hop.latencyPs;
  });
  d.drainedAt = Math.max(arrival, d.drainedAt) + wireTimePs(frameBytes(frame, wire.accounting), d.drainBps, wire);
  return d.drainedAt;
}

/**
 * Each round: the client posts a WRITE of the message (23 bytes with its NUL) and a SEND of its
 * 4-byte length; the server ACKs each packet when drained and, at the SEND's completion, posts
 * its pong the same way behind those ACKs. The client's round ends at the pong's SEND (its own
 * SEND's ACK came earlier); its ACKs of the pong precede the next ping on its wire.
 */
function expectedRoundTripsPs(pod: PodSpec, wire: WireModel, clientQpn: number, serverQpn: number): number[] {
  const nic = (name: string) => nicSettingsOf(pod, pod.nodes.find((n) => n.name === name)!);
  const toServer: Direction = { hops: hostPath(pod, 'h2', 'h1', udpSourcePort(clientQpn))!, doneAt: new Array<number>(6).fill(0), drainBps: nic('h1').pfc.drainBps, drainedAt: 0 };
  const toClient: Direction = { hops: hostPath(pod, 'h1', 'h2', udpSourcePort(serverQpn))!, doneAt: new Array<number>(6).fill(0), drainBps: nic('h2').pfc.drainBps, drainedAt: 0 };
  assert.equal(toServer.hops.length, 6, 'h2 -> tor2 -> leaf2 -> spine -> leaf1 -> tor1 -> h1');
  const write = newFrame(FrameKind.data, { opcode: writeOpcode(0, 1), payloadBytes: 23, dmaLength: 23 });
  const send = newFrame(FrameKind.data, { opcode: sendOpcode(0, 1), payloadBytes: 4 });
  const ack = newFrame(FrameKind.ack, { opcode: Opcode.acknowledge });
  const rtts: number[] = [];
  let start = 1e9;
  // The exchange's last segment reaches the client's program as its TCP stack ACKs it: that ACK
  // leaves just ahead of the first ping.
  let acks: Array<[Frame, number]> = [[newFrame(FrameKind.tcpAck), start]];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [frame, at] of acks) cross(toServer, frame, at, wire);
    const pingWrite = cross(toServer, write, start, wire);
    const pingSend = cross(toServer, send, start, wire);
    const ackOfSend = [pingWrite, pingSend].map((at) => cross(toClient, ack, at, wire))[1]!;
    const pongWrite = cross(toClient, write, pingSend, wire);
    const pongSend = cross(toClient, send, pingSend, wire);
    const end = Math.max(pongSend, ackOfSend);
    rtts.push(end - start);
    acks = [[ack, pongWrite], [ack, pongSend]];
    start = end;
  }
  return rtts;
}

async function run(pod: PodSpec): Promise<RunResult> {
  return runInproc(pod, { seed: 1, durationPs: 1_000_000_000 });
}

test('examples/verbs-c: the C ping-pong crosses the Clos, reads every pong, and times the fabric’s own round trips, the same every run', { skip, timeout: 120_000 }, async () => {
  const pod = loadTopologyFile(join(DIR, 'pod.yaml'));
  const result = await run(pod);
  const [server, client] = result.programs;
  assert.ok(server !== undefined && client !== undefined, 'two programs ran');
  for (const p of [server, client]) assert.equal(p.exitCode, 0, `${p.node}: ${p.status} ${p.exitCode}\n${p.stdout}${p.stderr}`);
  assert.match(server.stdout, /server: round 8: got "ping 8 from the client" \(23 bytes\)/);

  const qpns = /client: QP 0x([0-9a-f]+) connected to QP 0x([0-9a-f]+) at ::ffff:10\.1\.1\.1/.exec(client.stdout);
  assert.ok(qpns !== null, client.stdout);
  const expected = expectedRoundTripsPs(pod, podContext(pod, 1).wire, parseInt(qpns[1]!, 16), parseInt(qpns[2]!, 16));
  const rounds = [...client.stdout.matchAll(/client: round (\d+): ([\d.]+) us, got "(.*)" \((\d+) bytes\)/g)];
  assert.equal(rounds.length, ROUNDS, client.stdout);
  rounds.forEach((m, i) => {
    assert.equal(m[3], `pong ${i + 1} from the server`, 'the bytes the server WROTE are in the client’s buffer');
    assert.equal(m[4], '23');
    // The program's clock counts whole nanoseconds: each end of the interval may drop up to 1 ns.
    const us = Number(m[2]);
    assert.ok(Math.abs(us - expected[i]! / 1e6) <= 0.0015, `round ${i + 1}: printed ${us} us, physics ${expected[i]! / 1e6} us`);
  });
  assert.match(client.stdout, /client: 8 round trips: min [\d.]+ us, avg [\d.]+ us, max [\d.]+ us/);

  const again = await run(pod);
  assert.equal(again.traceHash, result.traceHash);
  assert.deepEqual(
    again.programs.map((p) => p.stdout),
    result.programs.map((p) => p.stdout),
  );
});

test('examples/verbs-c runs as its README says, from the repository root with a relative pod path (the sandbox binds the program directory by its absolute path)', { skip, timeout: 120_000 }, () => {
  const r = cli(['run', 'examples/verbs-c/pod.yaml', '--duration', '1ms']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /packets: sent 79, delivered 79, dropped 0, queued 0/);
  assert.match(r.stdout, /conservation holds/);
});
