import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameKind, newFrame } from '@rocelab/wire';
import { Engine } from './engine.js';
import { DEFAULT_WIRE_MODEL } from './link.js';
import { dataFrame, runInWindows, ScriptedNode, scriptedPod, testNodes, type TestLink } from './testing.js';

/** a — b — c; b forwards both ways; b → c is 10G, so b queues what a sends at 40G. */
const LINE: TestLink[] = [
  { a: 'a', b: 'b' },
  { a: 'b', b: 'c', rateBps: 10e9 },
];
const A = 0;
const B = 1;
const C = 2;
/** A 1,024 B frame on 40G: (1024 + 62 + 20) B × 8 / 40e9. */
const SER_40G = 221_200;
const LATENCY = 1_000_000;

function audit(engine: Engine): { sent: number; delivered: number; dropped: number; queued: number; lost: number } {
  let sent = 0;
  let delivered = 0;
  let dropped = 0;
  let queued = 0;
  let lost = 0;
  for (const i of engine.hostedIndices) {
    const stats = engine.context(i).stats;
    sent += stats.sent;
    delivered += stats.delivered;
    dropped += stats.droppedTotal();
    lost += stats.droppedByReason().node_lost;
    queued += engine.heldFrames(i);
  }
  return { sent, delivered, dropped, queued, lost };
}

function assertConserved(engine: Engine): void {
  const a = audit(engine);
  assert.equal(a.sent, a.delivered + a.dropped + a.queued, JSON.stringify(a));
}

/** Both ends of every link of `node` down (or up) at `atPs`, as the kill and restart faults do. */
function links(engine: Engine, nodes: ReturnType<typeof testNodes>, node: number, atPs: number, up: boolean, seq: number): void {
  for (const port of nodes[node]!.ports) {
    engine.scheduleLinkState(atPs, seq++, node, port.index, up);
    engine.scheduleLinkState(atPs, seq++, port.peerNode, port.peerPort, up);
  }
}

function streamFromA(model: ScriptedNode, count: number, gapPs = 0): void {
  for (let k = 0; k < count; k++) model.at(k * gapPs, () => model.send(0, dataFrame({ psn: k })));
}

test('a kill counts what the node holds as node_lost; conservation holds before, at and after; its held frames read 0', () => {
  const { engine, nodes, model } = scriptedPod(LINE);
  model('b').forward.set(0, 1);
  streamFromA(model('a'), 40);
  engine.onRestart((i) => new ScriptedNode(engine.context(i)));
  engine.scheduleKill(5_000_000, 0, B, 0, 'kill b');
  links(engine, nodes, B, 5_000_000, false, 1);
  engine.runUntil(5_000_000);
  assertConserved(engine);
  const queuedAtB = engine.model(B)!.heldFrames();
  assert.ok(queuedAtB > 5, `b queues on its 10G egress (${queuedAtB} frames)`);
  engine.runUntil(5_000_001);
  const after = audit(engine);
  assert.equal(after.lost, queuedAtB, 'every frame b held is node_lost');
  assert.equal(engine.model(B), null);
  assert.equal(engine.alive(B), false);
  assert.equal(engine.retiredModels(B).length, 1);
  assertConserved(engine);
  engine.runUntil(50_000_000);
  assertConserved(engine);
  const end = audit(engine);
  assert.equal(end.queued, 0);
  // a's frames still on the wire toward b when it died are lost to the dead node, not to the link.
  const lostAtB = engine.context(B).stats.ports[0]!.dropped;
  assert.ok(end.lost > queuedAtB, 'frames in flight toward the dead b are node_lost too');
  assert.ok(lostAtB.reduce((x, y) => x + y, 0) > 0);
  assert.ok(engine.context(A).stats.droppedByReason().link_down > 0, 'a keeps starting frames on the down link: link_down');
});

