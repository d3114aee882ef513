/**
 * A few chaos runs (`chaos.ts`): SIGKILL one member of a procs pod at a random wall time, with
 * and without respawn. `npm run chaos` runs 20. ROCELAB_CHAOS_RUNS sets how many run here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chaos } from './chaos.js';

const RUNS = Number(process.env.ROCELAB_CHAOS_RUNS ?? 4);

test(`${RUNS} members killed at random wall times: every run ends with a result, conservation holds, the lost node is named, nothing is left behind`, { timeout: RUNS * 240_000 }, async () => {
  const runs = await chaos(RUNS, 1);
  const problems = runs.filter((r) => r.problem !== null).map((r) => `run ${r.run} (${r.victim ?? 'no kill'} after ${r.killAfterMs} ms${r.workers ? ', 2 workers' : ''}${r.respawn ? ', respawn' : ''}): ${r.problem}`);
  assert.deepEqual(problems, []);
  const killed = runs.filter((r) => r.victim !== null);
  assert.ok(killed.length >= RUNS - 1, `most kills land while the pod runs (${killed.length} of ${RUNS})`);
  assert.ok(killed.some((r) => r.respawn && r.lostNodes.some((n) => n.restartedAtNs !== null)), 'a respawned member rejoined');
});
