import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pfcFrame, type Frame } from '@rocelab/wire';
import { Engine } from './engine.js';
import { DEFAULT_WIRE_MODEL } from './link.js';
import { ScriptedNode, dataFrame, testNodes } from './testing.js';

// Regression: `transmitter: serialization finished while idle` (the PFC-deadlock drill,
// test/fixtures/drills/deadlock-flooding.yaml). A leaf received a flooded lossless copy from its
// ToR and routed it back out of the same port. When its transmitter pulled that packet, the
// dequeue released the packet's ingress group — the same port — below XON, and the switch sent a
// resume on that port from inside `nextFrame`. The sequence on one transmitter, all at one
// instant:
//   1. kick → idle → startNext → source.nextFrame (the state still says idle)
//   2.   inside it: sendControl(resume) → kick → idle → startNext → the resume starts: busy, `done` #1
//   3. nextFrame returns the data packet → it starts too: `done` #2, two frames on one wire
//   4. `done` #1 (after 16.8 ns) → idle; `done` #2 (after 221.2 ns) finds the transmitter idle → throw.
// The transmitter must not be re-entered while it pulls: a PFC frame queued during the pull goes
// out right after the frame the pull returned (MAC control waits for the frame in progress).

// 40 Gb/s: a 1024 B WRITE middle packet is 1106 B on the wire = 221,200 ps; a PFC frame 84 B = 16,800 ps.
const DATA_PS = 221_200;
const PFC_PS = 16_800;
const LATENCY_PS = 1_000_000;

const resume = (priority: number): Frame => pfcFrame(1 << priority, [0, 0, 0, 0, 0, 0, 0, 0]);

/** A scripted node that, like a switch whose dequeue crosses XON on the same port, sends a resume from inside `nextFrame`. */
class ResumeOnDequeue extends ScriptedNode {
  /** Resumes to send from pulls that find nothing (a source may queue control and return null). */
  onEmptyPull = 0;

  override nextFrame(port: number, nowPs: number, pausedMask: number): Frame | null {
    const frame = super.nextFrame(port, nowPs, pausedMask);
    if (frame !== null) this.ctx.sendControl(port, resume(3));
    else if (this.onEmptyPull > 0) {
      this.onEmptyPull--;
      this.ctx.sendControl(port, resume(3));
    }
    return frame;
  }
}

function pod(): { engine: Engine; a: ResumeOnDequeue; b: ScriptedNode } {
  const nodes = testNodes([{ a: 'a', b: 'b' }]);
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1], wire: DEFAULT_WIRE_MODEL });
  const a = new ResumeOnDequeue(engine.context(0));
  const b = new ScriptedNode(engine.context(1));
  engine.attach(0, a);
  engine.attach(1, b);
  return { engine, a, b };
}

test('a PFC frame sent from inside the pull waits for the pulled frame: one frame on the wire, one done per frame', () => {
  const { engine, a, b } = pod();
  a.send(0, dataFrame({ psn: 1 }));
  a.send(0, dataFrame({ psn: 2 }));
  assert.doesNotThrow(() => engine.runUntil(10_000_000));
  // data 1, resume, data 2, resume — back to back, each after the previous one's last bit.
  assert.deepEqual(b.received.map((r) => r.timePs), [DATA_PS + LATENCY_PS, 2 * DATA_PS + PFC_PS + LATENCY_PS]);
  const stats = engine.context(0).stats.ports[0]!;
  assert.equal(stats.txFrames, 4);
  assert.equal(stats.pfcTx[3], 2);
  assert.equal(engine.context(0).transmitters[0]!.busy, false);
  assert.deepEqual(b.pfcReceived.map((r) => r.timePs), [DATA_PS + PFC_PS + LATENCY_PS, 2 * (DATA_PS + PFC_PS) + LATENCY_PS]);
  assert.equal(engine.nextEventPs(), null);
});

test('a PFC frame queued by a pull that returns nothing goes out at once', () => {
  const { engine, a, b } = pod();
  a.onEmptyPull = 1;
  a.at(5_000_000, () => engine.context(0).kick(0));
  assert.doesNotThrow(() => engine.runUntil(10_000_000));
  assert.deepEqual(b.pfcReceived.map((r) => r.timePs), [5_000_000 + PFC_PS + LATENCY_PS]);
  assert.equal(engine.context(0).stats.ports[0]!.pfcTx[3], 1);
  assert.equal(engine.context(0).transmitters[0]!.busy, false);
});
