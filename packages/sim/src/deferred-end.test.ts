/**
 * A frame's end on the wire is not an event when nothing waits behind it (`Transmitter.transmit`,
 * `settle`): the same run must come out of it, frame for frame, whether the next frame is queued
 * while the wire is busy, at the very instant it frees (before or after the end in the engine's
 * order), or long after; whether a pause or a PFC frame meets it; and across windows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pfcFrame } from '@rocelab/wire';
import { Engine } from './engine.js';
import { DEFAULT_WIRE_MODEL } from './link.js';
import { dataFrame, runInWindows, ScriptedNode, scriptedPod, testNodes } from './testing.js';

/** 84 B at 40 Gb/s: one frame's time on the wire. */
const SER = 16_800;

interface Outcome {
  digests: string[];
  arrivals: string[];
  events: number;
}

/** a sends frames to b at the given instants (several at one instant: queued together); b pauses a's priority 3 at `pauseAt`. */
function scenario(deferEnds: boolean, sendAt: readonly number[], pauseAt: number | null): Outcome {
  const { engine, model } = scriptedPod([{ a: 'a', b: 'b' }]);
  const [a, b] = [model('a'), model('b')];
  a.deferEnds = b.deferEnds = deferEnds;
  sendAt.forEach((t, k) => a.at(t, () => a.send(0, dataFrame({ psn: k }))));
  if (pauseAt !== null) b.at(pauseAt, () => b.send(0, pfcFrame(0x08, [0, 0, 0, 20, 0, 0, 0, 0])));
  engine.runUntil(10_000_000);
  return {
    digests: [0, 1].map((i) => Buffer.from(engine.digest(i)).toString('hex')),
    arrivals: b.received.map((r) => `${r.frame.psn}@${r.timePs}`),
    events: engine.eventsProcessed(0) + engine.eventsProcessed(1),
  };
}

test('deferred frame ends: the next frame queued during, exactly at, just after and long after an end gives the run an eager engine gives', () => {
  const cases: Array<[string, number[], number | null]> = [
    ['during', [0, SER / 2, SER / 2 + 1], null],
    ['at the end instant', [0, SER, 2 * SER, 2 * SER], null],
    ['just after', [0, SER + 1, 2 * SER + 2], null],
    ['long after', [0, 1_000_000, 2_000_000], null],
    ['a pause arriving while the wire is busy', [0, 1000, 30_000], 0],
    ['a pause arriving after the end', [0, 2_000_000, 2_000_000 + SER], 1_500_000],
  ];
  for (const [name, sendAt, pauseAt] of cases) {
    const eager = scenario(false, sendAt, pauseAt);
    const deferred = scenario(true, sendAt, pauseAt);
    assert.deepEqual(deferred.arrivals, eager.arrivals, name);
    assert.deepEqual(deferred.digests, eager.digests, name);
    assert.ok(deferred.events <= eager.events, `${name}: ${deferred.events} events deferred, ${eager.events} eager`);
  }
  const idle = [scenario(false, [0, 1_000_000, 2_000_000], null), scenario(true, [0, 1_000_000, 2_000_000], null)];
  assert.equal(idle[0]!.events - idle[1]!.events, 3, 'three lone frames: three ends never scheduled');
});

test('deferred frame ends across windows: engines that each host one node give the one-engine hashes', () => {
  const nodes = testNodes([{ a: 'a', b: 'b' }, { a: 'b', b: 'c' }]);
  const populate = (engine: Engine, hosted: number[]) => {
    for (const i of hosted) {
      const m = new ScriptedNode(engine.context(i));
      engine.attach(i, m);
      if (i === 0) for (let k = 0; k < 40; k++) m.at(k * 70_001, () => m.send(0, dataFrame({ psn: k })));
      if (i === 1) m.forward.set(0, 1);
    }
  };
  const one = new Engine({ seed: 1, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  populate(one, [0, 1, 2]);
  one.runUntil(5_000_000);
  const split = [0, 1, 2].map((i) => new Engine({ seed: 1, nodes, hosted: [i], wire: DEFAULT_WIRE_MODEL }));
  split.forEach((e, i) => populate(e, [i]));
  runInWindows(split, nodes, 1_016_800, 5_000_000);
  for (const i of [0, 1, 2]) assert.deepEqual(split[i]!.digest(i), one.digest(i), `node ${i}`);
});
