/**
 * What a host's NIC pulls from the workloads: the messages to post, in time order, and the
 * connections (QPs) they use, known before the run.
 *
 * Each kind contributes a per-host `KindTraffic` (its own file); `hostTraffic` merges them by
 * (atPs, workload index, the kind's own order). Everything is lazy — a kind draws randomness
 * and builds a post only when the merge needs its next one — and deterministic: the same
 * workloads, hosts, link rates and streams give the same posts.
 */
import type { Rng } from '@rocelab/sim';
import type { ConnectionClass, Transport } from './transport.js';
import { connectionKey, flowId } from './flow-id.js';

/** What a built-in workload posts: a WRITE or SEND carries the bytes from `from` to `to`; a READ asks `to` for them (its responses carry them back). */
export type Opcode = 'write' | 'send' | 'read';

/** A message a host's NIC must post. The same connection key → the same QP (messages queue on it in order). */
export interface MessagePost {
  atPs: number;
  to: string;
  connection: string;
  opcode: Opcode;
  sizeBytes: number;
  /** The message's flow id (flow-id.ts): the same number on every host. */
  flow: number;
  /** A pingmesh probe: the NIC records its round-trip time. */
  probe: boolean;
}

/** A connection (QP) a host opens: its key, its peer, and the settings of the packets it carries. */
export interface Connection {
  key: string;
  to: string;
  probe: boolean;
  /** DSCP of its data packets (26: RoCE, lossless priority 3 — DESIGN §9). */
  dscp: number;
  /** RoCE (the NIC's RC) or the host's TCP-like stack. */
  transport: Transport;
  /** Pacing rate in bit/s on the wire; null = as fast as the link and congestion control allow. */
  rateBps: number | null;
  /** The data's UDP ports (a `flow`'s `udpPorts`); absent = the NIC's. */
  udpPorts?: UdpPorts;
}

/** UDP ports of a connection's data packets, as the sender writes them (its ACKs swap them). */
export interface UdpPorts {
  src: number;
  dst: number;
}

export interface HostTraffic {
  /** The next post at or after the last one returned, or null when the host has nothing more to send. Open-loop kinds without `stop` never end. */
  next(): MessagePost | null;
  /** Every connection this host will ever open, sorted by key — computed without drawing from any stream. */
  connections(): Connection[];
}

export interface TrafficContext {
  /** Every host of the pod (any order; `all` sorts them). */
  hosts: readonly string[];
  /** The pod seed: streams every host must agree on (the permutation) are rebuilt from it. */
  seed: number;
  /** The host's link rate in bit/s (open-loop load is a fraction of it). */
  linkRateBps(host: string): number;
  /** This host's stream for `purpose` — (pod seed, this host, purpose), DESIGN §3. Used as `workload:<index>`. */
  rng(purpose: string): Rng;
}

/** One workload's part of one host's traffic. */
export interface KindTraffic {
  /** Posts in non-decreasing atPs. */
  posts: Iterator<MessagePost, void>;
  connections: Connection[];
}

/** A workload that has nothing for this host. */
export function noTraffic(): KindTraffic {
  return { posts: [][Symbol.iterator](), connections: [] };
}

/** The stream purpose of workload `index` (the rnic's first-cut host uses the same name). */
export function workloadPurpose(index: number): string {
  return `workload:${index}`;
}

/**
 * One WRITE from `from` to `to` on the workload's connection to that peer, numbered
 * (workload, slot, seq) — how every kind but `flow` posts.
 */
export function writePost(workload: number, from: string, to: string, fields: { atPs: number; sizeBytes: number; slot: number; seq: number; probe?: boolean }): MessagePost {
  const { atPs, sizeBytes, slot, seq, probe = false } = fields;
  return { atPs, to, connection: connectionKey(workload, from, to), opcode: 'write', sizeBytes, flow: flowId(workload, slot, seq), probe };
}

/** The workload's connection from `from` to `to` in its class, unpaced. */
export function connectionTo(workload: number, from: string, to: string, cls: ConnectionClass, probe = false): Connection {
  return { key: connectionKey(workload, from, to), to, probe, dscp: cls.dscp, transport: cls.transport, rateBps: null };
}
