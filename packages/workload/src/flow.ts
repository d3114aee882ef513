/**
 * A `flow` item's traffic at its sender: one connection, and the flow's messages posted back to
 * back on it at the start time (fixed, or one `uniformInt` draw from the sender's stream
 * `workload:<index>` — the draw the first-cut host made, so results carry over).
 */
import { connectionKey, flowId } from './flow-id.js';
import { flowMessageCount } from './flow-schema.js';
import type { FlowWorkload } from './flow-spec.js';
import { drawTime } from './time-choice.js';
import { noTraffic, workloadPurpose, type KindTraffic, type MessagePost, type TrafficContext } from './traffic.js';

export function flowTraffic(flow: FlowWorkload, host: string, ctx: TrafficContext): KindTraffic {
  if (host !== flow.from) return noTraffic();
  const connection = connectionKey(flow.index, flow.from, flow.to);
  function* posts(): Generator<MessagePost, void> {
    const atPs = drawTime(flow.start, () => ctx.rng(workloadPurpose(flow.index)));
    const count = flowMessageCount(flow);
    const full = flow.messageBytes ?? flow.sizeBytes;
    for (let k = 0; k < count; k++) {
      const sizeBytes = k < count - 1 ? full : flow.sizeBytes - full * (count - 1);
      yield { atPs, to: flow.to, connection, opcode: flow.opcode ?? 'write', sizeBytes, flow: flowId(flow.index, 0, k), probe: false };
    }
  }
  return { posts: posts(), connections: [{ key: connection, to: flow.to, probe: false, dscp: flow.dscp, transport: flow.transport, rateBps: flow.rateBps, ...(flow.udpPorts === undefined ? {} : { udpPorts: flow.udpPorts }) }] };
}
