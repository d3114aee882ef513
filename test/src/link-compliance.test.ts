/**
 * One link test suite, two kinds of link (STYLE §11): the in-memory link of one process, and
 * the WebSocket link between two member processes driven by the real controller and the
 * window protocol. Every case must observe the same arrivals, drops and trace hash on both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptedNode, dataFrame } from '@rocelab/sim/testing';
import { runInproc, type ModelFactory, type RunResult } from '@rocelab/runtime';
import { parseTopology } from '@rocelab/topology';
import { pfcFrame, type Frame } from '@rocelab/wire';
import { runInProcess } from './harness.js';

const DATA_PS = 221_200; // 1086 B + 20 B at 40 Gb/s
const PFC_PS = 16_800; // 84 B
const QUANTUM_PS = 12_800; // 64 B
const LATENCY_PS = 1_000_000;

interface Observed {
  result: RunResult;
  a: ScriptedNode;
  b: ScriptedNode;
}

interface Case {
  name: string;
  /** Extra YAML for the a—b link and the pod (impairments, faults). */
  link?: string;
  faults?: string;
  durationPs: number;
  script: { a?: (m: ScriptedNode) => void; b?: (m: ScriptedNode) => void };
  check(o: Observed): void;
}

const pause = (priority: number, quanta: number): Frame => {
  const q = [0, 0, 0, 0, 0, 0, 0, 0];
  q[priority] = quanta;
  return pfcFrame(1 << priority, q);
};

const times = (m: ScriptedNode) => m.received.map((r) => r.timePs);

const CASES: Case[] = [
  {
    name: 'frames serialize back to back and arrive one latency after their last bit',
    durationPs: 10_000_000,
    script: { a: (m) => m.at(0, () => [0, 1, 2].forEach((psn) => m.send(0, dataFrame({ psn })))) },
    check: ({ b }) => assert.deepEqual(times(b), [1, 2, 3].map((k) => k * DATA_PS + LATENCY_PS)),
  },
  {
    name: 'a received pause holds its priority for quanta × 512 bit times',
    durationPs: 10_000_000,
    script: {
      b: (m) => m.at(0, () => m.send(0, pause(3, 10))),
      a: (m) => m.at(PFC_PS + LATENCY_PS, () => m.send(0, dataFrame())),
    },
    check: ({ b, a }) => {
      assert.deepEqual(times(b), [PFC_PS + LATENCY_PS + 10 * QUANTUM_PS + DATA_PS + LATENCY_PS]);
      assert.deepEqual(a.pfcReceived.map((r) => r.timePs), [PFC_PS + LATENCY_PS]);
    },
  },
  {
    name: 'PFC frames go out after the frame in progress, ahead of queued data',
    durationPs: 10_000_000,
    script: {
      a: (m) => {
        m.at(0, () => [0, 1, 2, 3].forEach((psn) => m.send(0, dataFrame({ psn }))));
        m.at(1_000, () => m.send(0, pause(3, 1)));
      },
    },
    check: ({ b }) => {
      assert.deepEqual(b.pfcReceived.map((r) => r.timePs), [DATA_PS + PFC_PS + LATENCY_PS]);
      assert.deepEqual(times(b).slice(0, 2), [DATA_PS + LATENCY_PS, 2 * DATA_PS + PFC_PS + LATENCY_PS]);
    },
  },
  {
    name: 'the IP-ID rule drops exactly 1 in 256 at the sender; corrupted frames die at the receiver',
    link: 'impairments: {a_to_b: {dropIpIdLowByte: 255}, b_to_a: {corrupt: 0.25}}',
    durationPs: 300_000_000,
    script: {
      a: (m) => m.at(0, () => Array.from({ length: 512 }, (_, i) => m.send(0, dataFrame({ ipId: i })))),
      b: (m) => m.at(0, () => Array.from({ length: 400 }, () => m.send(0, dataFrame()))),
    },
    check: ({ result, a, b }) => {
      assert.equal(b.received.length, 510);
      assert.equal(result.droppedByReason.loss, 2);
      assert.equal(a.received.length + result.droppedByReason.corrupt, 400);
      assert.ok(result.droppedByReason.corrupt > 60 && result.droppedByReason.corrupt < 140);
    },
  },
  {
    name: 'a link-down fault loses frames in flight and frames sent; after link-up frames flow again',
    faults: 'faults: [{at: 3us, kind: linkDown, link: a:p0}, {at: 8us, kind: linkUp, link: b:p0}]',
    durationPs: 20_000_000,
    script: { a: (m) => m.at(0, () => Array.from({ length: 40 }, (_, psn) => m.send(0, dataFrame({ psn })))) },
    check: ({ result, b }) => {
      // Frames arriving in [3 µs, 8 µs) are lost at b (in flight), frames starting in [3 µs, 8 µs) at a.
      const arrivals = times(b);
      assert.ok(arrivals.every((t) => t < 3_000_000 || t >= 8_000_000 + DATA_PS + LATENCY_PS), String(arrivals));
      assert.ok(result.droppedByReason.link_down > 20);
      assert.equal(arrivals.length + result.droppedByReason.link_down + result.packets.queued, 40);
      assert.ok(arrivals.some((t) => t > 8_000_000), 'frames flow again after link-up');
    },
  },
];

