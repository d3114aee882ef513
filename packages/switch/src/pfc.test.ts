import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataFrame } from '@rocelab/sim/testing';
import { pfcFrame } from '@rocelab/wire';
import { H2_IP as IP_H2, switchPair } from './testing.js';

// h1 —40G, 1 µs— sw —40G, 1 µs— h2. Frames are WRITE MIDDLE: 1086 B, 221,200 ps on the wire;
// a PFC frame 84 B = 16,800 ps; one quantum 12,800 ps, so 0xFFFF quanta = 838,848,000 ps and the
// switch refreshes a standing pause every half of that: 419,424,000 ps.
const DATA = 221_200;
const PFC = 16_800;
const LAT = 1_000_000;
const HALF_PAUSE = 419_424_000;
const FRAME = 1086;

/**
 * Static thresholds make the crossing points exact: XOFF at 5 frames (5,430 B) above a zero
 * reserve, XON at 2 frames (2,172 B). The watchdog is off: h2 pauses sw on purpose.
 */
const pod = () =>
  switchPair({
    settings: { reserveBytes: 0, xoffBytes: 5 * FRAME, xonBytes: 2 * FRAME, watchdog: { enabled: false, ports: 'all', action: 'drop', detectionPs: 1, restorationPs: 1, pollPs: 1 } },
  });

const pause = (quanta: number) => pfcFrame(1 << 3, [0, 0, 0, quanta, 0, 0, 0, 0]);

test('XOFF, refreshes and XON happen at the exact picoseconds the thresholds imply', () => {
  const { engine, sw, h1, h2 } = pod();
  // h2 holds sw's port to it paused from the start (its pause reaches sw at 1,016,800 ps, before any
  // data) and renews it every 400 µs, then resumes it at 1 ms.
  for (let t = 0; t < 1e9; t += 400_000_000) h2.at(t, () => h2.send(0, pause(0xffff)));
  h2.at(1e9, () => h2.send(0, pause(0)));
  for (let k = 0; k < 40; k++) h1.send(0, dataFrame({ dstIp: IP_H2, psn: k }));
  engine.runUntil(1_100_000_000);

  // Data reaches sw at 1,221,200 + k·221,200 and queues; the 5th frame (k = 4, at 2,106,000)
  // brings the group to 5,430 B: XOFF there, the pause reaching h1 one PFC frame and 1 µs later.
  const xoff = 1_221_200 + 4 * DATA;
  assert.equal(xoff, 2_106_000);
  // h1 started frames k with k·221,200 < 3,122,800: k = 0..14, so 15 frames wait at sw.
  // The resume from h2 reaches sw at R = 1 ms + 16,800 + 1 µs; sw then sends one frame every
  // 221,200 ps and XON comes when 2 frames are left: after its 13th departure (k = 12).
  const resumeAtSw = 1e9 + PFC + LAT;
  const xon = resumeAtSw + 12 * DATA;
  assert.equal(xon, 1_003_671_200);
  assert.deepEqual(
    h1.pfcReceived.map((r) => [r.timePs, r.frame.pfcQuanta[3]]),
    [
      [xoff + PFC + LAT, 0xffff],
      [xoff + HALF_PAUSE + PFC + LAT, 0xffff],
      [xoff + 2 * HALF_PAUSE + PFC + LAT, 0xffff],
      [xon + PFC + LAT, 0],
    ],
  );
  assert.equal(sw.pfc.pausingPs(0, 3, 1_100_000_000), xon - xoff);
  assert.equal(engine.context(0).transmitters[0]!.pausedPs(3, 1_100_000_000), xon - xoff, 'h1 was held exactly as long');
  // h1 resumes when the XON arrives: frame 15 starts then and reaches sw one frame and 1 µs later.
  const k15 = h2.received.find((r) => r.frame.psn === 15)!;
  assert.equal(k15.timePs, xon + PFC + LAT + DATA + LAT + DATA + LAT);
  assert.equal(engine.context(2).stats.droppedTotal(), 0);
});
