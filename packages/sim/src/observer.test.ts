import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Engine, type EngineObserver } from './engine.js';
import { DEFAULT_WIRE_MODEL } from './link.js';
import { dataFrame, runInWindows, ScriptedNode, testNodes, type TestLink } from './testing.js';

const LINE: TestLink[] = [
  { a: 'a', b: 'b' },
  { a: 'b', b: 'c', latencyPs: 2_000_000 },
];

/** a sends 20 frames to c through b, one every 300 ns. */
function populate(engine: Engine, hosted: number[]): void {
  for (const i of hosted) {
    const model = new ScriptedNode(engine.context(i));
    engine.attach(i, model);
    if (i === 0) for (let k = 0; k < 20; k++) model.at(k * 300_000, () => model.send(0, dataFrame({ psn: k })));
    if (i === 1 && model.ctx.ports.length > 1) model.forward.set(0, 1);
  }
}

/** What an observer and a 1 µs sampler saw: transmissions, arrivals, and per-grid received-frame counts. */
function watch(engine: Engine, hosted: number[], log: string[]): void {
  const observer: EngineObserver = {
    onTransmit: (node, port, t, f) => log.push(`tx ${t} ${node}:${port} psn ${f.psn}`),
    onArrive: (node, port, t, f) => log.push(`rx ${t} ${node}:${port} psn ${f.psn}`),
  };
  engine.observe(observer);
  engine.addSampler({
    startPs: 500_000,
    periodPs: 1_000_000,
    sample: (t) => {
      for (const i of hosted) log.push(`grid ${t} ${i} ${engine.context(i).stats.ports.reduce((n, p) => n + p.rxFrames, 0)}`);
    },
  });
}

const sortedByNode = (log: string[]) => [...log].sort();

test('an observer and a sampler see the same things in one engine and in windows, and never change the hash', () => {
  const nodes = testNodes(LINE);
  const plain = new Engine({ seed: 1, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  populate(plain, [0, 1, 2]);
  plain.runUntil(12_000_000);

  const oneLog: string[] = [];
  const one = new Engine({ seed: 1, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  populate(one, [0, 1, 2]);
  watch(one, [0, 1, 2], oneLog);
  one.runUntil(12_000_000);
  for (const i of [0, 1, 2]) assert.deepEqual(one.digest(i), plain.digest(i), `node ${i}: observing changed the trace`);

  const splitLog: string[] = [];
  const split = [0, 1, 2].map((i) => new Engine({ seed: 1, nodes, hosted: [i], wire: DEFAULT_WIRE_MODEL }));
  split.forEach((e, i) => {
    populate(e, [i]);
    watch(e, [i], splitLog);
  });
  runInWindows(split, nodes, 1_016_800, 12_000_000);
  assert.deepEqual(sortedByNode(splitLog), sortedByNode(oneLog));
  // 20 frames leave a, arrive at b, leave b and arrive at c; grid points 0.5, 1.5, … 11.5 µs at 3 nodes.
  assert.equal(oneLog.filter((l) => l.startsWith('tx')).length, 40);
  assert.equal(oneLog.filter((l) => l.startsWith('rx')).length, 40);
  assert.equal(oneLog.filter((l) => l.startsWith('grid')).length, 12 * 3);
});

test('a grid sample at t sees every event before t and none at t', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  populate(engine, [0, 1]);
  // The first frame (1,106 B at 40G: 221.2 ns, then 1 µs) arrives at b at exactly 1,221,200 ps.
  const seen: Array<[number, number]> = [];
  engine.addSampler({ startPs: 1_221_200, periodPs: 1, sample: (t) => seen.length < 2 && seen.push([t, engine.context(1).stats.ports[0]!.rxFrames]) });
  engine.runUntil(2_000_000);
  assert.deepEqual(seen, [
    [1_221_200, 0],
    [1_221_201, 1],
  ]);
});

test('a sampler added late starts at its next grid point; bad periods are refused', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  populate(engine, [0, 1]);
  engine.runUntil(2_500_000);
  const times: number[] = [];
  engine.addSampler({ startPs: 0, periodPs: 1_000_000, sample: (t) => times.push(t) });
  engine.runUntil(5_000_000);
  assert.deepEqual(times, [3_000_000, 4_000_000, 5_000_000]);
  assert.throws(() => engine.addSampler({ startPs: 0, periodPs: 0, sample: () => undefined }), /sampler period must be a positive integer/);
});