test('arrivals at a dead node are dropped node_lost even while its links are up; nothing reaches its model', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  streamFromA(model('a'), 20, 500_000);
  const b = model('b');
  engine.scheduleKill(3_000_000, 0, 1, 7);
  engine.runUntil(20_000_000);
  const before = b.received.length;
  assert.ok(before > 0 && before < 20);
  assert.ok(b.received.every((r) => r.timePs < 3_000_000));
  assert.equal(engine.context(1).stats.droppedByReason().node_lost, 20 - before);
  assertConserved(engine);
});

test('a dead node ignores its old timers; a restart gives a fresh model whose own timers fire', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const fired: string[] = [];
  const old = model('b');
  old.at(2_000_000, () => fired.push('old@2us'));
  old.at(8_000_000, () => fired.push('old@8us'));
  let fresh: ScriptedNode | null = null;
  engine.onRestart((i) => {
    fresh = new ScriptedNode(engine.context(i));
    // timer 0 is the number the old model used for its 2 µs action: a fresh arming, not the stale one.
    fresh.at(9_000_000, () => fired.push('new@9us'));
    return fresh;
  });
  engine.scheduleKill(3_000_000, 0, 1, 0);
  engine.scheduleRestart(5_000_000, 1, 1, 0);
  engine.runUntil(20_000_000);
  assert.deepEqual(fired, ['old@2us', 'new@9us']);
  assert.notEqual(fresh, null);
  assert.equal(engine.model(1), fresh);
  assert.deepEqual(engine.retiredModels(1), [old]);
  assert.equal(engine.alive(1), true);
});

test('the frame being serialized at the kill is already on the wire; the stale done event does not end the next life\'s frame', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const a = model('a');
  a.at(0, () => a.send(0, dataFrame({ psn: 1 })));
  engine.onRestart((i) => {
    const fresh = new ScriptedNode(engine.context(i));
    fresh.send(0, dataFrame({ psn: 2 }));
    fresh.send(0, dataFrame({ psn: 3 }));
    return fresh;
  });
  engine.scheduleKill(100_000, 0, 0, 0); // mid-serialization of psn 1 (done at 221,200 ps)
  engine.scheduleRestart(150_000, 1, 0, 0); // still before the old done
  engine.runUntil(10_000_000);
  const arrivals = model('b').received.map((r) => [r.frame.psn, r.timePs]);
  assert.deepEqual(arrivals, [
    [1, SER_40G + LATENCY],
    [2, 150_000 + SER_40G + LATENCY],
    [3, 150_000 + 2 * SER_40G + LATENCY],
  ]);
  assert.equal(engine.context(0).stats.droppedByReason().node_lost, 0);
  assertConserved(engine);
});

test('a PFC frame waiting behind the frame in progress is node_lost on its port; the peer forgets pauses from the dead node', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const a = model('a');
  const b = model('b');
  const pause = () => newFrame(FrameKind.pfc, { pfcEnable: 1 << 3, pfcQuanta: [0, 0, 0, 0xffff, 0, 0, 0, 0] });
  b.at(0, () => b.send(0, pause()));
  a.at(0, () => a.send(0, dataFrame()));
  a.at(50_000, () => a.send(0, pause())); // waits for the data frame in progress
  engine.scheduleKill(100_000, 0, 0, 0);
  engine.runUntil(100_001);
  assert.equal(engine.context(0).stats.ports[0]!.dropped.reduce((x, y) => x + y, 0), 1);
  assert.equal(engine.context(0).stats.droppedByReason().node_lost, 1);
  engine.runUntil(2_000_000);
  // b's pause reached the dead a: node_lost; a's data frame reached b.
  assert.equal(engine.context(0).stats.droppedByReason().node_lost, 2);
  assert.equal(b.received.length, 1);
  assertConserved(engine);

  // The other way round: b pauses a, then b dies and its links go down: a is no longer held.
  const pod = scriptedPod([{ a: 'a', b: 'b' }]);
  const pb = pod.model('b');
  pb.at(0, () => pb.send(0, pause()));
  pod.engine.scheduleKill(3_000_000, 0, 1, 0);
  links(pod.engine, pod.nodes, 1, 3_000_000, false, 1);
  pod.engine.runUntil(2_000_000);
  assert.equal(pod.engine.context(0).transmitters[0]!.pausedMask(2_000_000), 1 << 3, 'a is paused by b');
  pod.engine.runUntil(3_000_001);
  assert.equal(pod.engine.context(0).transmitters[0]!.pausedMask(3_000_001), 0, 'the link went down with b: a forgets the pause');
});

