// The host CPU model (issue 24), pure: one operation at a time, each perOperation ± jitter,
// the jitter drawn from the host's seeded stream, so the same seed gives the same times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '@rocelab/sim';
import { HostCpu } from './host-cpu.js';

const cpu = (perOperationPs: number, jitterPs: number, seed = 1) => new HostCpu({ perOperationPs, jitterPs }, new Rng(seed, 'h1', 'cpu'));

test('without jitter an operation takes exactly perOperation, and the CPU does one at a time', () => {
  const c = cpu(1_000_000, 0);
  assert.equal(c.takesEffectAt(0), 1_000_000);
  assert.equal(c.takesEffectAt(0), 2_000_000, 'issued at the same instant: it waits for the first');
  assert.equal(c.takesEffectAt(1_500_000), 3_000_000, 'issued while the CPU is busy');
  assert.equal(c.takesEffectAt(10_000_000), 11_000_000, 'issued to an idle CPU: starts at once');
});

test('with jitter each cost lies in [perOperation − jitter, perOperation + jitter], spread over it, and depends on the seed alone', () => {
  const costs = (seed: number) => {
    const c = cpu(2_000_000, 500_000, seed);
    return Array.from({ length: 2000 }, (_, i) => c.takesEffectAt(i * 10_000_000) - i * 10_000_000);
  };
  const a = costs(1);
  assert.ok(a.every((x) => Number.isInteger(x) && x >= 1_500_000 && x <= 2_500_000), 'in range, whole ps');
  assert.ok(Math.min(...a) < 1_550_000 && Math.max(...a) > 2_450_000, 'the whole range is used');
  const mean = a.reduce((s, x) => s + x, 0) / a.length;
  assert.ok(Math.abs(mean - 2_000_000) < 25_000, `mean ${mean} near perOperation`);
  assert.deepEqual(costs(1), a, 'the same seed, the same costs');
  assert.notDeepEqual(costs(2), a, 'another seed, other costs');
});

test('one draw per operation even with no jitter, so turning jitter on never shifts what the stream gives later', () => {
  const rng = new Rng(3, 'h1', 'cpu');
  const c = new HostCpu({ perOperationPs: 5, jitterPs: 0 }, rng);
  c.takesEffectAt(0);
  c.takesEffectAt(0);
  const after = new Rng(3, 'h1', 'cpu');
  after.nextFloat();
  after.nextFloat();
  assert.equal(rng.nextU32(), after.nextU32());
});

test('bad settings are refused: perOperation must be above 0, jitter within [0, perOperation], whole ps', () => {
  for (const [per, jitter] of [[0, 0], [-1, 0], [100, 101], [100, -1], [1.5, 0]] as const) {
    assert.throws(() => cpu(per, jitter), /host CPU: expected integer ps with 0 < perOperation and 0 ≤ jitter ≤ perOperation/);
  }
});
