/**
 * Which transport a workload's connections use and which class their packets ride (issue 14):
 * `rdma` (RoCEv2 RC, the NIC's) by default, or the host's TCP-like stack, `tcp` (NewReno) or
 * `dctcp`. Every kind takes `transport` and `dscp`; the DSCP defaults to the transport's usual
 * class: 26 (priority 3, lossless) for RoCE, 0 (priority 0, best effort, lossy) for TCP.
 *
 * ```yaml
 * - {kind: flow, from: h1, to: h9, sizeBytes: 10MB, start: 0us, transport: dctcp}
 * - {kind: pingmesh, interval: 50us, sizeBytes: 1KB, transport: tcp, dscp: 10}
 * ```
 */
import type { Fields } from './fields.js';

export type Transport = 'rdma' | 'tcp' | 'dctcp';

/** DSCP 26 → priority 3, the lossless RoCE class (DESIGN §9). */
export const DEFAULT_FLOW_DSCP = 26;
/** TCP's default class: DSCP 0, best effort (priority 0, lossy). */
export const DEFAULT_TCP_DSCP = 0;

/** The schema keys every workload kind shares. */
export const CLASS_PROPERTIES = {
  transport: { enum: ['rdma', 'tcp', 'dctcp'], description: 'rdma (RoCEv2 RC), tcp (NewReno) or dctcp' },
  dscp: { type: 'integer', minimum: 0, maximum: 63, description: 'a DSCP value, an integer 0..63' },
} as const;

export interface ConnectionClass {
  transport: Transport;
  dscp: number;
}

/** A workload item's transport and DSCP (the schema has checked their values). */
export function resolveClass(raw: Record<string, unknown>): ConnectionClass {
  const transport = (raw.transport as Transport | undefined) ?? 'rdma';
  return { transport, dscp: (raw.dscp as number | undefined) ?? (transport === 'rdma' ? DEFAULT_FLOW_DSCP : DEFAULT_TCP_DSCP) };
}

/** A READ is RDMA's: a TCP connection carries bytes one way only. */
export function checkOpcodeTransport(opcode: string | undefined, cls: ConnectionClass, fields: Fields): void {
  if (opcode !== undefined && opcode !== 'write' && cls.transport !== 'rdma') fields.add('opcode', `write (or no opcode) on a ${cls.transport} connection: ${opcode} is an RDMA operation`, opcode);
}