test('kill and restart give the same node hashes in one engine and in three engines in windows', () => {
  const nodes = testNodes(LINE);
  const build = (hosted: number[]) => {
    const engine = new Engine({ seed: 1, nodes, hosted, wire: DEFAULT_WIRE_MODEL });
    engine.onRestart((i) => {
      const fresh = new ScriptedNode(engine.context(i));
      fresh.forward.set(0, 1);
      fresh.forward.set(1, 0);
      return fresh;
    });
    for (const i of hosted) {
      const m = new ScriptedNode(engine.context(i));
      engine.attach(i, m);
      if (i === A) streamFromA(m, 60, 400_000);
      if (i === B) {
        m.forward.set(0, 1);
        m.forward.set(1, 0);
      }
      if (i === C) m.at(1_000_000, () => m.send(0, dataFrame({ dscp: 0 })));
    }
    // b dies at 6 µs and comes back at 10 µs, links down and up at both ends.
    if (hosted.includes(B)) {
      engine.scheduleKill(6_000_000, 0, B, 0);
      engine.scheduleRestart(10_000_000, 100, B, 0);
    }
    for (const port of nodes[B]!.ports) {
      for (const [n, p, seq] of [[B, port.index, 1 + 2 * port.index], [port.peerNode, port.peerPort, 2 + 2 * port.index]] as const) {
        if (!hosted.includes(n)) continue;
        engine.scheduleLinkState(6_000_000, seq, n, p, false);
        engine.scheduleLinkState(10_000_000, 100 + seq, n, p, true);
      }
    }
    return engine;
  };
  const one = build([A, B, C]);
  one.runUntil(40_000_000);
  const split = [[A], [B], [C]].map(build);
  runInWindows(split, nodes, 1_016_800, 40_000_000);
  const digest = (engines: Engine[], i: number) => Buffer.from(engines.find((e) => e.hostedIndices.includes(i))!.digest(i)).toString('hex');
  for (const i of [A, B, C]) assert.equal(digest(split, i), digest([one], i), nodes[i]!.name);
  const lost = (engines: Engine[]) => engines.reduce((n, e) => n + e.hostedIndices.reduce((m, i) => m + e.context(i).stats.droppedByReason().node_lost, 0), 0);
  assert.ok(lost([one]) > 0);
  assert.equal(lost(split), lost([one]));
  assertConserved(one);
  // After the restart the fresh b forwards again: a's later frames reach c.
  const c = one.model(C) as ScriptedNode;
  assert.ok(c.received.some((r) => r.timePs > 12_000_000));
});

test('a restart that names another kill, or finds the node alive, does nothing', () => {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  let built = 0;
  engine.onRestart((i) => {
    built++;
    return new ScriptedNode(engine.context(i));
  });
  engine.scheduleRestart(1_000_000, 0, 1, null); // alive: nothing
  engine.scheduleKill(2_000_000, 1, 1, 5);
  engine.scheduleRestart(3_000_000, 2, 1, 4); // undoes kill 4, not 5: nothing
  engine.scheduleRestart(4_000_000, 3, 1, 5);
  engine.runUntil(5_000_000);
  assert.equal(built, 1);
  assert.notEqual(engine.model(1), model('b'));
});

test('a restart without a registered factory is a configuration error', () => {
  const { engine } = scriptedPod([{ a: 'a', b: 'b' }]);
  engine.scheduleKill(1, 0, 1, 0);
  engine.scheduleRestart(2, 1, 1, 0);
  assert.throws(() => engine.runUntil(3), /no model factory/);
});
