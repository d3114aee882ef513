/**
 * The `flow` workload: one sender sends `sizeBytes` of RDMA payload to one receiver on one
 * connection, starting at a fixed virtual time or at a time drawn from the sender's seeded
 * stream — as one message, or split into `messageBytes` messages posted back to back.
 *
 * ```yaml
 * - {kind: flow, from: h1, to: h4, sizeBytes: 10MB, start: 0us}
 * - {kind: flow, from: h2, to: h3, sizeBytes: 1MiB, start: {uniform: [0us, 200us]}, rate: 10G}
 * - {kind: flow, from: h1, to: h2, sizeBytes: 64MiB, messageBytes: 1MiB, start: 0us}   # 64 WRITEs of 1 MiB
 * ```
 */
import type { Transport } from './transport.js';
import type { TimeChoice } from './time-choice.js';
import type { Opcode, UdpPorts } from './traffic.js';

export type FlowStart = TimeChoice;

export interface FlowWorkload {
  /** Position in the topology's `workloads` list (flow ids derive from it: flow-id.ts). */
  index: number;
  from: string;
  to: string;
  sizeBytes: number;
  start: FlowStart;
  /** Pacing rate in bit/s on the wire; null = as fast as the link allows. */
  rateBps: number | null;
  /** DSCP of the data packets; default 26 (RoCE, lossless priority 3 — DESIGN §9). */
  dscp: number;
  transport: Transport;
  /**
   * Size of each message when the flow is split (the last one carries the remainder); absent =
   * one message of `sizeBytes`. Optional (set only when the file gives it) so flows built before
   * it existed stay valid.
   */
  messageBytes?: number;
  /** Absent = `write`. */
  opcode?: Opcode;
  /** The data's UDP source and destination ports (ACKs swap them; issue 26); absent = the NIC's (RoCEv2: 49152 + QPN, 4791). */
  udpPorts?: UdpPorts;
}
