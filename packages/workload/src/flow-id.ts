/**
 * Flow ids and connection keys: names every host computes alike, without talking to the others,
 * so sender-side and receiver-side results can be joined and QPs numbered before the run.
 *
 * A flow id is one message's number, packed into a safe integer (< 2^53):
 *
 *     flow = workload · 2^40 + slot · 2^28 + seq
 *
 * `workload` is the item's index in the topology's `workloads` list (< 8192), `slot` the sending
 * host's position in the workload's host list (< 4096; `flow` items use slot 0) and `seq` the
 * message's number among that sender's messages of that workload (< 2^28), in post order. So
 * `flow` item 3 split into messages has ids 3·2^40 + 0, + 1, …; the pingmesh item 5's host in
 * position 2 numbers its probes 5·2^40 + 2·2^28 + 0, 1, ….
 */

export const FLOW_ID_WORKLOAD = 2 ** 40;
export const FLOW_ID_SLOT = 2 ** 28;
/** Limits the packing implies (each field must fit below the next one's factor). */
export const MAX_WORKLOADS = 2 ** 13;
export const MAX_SLOTS = FLOW_ID_WORKLOAD / FLOW_ID_SLOT;
export const MAX_SEQ = FLOW_ID_SLOT;

export interface FlowIdParts {
  workload: number;
  slot: number;
  seq: number;
}

export function flowId(workload: number, slot: number, seq: number): number {
  if (!(inRange(workload, MAX_WORKLOADS) && inRange(slot, MAX_SLOTS) && inRange(seq, MAX_SEQ))) {
    throw new RangeError(`flow id out of range: workload ${workload} (< ${MAX_WORKLOADS}), slot ${slot} (< ${MAX_SLOTS}), seq ${seq} (< ${MAX_SEQ})`);
  }
  return workload * FLOW_ID_WORKLOAD + slot * FLOW_ID_SLOT + seq;
}

export function flowIdParts(flow: number): FlowIdParts {
  const workload = Math.floor(flow / FLOW_ID_WORKLOAD);
  const rest = flow - workload * FLOW_ID_WORKLOAD;
  const slot = Math.floor(rest / FLOW_ID_SLOT);
  return { workload, slot, seq: rest - slot * FLOW_ID_SLOT };
}

/**
 * The key of the connection (QP) workload `workload` uses from `from` to `to`: `w3:h1->h9`.
 * One connection per (workload, sender, receiver); a workload's messages to one peer queue on it.
 */
export function connectionKey(workload: number, from: string, to: string): string {
  return `w${workload}:${from}->${to}`;
}

/** The workload index of a `connectionKey`, or null for a key of another form (an app's). */
export function connectionWorkload(key: string): number | null {
  const m = /^w(\d+):/.exec(key);
  return m === null ? null : Number(m[1]);
}

function inRange(value: number, limit: number): boolean {
  return Number.isSafeInteger(value) && value >= 0 && value < limit;
}

/** Reports an item beyond the flow-id range (resolvers call it with their item's index). */
export function checkWorkloadIndex(index: number, fields: { add(field: string, expected: string, actual: unknown): void }): void {
  if (index >= MAX_WORKLOADS) fields.add('kind', `at most ${MAX_WORKLOADS} workloads in one file (each numbers its messages below 2^40)`, `workload number ${index + 1}`);
}
