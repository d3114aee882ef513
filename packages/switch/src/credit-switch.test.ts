import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine, type NodeContext, type NodeModel } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import type { Frame } from '@rocelab/wire';
import { Switch } from './switch.js';
import { H2_IP, testSwitchConfig } from './testing.js';

/** A host that never consumes: the switch's port toward it runs out of credit. */
class Sink implements NodeModel {
  readonly held: Frame[] = [];
  constructor(readonly ctx: NodeContext) {}
  nextFrame(): Frame | null {
    return null;
  }
  onFrame(_nowPs: number, _port: number, frame: Frame): void {
    this.held.push(frame);
  }
  onTimer(): void {}
  heldFrames(): number {
    return this.held.length;
  }
}

test('a switch on credit links admits what its lanes granted, never pauses and never drops: the back-pressure reaches the sender as credit', () => {
  const nodes = testNodes([
    { a: 'h1', b: 'sw', creditBlocks: 64 },
    { a: 'h2', b: 'sw', creditBlocks: 64 },
  ]); // h1 = 0, h2 = 1, sw = 2
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  const sw = new Switch(engine.context(2), testSwitchConfig(engine.context(2), { routes: [{ ip: H2_IP, ports: [1] }], settings: { bufferBytes: 1024 * 1024 } }));
  engine.attach(2, sw);
  const h1 = new ScriptedNode(engine.context(0));
  engine.attach(0, h1);
  const h2 = new Sink(engine.context(1));
  engine.attach(1, h2);
  for (let i = 0; i < 50; i++) h1.send(0, dataFrame({ dstIp: H2_IP, psn: i }));
  engine.runUntil(100_000_000);
  // h2 holds 3 frames (64 blocks of 17-block frames, stopping below one largest frame of 18);
  // the switch holds 3 more in its lane from h1; h1 keeps the rest.
  assert.equal(h2.held.length, 3);
  assert.equal(sw.heldFrames(), 3);
  assert.equal(h1.heldFrames(), 44);
  assert.ok(sw.mmu.ingressBytes(0, 3) <= 64 * 64, 'within the lane grant');
  assert.equal(sw.mmu.sharedUsedBytes(), 0, 'credit lanes are reserved, not shared');
  const stats = engine.context(2).stats;
  assert.equal(stats.ports.reduce((n, p) => n + p.pfcTx.reduce((a, b) => a + b, 0), 0), 0, 'no PAUSE');
  assert.equal(Object.values(stats.droppedByReason()).reduce((a, b) => a + b, 0), 0, 'no drop');
  assert.equal(engine.context(0).transmitters[0]!.credit!.blockedMask, 1 << 3, 'h1 waits for credit on lane 3');
  assert.equal(engine.context(2).transmitters[1]!.credit!.blockedMask, 1 << 3, 'and so does the switch toward h2');
});