function pod(c: Case) {
  const yaml = `
name: pair
seed: 3
nodes:
  - {name: a, role: switch}
  - {name: b, role: switch}
links:
  - {a: a:p0, b: b:p0${c.link ? `, ${c.link}` : ''}}
${c.faults ?? ''}
`;
  return parseTopology(yaml, `<case: ${c.name}>`);
}

function scripted(c: Case, into: Map<string, ScriptedNode>): ModelFactory {
  return (engine, pc, index) => {
    const name = pc.pod.nodes[index]!.name as 'a' | 'b';
    const model = new ScriptedNode(engine.context(index));
    c.script[name]?.(model);
    into.set(name, model);
    return model;
  };
}

type Harness = (c: Case) => Promise<Observed>;

const HARNESSES: Record<string, Harness> = {
  'in-memory': async (c) => {
    const models = new Map<string, ScriptedNode>();
    const result = await runInproc(pod(c), { seed: 3, durationPs: c.durationPs, models: scripted(c, models) });
    return { result, a: models.get('a')!, b: models.get('b')! };
  },
  websocket: async (c) => {
    const models = new Map<string, ScriptedNode>();
    const { result } = await runInProcess(pod(c), {
      durationPs: c.durationPs,
      members: [
        { id: 'ma', nodes: ['a'] },
        { id: 'mb', nodes: ['b'] },
      ],
      models: scripted(c, models),
    });
    assert.ok(result.windows > 0, 'the WebSocket harness runs in windows');
    return { result, a: models.get('a')!, b: models.get('b')! };
  },
};

const hashes = new Map<string, Map<string, string>>();

for (const [kind, harness] of Object.entries(HARNESSES)) {
  for (const c of CASES) {
    test(`${kind} link: ${c.name}`, async () => {
      const observed = await harness(c);
      c.check(observed);
      assert.equal(observed.result.conservation, true, JSON.stringify(observed.result.packets));
      assert.equal(observed.result.causalityViolations, 0);
      const byKind = hashes.get(c.name) ?? new Map<string, string>();
      byKind.set(kind, observed.result.traceHash);
      hashes.set(c.name, byKind);
    });
  }
}

test('both kinds of link give the same trace hash in every case', () => {
  assert.equal(hashes.size, CASES.length);
  for (const [name, byKind] of hashes) {
    assert.equal(byKind.size, 2, name);
    assert.equal(byKind.get('in-memory'), byKind.get('websocket'), name);
  }
});
