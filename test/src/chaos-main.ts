/**
 * `npm run chaos`: 20 chaos runs (`chaos.ts`, or ROCELAB_CHAOS_RUNS), one line per run on
 * stderr, then one JSON line on stdout; exit 1 if any run went wrong.
 */
import { chaos } from './chaos.js';

const runs = Number(process.env.ROCELAB_CHAOS_RUNS ?? 20);
const seed = Number(process.env.ROCELAB_CHAOS_SEED ?? 1);
const results = await chaos(runs, seed, (r) =>
  process.stderr.write(`run ${r.run}: ${r.victim ?? 'no kill'} after ${r.killAfterMs} ms${r.workers ? ' (2 workers)' : ''}${r.respawn ? ' (respawn)' : ''} → exit ${r.exitCode}, ${r.wallMs} ms, conservation ${r.conservation}, node_lost ${r.nodeLostFrames}${r.problem ? `; PROBLEM: ${r.problem}` : ''}\n`),
);
const failed = results.filter((r) => r.problem !== null);
process.stdout.write(
  `${JSON.stringify({
    runs,
    seed,
    killed: results.filter((r) => r.victim !== null).length,
    respawned: results.filter((r) => r.lostNodes.some((n) => n.restartedAtNs !== null)).length,
    conservationHeld: results.filter((r) => r.conservation === true).length,
    leftoverProcesses: results.reduce((n, r) => n + r.leftovers.length, 0),
    maxWallMs: Math.max(...results.map((r) => r.wallMs)),
    nodeLostFrames: results.reduce((n, r) => n + r.nodeLostFrames, 0),
    failed: failed.map((r) => ({ run: r.run, problem: r.problem })),
  })}\n`,
);
process.exit(failed.length > 0 ? 1 : 0);
