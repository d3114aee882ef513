import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameBytes, pfcFrame, type Frame } from '@rocelab/wire';
import { creditBlocks } from './credit-flow.js';
import { Engine } from './engine.js';
import { DEFAULT_WIRE_MODEL } from './link.js';
import type { NodeContext, NodeModel } from './node.js';
import { dataFrame, runInWindows, ScriptedNode, testNodes } from './testing.js';

// a ——credit link, lanes of 64 blocks (4 KiB)—— b. A 1024 B WRITE MIDDLE is 1086 B = 17 blocks,
// and a lane stops when it holds less than the link's largest frame (1106 B, RETH + ImmDt = 18 blocks).
const BLOCKS = 64;
const FRAME = dataFrame();
const FRAME_BLOCKS = creditBlocks(frameBytes(FRAME));

/** A receiver that keeps what arrives until told to consume it (a slow host). */
class Holder implements NodeModel {
  readonly held: Frame[] = [];
  consumed = 0;
  constructor(readonly ctx: NodeContext) {}
  nextFrame(): Frame | null {
    return null;
  }
  onFrame(_nowPs: number, _port: number, frame: Frame): void {
    this.held.push(frame);
  }
  onTimer(): void {
    this.consume(this.held.length);
  }
  consume(n: number): void {
    for (const frame of this.held.splice(0, n)) {
      this.ctx.deliver(frame);
      this.consumed++;
    }
  }
  heldFrames(): number {
    return this.held.length;
  }
}

function pod(hostedApart = false) {
  const nodes = testNodes([{ a: 'a', b: 'b', creditBlocks: BLOCKS }]);
  const engines = hostedApart
    ? [new Engine({ seed: 1, nodes, hosted: [0], wire: DEFAULT_WIRE_MODEL }), new Engine({ seed: 1, nodes, hosted: [1], wire: DEFAULT_WIRE_MODEL })]
    : [new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL })];
  const engineOf = (i: number) => engines.find((e) => e.hostedIndices.includes(i))!;
  const a = new ScriptedNode(engineOf(0).context(0));
  engineOf(0).attach(0, a);
  const b = new Holder(engineOf(1).context(1));
  engineOf(1).attach(1, b);
  return { nodes, engines, a, b, ea: engineOf(0), eb: engineOf(1) };
}

test('a sender stops at its grant, waits (counted per lane) without any pause, and resumes when the receiver frees its buffer', () => {
  const { engines, a, b, ea, eb } = pod();
  assert.equal(FRAME_BLOCKS, 17);
  for (let i = 0; i < 20; i++) a.send(0, dataFrame({ psn: i }));
  const [engine] = engines;
  engine!.runUntil(20_000_000);
  // 64 → 47 → 30 → 13 blocks: three frames, then lane 3 holds less than one largest frame (18).
  assert.equal(b.held.length, 3, 'only what the grant covers');
  const txA = ea.context(0).transmitters[0]!;
  assert.equal(txA.credit!.blockedMask, 1 << 3, 'lane 3 (DSCP 26) masked');
  assert.ok(txA.credit!.waitPs(3, 20_000_000) > 18_000_000, 'waiting since the third frame started');
  assert.equal(eb.context(1).transmitters[0]!.credit!.heldBlocks(3), 3 * FRAME_BLOCKS);
  // b consumes everything at 20 µs: one update goes back (1 µs + 64 B), and three more frames come.
  b.ctx.setTimer(0, 20_000_000);
  engine!.runUntil(40_000_000);
  assert.equal(b.consumed, 3);
  assert.equal(b.held.length, 3);
  const rxB = eb.context(1).transmitters[0]!.credit!;
  assert.equal(rxB.updatesSent, 2, 'the first give-back goes out at once; the next two coalesce into one update while it is on the wire');
  assert.equal(txA.credit!.updatesReceived, 2);
  const stats = [ea.context(0).stats, eb.context(1).stats];
  assert.equal(stats[0]!.ports[0]!.pfcTx.reduce((x, y) => x + y, 0) + stats[1]!.ports[0]!.pfcTx.reduce((x, y) => x + y, 0), 0, 'no PFC frame at all');
  // Conservation: 20 sent by a and 2 updates by b = delivered (3 consumed + 2 updates) + queued.
  const sent = stats[0]!.sent + stats[1]!.sent;
  const delivered = stats[0]!.delivered + stats[1]!.delivered;
  assert.equal(sent, 22);
  assert.equal(delivered, 5);
  assert.equal(sent, delivered + engine!.heldFrames(0) + engine!.heldFrames(1));
});

test('a credit link has no pause frames: a PFC frame the model sends there is neither sent nor counted', () => {
  const { engines, a, ea } = pod();
  a.send(0, pfcFrame(1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0]));
  engines[0]!.runUntil(5_000_000);
  assert.equal(ea.context(0).stats.sent, 0);
  assert.equal(ea.context(0).transmitters[0]!.pfcSuppressed, 1);
  assert.equal(ea.context(0).stats.ports[0]!.txFrames, 0);
});

test('credit updates cross processes like any frame: the same deliveries and waits when a and b run in separate engines in windows', () => {
  const run = (apart: boolean) => {
    const { engines, nodes, a, b, ea } = pod(apart);
    for (let i = 0; i < 30; i++) a.send(0, dataFrame({ psn: i }));
    for (let k = 1; k <= 5; k++) b.ctx.setTimer(k, k * 10_000_000);
    runInWindows(engines, nodes, 1_000_000, 60_000_000);
    const tx = ea.context(0).transmitters[0]!;
    return { consumed: b.consumed, held: b.held.map((f) => f.psn), waitPs: tx.credit!.waitPs(3, 60_000_000), updates: tx.credit!.updatesReceived };
  };
  const together = run(false);
  assert.equal(together.consumed, 15, 'three frames per consumption, five consumptions');
  assert.deepEqual(run(true), together);
});
