/**
 * A resolved pod: the topology file after validation, with every default applied, every
 * unit converted to base units (ps, bit/s, bytes) and every node and port numbered.
 *
 * Numbering is part of determinism (DESIGN §3): the node index is the position of the node's
 * name in the sorted list of names; a node's ports are sorted by port name.
 */

export type Role = 'host' | 'tor' | 'leaf' | 'spine' | 'switch';
export type { Profile, Timing } from '@rocelab/sim';

import type { RemoteAccess } from '@rocelab/rnic';
import type { ImpairmentConfig, LinkDirectionConfig, PacketAction, Profile, Timing } from '@rocelab/sim';

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

/*
 * The faults of a pod, as written and resolved (the table of kinds that resolves them is
 * fault-kinds.ts, the random forms fault-draws.ts): types only, here at the bottom of the
 * package so the spec, the table and the draws import them without a circle.
 */

/** What a fault acts on: a link (`link: node:port`), a node of a role (`node: name`), or a flow. */
export type FaultTarget = 'link' | 'host' | 'switch' | 'node' | 'flow';

/** Which directions of a link, seen from the endpoint the fault names: `out` = what it transmits. */
export type LinkDirectionChoice = 'both' | 'out' | 'in';

export type WatchdogActionChoice = 'drop' | 'forward' | 'alert';

/** A fault's own parameters in base units (ps, bit/s, bytes), by kind. */
export type FaultParams =
  | { kind: 'linkDown'; link: Endpoint; direction: LinkDirectionChoice }
  | { kind: 'linkUp'; link: Endpoint }
  | { kind: 'linkFlap'; link: Endpoint; periodPs: number; count: number }
  | { kind: 'loss'; link: Endpoint; direction: LinkDirectionChoice; rate: number; dropIpIdLowByte: number | null }
  | { kind: 'corrupt'; link: Endpoint; direction: LinkDirectionChoice; rate: number }
  | { kind: 'nicPauseStorm'; node: string }
  | { kind: 'slowReceiver'; node: string; drainBps: number }
  | { kind: 'macFlush' | 'arpExpire'; node: string; host: string | null }
  | { kind: 'pfcMisconfig'; node: string; port: string | null; priority: number; enabled: boolean | null; xoffBytes: number | null; xonBytes: number | null }
  | { kind: 'ecnMisconfig'; node: string; port: string | null; priority: number | null; enabled: boolean | null; kminBytes: number | null; kmaxBytes: number | null; pmax: number | null }
  | { kind: 'watchdog'; node: string; enabled: boolean; action: WatchdogActionChoice | null }
  | { kind: 'packetEvent'; from: string; to: string; workload: number | null; packets: number[]; action: PacketAction }
  | { kind: 'kill' | 'restart'; node: string }
  | { kind: 'egressStuck' | 'switchPauseStorm'; node: string; port: string; priority: number | null }
  | { kind: 'egressSlow'; node: string; port: string; priority: number | null; rateBps: number }
  // Issue 24, link and configuration faults:
  | { kind: 'linkRate'; link: Endpoint; direction: LinkDirectionChoice; rateBps: number }
  | { kind: 'mtuMismatch'; node: string; port: string; ipMtuBytes: number }
  | { kind: 'dscpMisconfig'; node: string; port: string | null; dscp: number | null; priority: number }
  | { kind: 'ecmpMisconfig'; node: string; seed: number | null; hash: 'rocelab' | 'hpcc-ns3' | null; fields: Array<'srcIp' | 'dstIp' | 'srcPort'> | null };

export type FaultKind = FaultParams['kind'];

/**
 * A fault as written (file, drill, API): `at`, `kind`, its target key and its own keys. `at`,
 * `for` and `node` may be random forms (fault-draws.ts) until the fault resolves.
 */
export type RawFault = { at: string | { uniform: [string, string] }; for?: string | { uniform: [string, string] }; kind: string } & Record<string, unknown>;

/** The keys of a fault item that may be drawn. */
export type DrawnKey = 'node' | 'at' | 'for';

/** The random forms of a fault as written, by key (only the keys that had one). */
export type DrawnFrom = Partial<Record<DrawnKey, unknown>>;

/**
 * A resolved fault: when, for how long, what it does. `raw` is the item with every random form
 * replaced by what was drawn — what travels to members, the fault log shows and a replay reads.
 */
export interface FaultSpec {
  /** Its number in the run: the file's faults first, then drill and live ones. */
  index: number;
  atPs: number;
  /** How long it lasts before it is undone; null = for the rest of the run. */
  forPs: number | null;
  kind: FaultKind;
  /** Readable target: `node:port` for a link, a node name, `from>to` for a flow. */
  target: string;
  params: FaultParams;
  raw: RawFault;
  /** The random forms it was drawn from, as written, by key (`node`, `at`, `for`); absent: none. */
  drawnFrom?: DrawnFrom;
}

/** What resolving a fault needs from the pod. */
export interface FaultContext {
  nodes: ReadonlyMap<string, NodeSpec>;
  /** Every link endpoint `node:port`. */
  endpoints: ReadonlySet<string>;
  /** The nodes each node has a link to. */
  neighbours: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per node, the shortest time from a kill to its restart (`restartGapPs` in node-lives.ts). */
  restartGapPs: ReadonlyMap<string, number>;
  /** The pod's seed, which random forms draw from; null: they are refused (the fault API). */
  seed: number | null;
  /** The endpoints `node:port` of links in credit flow control (absent: none). */
  creditEndpoints?: ReadonlySet<string>;
  /** Per endpoint `node:port`, the configured rate (bit/s) of what it transmits (absent: unknown, no rate check). */
  linkRates?: ReadonlyMap<string, number>;
  /** Per endpoint `node:port`, the endpoint at the other end of its link (absent: unknown). */
  peers?: ReadonlyMap<string, string>;
}

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
  /** The hosts' native programs (issue 25), in node order then list order; empty without any. */
  programs: ProgramSpec[];
}

/**
 * A native program a host's member runs as its child process (issue 25), resolved from the
 * file's `programs:` (programs.ts): what every process of the pod agrees on before it starts.
 */
export interface ProgramSpec {
  node: string;
  /** Its place in its host's `programs` list: two programs of a host are told apart by it. */
  index: number;
  /**
   * The command line with `{h2}` and `{h2.name}` expanded. `argv[0]` is an absolute path when
   * the file gave a path (checked executable when the file was read), else a bare name for the
   * program's PATH to find when it starts.
   */
  argv: string[];
  /** Variables the file sets, added to what the runtime gives every program; values expanded like argv. */
  env: Record<string, string>;
  /** Absolute: the file's `cwd` relative to the topology file, by default the topology file's directory. */
  cwd: string;
  /** The wall-clock time it may run between two of its waits before the run fails (`timeout`, default 60 s): a failure, never an outcome. */
  timeoutMs: number;
  /** Where the file declares it (`nodes[3].programs[0]`), for the runtime's errors to name. */
  where: string;
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
