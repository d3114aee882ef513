/**
 * A resolved pod: the topology file after validation, with every default applied, every
 * unit converted to base units (ps, bit/s, bytes) and every node and port numbered.
 *
 * Numbering is part of determinism (DESIGN §3): the node index is the position of the node's
 * name in the sorted list of names; a node's ports are sorted by port name.
 */

export type Role = 'host' | 'tor' | 'leaf' | 'spine' | 'switch';
export type Profile = 'vendor' | 'paper' | 'hpcc-ns3' | 'sonic';
export type Timing = 'default' | 'drill';

import type { RemoteAccess } from '@rocelab/rnic';
import type { ImpairmentConfig, LinkDirectionConfig } from '@rocelab/sim';

/**
 * Impairments of one link direction: `down`, Bernoulli `loss`, the IP-ID rule
 * `dropIpIdLowByte` (null = off) and `corrupt` — the link model's own type (packages/sim).
 */
export type Impairments = ImpairmentConfig;

/** One direction of a link: what the transmitter at `from` sends towards `to` (the link model's type). */
export type LinkDirection = LinkDirectionConfig;

export interface Endpoint {
  node: string;
  port: string;
}

export interface LinkSpec {
  index: number;
  a: Endpoint;
  b: Endpoint;
  aToB: LinkDirection;
  bToA: LinkDirection;
}

export interface PortSpec {
  /** Position of the port in the node's ports sorted by name. */
  index: number;
  name: string;
  link: number;
  peerNode: number;
  peerPort: number;
  /** This port's transmit direction (this node → peer). */
  out: LinkDirection;
  /** The peer's transmit direction (peer → this node). */
  in: LinkDirection;
}

export interface Subnet {
  /** Network address as an unsigned 32-bit integer. */
  base: number;
  prefixLength: number;
}

export interface NodeSpec {
  index: number;
  name: string;
  role: Role;
  /** Hosts: IPv4 address as an unsigned 32-bit integer; 0 for switches. */
  ip: number;
  /** ToRs may declare the subnet of their hosts. */
  subnet: Subnet | null;
  /**
   * The node's fixed pipeline latency (`pipelineLatency`, default 0): every frame it sends, PFC
   * included, reaches its neighbour this much later. It is part of the latency of each direction
   * the node transmits on (`LinkDirection.latencyPs`), so it is also lookahead (DESIGN §3).
   */
  pipelinePs: number;
  /** Derived deterministically from the node index (locally administered unicast). */
  mac: number;
  ports: PortSpec[];
  /** Keys other packages contributed to this node (e.g. `switch`, `nic`), as validated by their sub-schemas. */
  config: Readonly<Record<string, unknown>>;
}

/** A workload entry as validated by its kind's schema, with units still as written. */
export interface WorkloadSpec {
  index: number;
  kind: string;
  /** Path inside the file, for error messages from the workload package (e.g. `workloads[2]`). */
  path: string;
  raw: Record<string, unknown>;
}

export type { FaultKind, FaultSpec } from './fault-kinds.js';
import type { FaultSpec } from './fault-kinds.js';

export interface PodSpec {
  name: string;
  /** The file it came from (for error messages), or `<inline>`. */
  file: string;
  seed: number;
  profile: Profile;
  timing: Timing;
  nodes: NodeSpec[];
  links: LinkSpec[];
  workloads: WorkloadSpec[];
  faults: FaultSpec[];
  /** Keys other packages contributed to `defaults` (e.g. `switch`, `nic`), as validated by their sub-schemas. */
  defaults: Readonly<Record<string, unknown>>;
  /** The hosts' applications, in node order (issue 13); carried with their bundled source, so a member reads no file. */
  apps: AppSpec[];
}

/** A host's application: its module bundled (@rocelab/app `bundleApp`), its args and limits. */
export interface AppSpec {
  node: string;
  module: string;
  args: Record<string, unknown>;
  /** The DSCP of its QPs' data and ACKs (default: a flow's). */
  dscp: number;
  source: string;
  digest: string;
  /** QuickJS heap it may use besides its regions, in bytes (`app.memory`). */
  memoryBytes: number;
  /** Interpreter steps it may run between two waits (`app.steps`). */
  steps: number;
  /** Where the file declares it (`nodes[3].app`): problems found when its regions are declared name it. */
  where: string;
  /**
   * What its `regions()` declared for this host, in order; null until a command that runs the
   * pod declares them (`declareAppRegions`): reading a file runs no app code.
   */
  regions: Array<{ name: string; bytes: number; access: RemoteAccess[] }> | null;
}
