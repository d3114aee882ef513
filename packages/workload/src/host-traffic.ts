/**
 * One host's traffic from all the pod's workloads: each workload's per-host part (its kind's
 * file) merged by (atPs, workload index, the kind's own order). The merge holds one pending
 * post per workload, so a host costs memory per workload, not per message.
 */
import { flowTraffic } from './flow.js';
import { incastTraffic } from './incast.js';
import { permutationTraffic } from './permutation.js';
import { pingmeshTraffic } from './pingmesh.js';
import { poissonTraffic } from './poisson.js';
import { shuffleTraffic } from './shuffle.js';
import type { HostTraffic, KindTraffic, MessagePost, TrafficContext } from './traffic.js';
import type { ResolvedWorkload } from './workloads.js';

function kindTraffic(workload: ResolvedWorkload, host: string, ctx: TrafficContext): KindTraffic {
  switch (workload.kind) {
    case 'flow':
      return flowTraffic(workload, host, ctx);
    case 'incast':
      return incastTraffic(workload, host, ctx);
    case 'permutation':
      return permutationTraffic(workload, host, ctx);
    case 'shuffle':
      return shuffleTraffic(workload, host, ctx);
    case 'poisson':
      return poissonTraffic(workload, host, ctx);
    case 'pingmesh':
      return pingmeshTraffic(workload, host, ctx);
    default: {
      const never: never = workload;
      throw new Error(`unknown workload kind ${JSON.stringify((never as { kind: unknown }).kind)}`);
    }
  }
}

interface Lane {
  index: number;
  posts: Iterator<MessagePost, void>;
  /** The lane's next post, or null when it has none left. */
  head: MessagePost | null;
  lastPs: number;
}

/**
 * The traffic `host` sends. Create one per host per run: kinds draw from `ctx.rng` streams as
 * posts are pulled, so two instances sharing the same stream objects would split the draws.
 */
export function hostTraffic(host: string, workloads: readonly ResolvedWorkload[], ctx: TrafficContext): HostTraffic {
  const ordered = [...workloads].sort((a, b) => a.index - b.index);
  const parts = ordered.map((w) => ({ index: w.index, traffic: kindTraffic(w, host, ctx) }));
  let lanes: Lane[] | null = null;

  const advance = (lane: Lane): void => {
    const step = lane.posts.next();
    lane.head = step.done ? null : step.value;
    if (lane.head !== null && lane.head.atPs < lane.lastPs) throw new Error(`workload ${lane.index} went back in time at ${host}: ${lane.head.atPs} ps after ${lane.lastPs} ps`);
    if (lane.head !== null) lane.lastPs = lane.head.atPs;
  };

  return {
    next(): MessagePost | null {
      // Heads are pulled on the first call, not at construction, so nothing is drawn before the NIC asks.
      lanes ??= parts.map((p) => {
        const lane: Lane = { index: p.index, posts: p.traffic.posts, head: null, lastPs: 0 };
        advance(lane);
        return lane;
      });
      let best: Lane | null = null;
      for (const lane of lanes) {
        // Lanes are in workload order, so strict < keeps the lower index on a tie.
        if (lane.head !== null && (best === null || lane.head.atPs < best.head!.atPs)) best = lane;
      }
      if (best === null) return null;
      const post = best.head!;
      advance(best);
      return post;
    },
    connections() {
      return parts.flatMap((p) => p.traffic.connections).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
