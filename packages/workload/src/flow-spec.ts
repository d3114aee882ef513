/**
 * The `flow` workload: one sender streams `sizeBytes` of RDMA WRITE payload to one receiver,
 * starting at a fixed virtual time or at a time drawn from the sender's seeded stream.
 *
 * ```yaml
 * - {kind: flow, from: h1, to: h4, sizeBytes: 10MB, start: 0us}
 * - {kind: flow, from: h2, to: h3, sizeBytes: 1MiB, start: {uniform: [0us, 200us]}, rate: 10G}
 * ```
 */

export type FlowStart = { kind: 'at'; atPs: number } | { kind: 'uniform'; minPs: number; maxPs: number };

export interface FlowWorkload {
  /** Position in the topology's `workloads` list (also the flow id). */
  index: number;
  from: string;
  to: string;
  sizeBytes: number;
  start: FlowStart;
  /** Pacing rate in bit/s on the wire; null = as fast as the link allows. */
  rateBps: number | null;
  /** DSCP of the data packets; default 26 (RoCE, lossless priority 3 — DESIGN §9). */
  dscp: number;
}
