import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Engine, EngineError } from './engine.js';
import { DEFAULT_WIRE_MODEL } from './link.js';
import type { NodeModel } from './node.js';
import { dataFrame, runInWindows, ScriptedNode, scriptedPod, testNodes, type TestLink } from './testing.js';

const LINE: TestLink[] = [
  { a: 'a', b: 'b' },
  { a: 'b', b: 'c', latencyPs: 2_000_000 },
];

/** a streams 50 frames to c through b (b forwards port 0 → port 1), c answers each 10th. */
function populate(engine: Engine, names: string[], hosted: number[]): void {
  for (const i of hosted) {
    const model = new ScriptedNode(engine.context(i));
    engine.attach(i, model);
    if (names[i] === 'a') for (let k = 0; k < 50; k++) model.at(k * 300_000, () => model.send(0, dataFrame({ psn: k })));
    if (names[i] === 'b') {
      model.forward.set(0, 1);
      model.forward.set(1, 0);
    }
    if (names[i] === 'c') model.at(5_000_000, () => model.send(0, dataFrame({ psn: 999, dscp: 0 })));
  }
}

function digests(engines: Engine[], count: number): string[] {
  const byNode: string[] = [];
  for (const e of engines) for (const i of e.hostedIndices) byNode[i] = Buffer.from(e.digest(i)).toString('hex');
  assert.equal(byNode.filter(Boolean).length, count);
  return byNode;
}

test('one engine or three engines in conservative windows: every node hashes the same events', () => {
  const nodes = testNodes(LINE);
  const names = nodes.map((n) => n.name);
  const one = new Engine({ seed: 1, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  populate(one, names, [0, 1, 2]);
  one.runUntil(40_000_000);

  // Window = smallest lookahead between engines: 1 µs + 84 B at 40G.
  const split = [0, 1, 2].map((i) => new Engine({ seed: 1, nodes, hosted: [i], wire: DEFAULT_WIRE_MODEL }));
  split.forEach((e, i) => populate(e, names, [i]));
  const windows = runInWindows(split, nodes, 1_016_800, 40_000_000);
  assert.ok(windows > 30);
  assert.deepEqual(digests(split, 3), digests([one], 3));
  assert.equal(split.reduce((n, e) => n + e.hostedIndices.reduce((m, i) => m + e.context(i).stats.causalityViolations, 0), 0), 0);

  const pairs = [new Engine({ seed: 1, nodes, hosted: [0, 2], wire: DEFAULT_WIRE_MODEL }), new Engine({ seed: 1, nodes, hosted: [1], wire: DEFAULT_WIRE_MODEL })];
  populate(pairs[0]!, names, [0, 2]);
  populate(pairs[1]!, names, [1]);
  runInWindows(pairs, nodes, 1_016_800, 40_000_000);
  assert.deepEqual(digests(pairs, 3), digests([one], 3));
});

test('a 1 ps change of one latency changes the hash; the seed alone does not when nothing draws', () => {
  const run = (links: TestLink[], seed: number) => {
    const nodes = testNodes(links);
    const e = new Engine({ seed, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
    populate(e, nodes.map((n) => n.name), [0, 1, 2]);
    e.runUntil(40_000_000);
    return digests([e], 3).join('');
  };
  const base = run(LINE, 1);
  assert.notEqual(run([LINE[0]!, { ...LINE[1]!, latencyPs: 2_000_001 }], 1), base);
  assert.equal(run(LINE, 2), base);
});

test('a frame fed into a window already executed is a causality violation: counted, dropped, never processed', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [1], wire: DEFAULT_WIRE_MODEL });
  const b = new ScriptedNode(engine.context(1));
  engine.attach(1, b);
  engine.runUntil(10_000_000);
  engine.deliverRemote(1, 0, { frames: [dataFrame(), dataFrame()], arrivalPs: [9_999_999, 10_000_000], originSeq: [1, 2], fcsBad: [false, false] });
  engine.runUntil(20_000_000);
  const stats = engine.context(1).stats;
  assert.equal(stats.causalityViolations, 1);
  assert.equal(stats.droppedByReason().causality, 1);
  assert.deepEqual(b.received.map((r) => r.timePs), [10_000_000]);
});

test('held frames are enumerated from queues, pending arrivals and PFC backlogs', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  for (let i = 0; i < 10; i++) model('a').send(0, dataFrame());
  engine.runUntil(1_500_000); // first frame arrived at 1,221,200; second in flight; 8 queued
  const held = engine.heldFrames(0) + engine.heldFrames(1);
  const sent = engine.context(0).stats.sent;
  const delivered = engine.context(1).stats.delivered;
  assert.equal(sent, 10);
  assert.equal(delivered, 2); // 1,221,200 and 1,442,400
  assert.equal(held, 8);
  assert.equal(sent, delivered + held);
});

test('setting a timer replaces its deadline; a cancelled timer never fires', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const fired: string[] = [];
  const model = (name: string): NodeModel => ({
    nextFrame: () => null,
    onFrame: () => undefined,
    onTimer: (now, timer) => fired.push(`${name}:${timer}@${now}`),
    heldFrames: () => 0,
  });
  engine.attach(0, model('a'));
  engine.attach(1, model('b'));
  const a = engine.context(0);
  a.setTimer(0, 100);
  a.setTimer(0, 50);
  a.setTimer(1, 70);
  a.cancelTimer(1);
  engine.context(1).setTimer(0, 50);
  engine.runUntil(1000);
  assert.deepEqual(fired, ['a:0@50', 'b:0@50']);
  assert.equal(a.timerDeadlinePs(0), null);
  assert.throws(() => a.setTimer(0, 10), /before now/);
});

test('a model that schedules forever at one instant is reported as a livelock', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL, maxEventsPerInstant: 1000 });
  const ctx = engine.context(0);
  engine.attach(0, { nextFrame: () => null, onFrame: () => undefined, onTimer: (now) => ctx.setTimer(0, now), heldFrames: () => 0 });
  engine.attach(1, { nextFrame: () => null, onFrame: () => undefined, onTimer: () => undefined, heldFrames: () => 0 });
  ctx.setTimer(0, 5);
  assert.throws(() => engine.runUntil(10), (err: unknown) => err instanceof EngineError && err.code === 'livelock');
});

test('an engine refuses to run a hosted node without a model', () => {
  const engine = new Engine({ seed: 1, nodes: testNodes([{ a: 'a', b: 'b' }]), hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  assert.throws(() => engine.runUntil(1), /has no model/);
});
