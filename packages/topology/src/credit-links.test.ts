import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from './load.js';
import { rejection } from './testing.js';

const pod = (link: string, defaults = '', torSwitch = '') => `
name: t
defaults:
  link: {rate: 40G, latency: 1us, mtu: 1024${defaults}}
nodes:
  - {name: tor1, role: tor${torSwitch ? `, switch: {${torSwitch}}` : ''}}
  - {name: h1, role: host, ip: 10.0.0.1}
  - {name: h2, role: host, ip: 10.0.0.2}
links:
  - {a: h1:p0, b: tor1:p1${link}}
  - {a: h2:p0, b: tor1:p2}
`;

test('flowControl: credit gives both directions the same lane buffer: the credit loop by default, or creditBuffer in 64-byte blocks; pfc is the default and adds nothing', () => {
  const p = parseTopology(pod(', flowControl: credit'), 'pod.yaml');
  const [l0, l1] = p.links;
  // 40 Gb/s × 2 × 1 µs = 10,000 B, plus two largest frames of 1,106 B = 12,212 B → 191 blocks.
  assert.deepEqual([l0!.aToB.credit, l0!.bToA.credit], [{ bufferBlocks: 191 }, { bufferBlocks: 191 }]);
  assert.equal(l1!.aToB.credit, undefined, 'the other link keeps PFC');
  assert.equal('credit' in l1!.aToB, false, 'a PFC direction has no credit key (its JSON is unchanged)');
  const q = parseTopology(pod(', creditBuffer: 16KiB', ', flowControl: credit'), 'pod.yaml');
  assert.deepEqual(q.links.map((l) => l.aToB.credit), [{ bufferBlocks: 256 }, { bufferBlocks: 191 }], 'defaults.link applies to every link; creditBuffer on one');
});

test('credit at one end of a link only, a lane buffer below the largest frame or beyond 12-bit counters, and a DSCP map the other end does not share are rejected with file, path and expectation', () => {
  assert.equal(
    rejection(pod(', flowControl: {a: credit, b: pfc}')),
    'pod.yaml: links[0].flowControl: expected the same flow control at both ends (a credit sender waits for credit a PFC port never grants, and a PFC port\'s pauses go unheard), got credit at a (h1:p0), pfc at b (tor1:p1)',
  );
  assert.equal(
    rejection(pod(', flowControl: {a: credit}')),
    'pod.yaml: links[0].flowControl: expected the same flow control at both ends (a credit sender waits for credit a PFC port never grants, and a PFC port\'s pauses go unheard), got credit at a (h1:p0), pfc at b (tor1:p1)',
  );
  assert.equal(rejection(pod(', flowControl: credit, creditBuffer: 1KB')), 'pod.yaml: links[0].creditBuffer: expected a lane buffer of 1152..131072 B: at least the largest frame (1106 B, in 64-byte blocks) and at most 2048 blocks (IBA\'s 12-bit credit counters), got 1000');
  assert.match(rejection(pod('', ', flowControl: credit, creditBuffer: 1MiB')), /^pod\.yaml: defaults\.link\.creditBuffer: expected a lane buffer of 1152\.\.131072 B/);
  assert.equal(rejection(pod(', flowControl: lossless')), 'pod.yaml: links[0].flowControl: expected one of "pfc", "credit", got "lossless"');
  assert.equal(
    rejection(pod(', flowControl: credit', '', 'dscpMap: {34: 4}')),
    'pod.yaml: nodes[0].switch.dscpMap: expected the DSCP → priority map of h1 at the other end of credit link p1 (a frame\'s lane is its priority at both ends; a NIC maps 26 → 3, 48 → 6, the rest → 0), got "DSCP 34 → 4 here, → 0 at h1"',
  );
});

test('a fault that takes a credit link down, or kills a node on one, is refused: nothing retrains the link', () => {
  const faulty = (fault: string) => `${pod(', flowControl: credit')}faults:\n  - ${fault}\n`;
  assert.match(rejection(faulty('{kind: linkDown, link: tor1:p1, at: 1ms}')), /^pod\.yaml: faults\[0\]\.link: expected a link in PFC flow control: rocelab does not retrain a credit link that went down .*, got "tor1:p1" \(a credit link\)$/);
  assert.match(rejection(faulty('{kind: kill, node: h1, at: 1ms}')), /^pod\.yaml: faults\[0\]\.node: expected a node without credit links: .*, got "h1" \(h1:p0 is in credit flow control\)$/);
  // The PFC link of the same pod may go down.
  assert.equal(parseTopology(faulty('{kind: linkDown, link: tor1:p2, at: 1ms}'), 'pod.yaml').faults.length, 1);
});
