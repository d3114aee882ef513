import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataFrame } from '@rocelab/sim/testing';
import { pfcFrame } from '@rocelab/wire';
import { hpccHeadroomBytes, mlx5XoffBytes, pauseLoopLatencyPs, vendorHeadroomBytes } from '@rocelab/sim';
import { planSwitch } from './plan.js';
import { profileSettings } from './profiles.js';
import { H2_IP, switchPair } from './testing.js';

test('the mlx5 formula in its integer arithmetic (PHYSICS §2.3 examples)', () => {
  assert.equal(mlx5XoffBytes(40e9, 7, 1500), 16_720); // (301 + 15)·40,000/1000 + 4,080
  assert.equal(mlx5XoffBytes(100e9, 7, 1500), 35_680);
  assert.equal(mlx5XoffBytes(100e9, 7, 4200), 43_024);
  assert.equal(mlx5XoffBytes(25e9, 7, 1500), 16_720, 'speeds below 40 Gb/s count as 40');
});

test('rocelab sizes vendor headroom over 7 m of cable plus the link latency as fibre; hpcc-ns3 as 3·rate·delay/8', () => {
  // 1 µs ≈ 200 m at 5 ns/m: cable 207 m → (301 + ⌊216·207/100⌋ = 447)·40 = 29,920, + ⌊272·1102/100⌋ = 2,997.
  assert.equal(vendorHeadroomBytes(40e9, 1_000_000, 1102), 32_917);
  assert.equal(hpccHeadroomBytes(40e9, 1_000_000), 15_000);
});

test('a pause closes a loop out and back, so headroom sizes for half of it: pipeline latencies on either side count', () => {
  assert.equal(pauseLoopLatencyPs({ in: { latencyPs: 1_000_000 } }), 1_000_000);
  assert.equal(pauseLoopLatencyPs({ in: { latencyPs: 1_000_000 }, out: { latencyPs: 1_000_000 } }), 1_000_000);
  // The switch's 1 µs pipeline delays its pause: 1 µs + 2 µs round trip, sized as 1.5 µs each way.
  assert.equal(pauseLoopLatencyPs({ in: { latencyPs: 1_000_000 }, out: { latencyPs: 2_000_001 } }), 1_500_001);
  const port = (outPs: number) => ({ in: { rateBps: 40e9, latencyPs: 1_000_000, mtu: 1024 }, out: { latencyPs: outPs } });
  const headroom = (outPs: number) => planSwitch(profileSettings('vendor', 'default', 40e9), [port(outPs), port(outPs)], [])!.mmu.headroomBytes[0];
  assert.equal(headroom(1_000_000), 32_917);
  assert.equal(headroom(2_000_000), vendorHeadroomBytes(40e9, 1_500_000, 1102));
});

const FRAME = 1086;
const pausedReceiver = (latencyPs: number, headroomBytes?: number) => {
  const pod = switchPair({
    latencyPs,
    settings: {
      reserveBytes: 0,
      xoffBytes: 5 * FRAME,
      xonBytes: 2 * FRAME,
      ...(headroomBytes === undefined ? {} : { headroomBytes }),
      watchdog: { enabled: false, ports: 'all', action: 'drop', detectionPs: 1, restorationPs: 1, pollPs: 1 },
    },
  });
  // h2 keeps sw's port to it paused; h1 streams 400 frames at line rate.
  pod.h2.at(0, () => pod.h2.send(0, pfcFrame(1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0])));
  for (let k = 0; k < 400; k++) pod.h1.send(0, dataFrame({ dstIp: H2_IP, psn: k }));
  let peak = 0;
  for (let t = 0; t <= 300_000_000; t += 100_000) {
    pod.engine.runUntil(t);
    peak = Math.max(peak, pod.sw.mmu.headroomBytes(0, 3));
  }
  return { peak, drops: pod.engine.context(2).stats.droppedByReason() };
};

test('on a 1 µs link the headroom takes what is in flight after XOFF, exactly, without loss', () => {
  // XOFF when the 5th frame arrives (2,106,000 ps); h1 stops starting frames when the pause
  // arrives (3,122,800 ps): frames 5..14 were already started — 10 frames, 10,860 B, in headroom.
  const { peak, drops } = pausedReceiver(1_000_000);
  assert.equal(peak, 10 * FRAME);
  assert.ok(peak <= 32_917);
  assert.equal(drops.headroom_full, 0);
});

test('on a 20 µs link the latency-aware headroom still holds; 7 m of cable alone would overflow', () => {
  // 20 µs each way at 5 B/ns: ~200 kB arrive after XOFF. Latency-aware: cable 4,007 m → 361,237 B.
  assert.equal(vendorHeadroomBytes(40e9, 20_000_000, 1102), 361_237);
  const sized = pausedReceiver(20_000_000);
  assert.equal(sized.drops.headroom_full, 0);
  assert.ok(sized.peak > 150_000 && sized.peak <= 361_237, `peak headroom ${sized.peak} B`);
  // The plain mlx5 value for 7 m (15,637 B at MTU 1102) cannot absorb it: lossless frames are lost.
  const plain = pausedReceiver(20_000_000, mlx5XoffBytes(40e9, 7, 1102));
  assert.ok(plain.drops.headroom_full > 0);
});
