/**
 * The switch side of rocelab's profiles (DESIGN §9): named bundles of defaults, overridable
 * field by field in the topology file. `timing: drill` scales the watchdog for short runs.
 */
import type { Profile, Timing } from '@rocelab/sim';
import { dscpMap, type DscpMap } from '@rocelab/wire';
import {
  ARP_AGEING_PS,
  DSCP_PRIORITY,
  DYNAMIC_ALPHA,
  ECN_PAPER,
  ECN_PRIORITIES,
  ECN_VENDOR,
  EGRESS_LOSSY_ALPHA,
  HPCC_BUFFER_BYTES,
  HPCC_RESUME_OFFSET_BYTES,
  LOSSLESS_PRIORITIES,
  MAC_AGEING_PS,
  PAUSE_QUANTA,
  RESERVE_BYTES,
  SHARED_BUFFER_BYTES,
  SONIC_DSCP_PRIORITY,
  SONIC_LOSSLESS_PRIORITIES,
  STRICT_PRIORITIES,
  WATCHDOG_DRILL,
  WATCHDOG_VENDOR,
  CABLE_METERS,
  hpccEcn,
} from './defaults.js';
import type { EcmpHashKind, EcmpOrder } from './forwarding.js';
import type { WatchdogAction } from './pfc-watchdog.js';
import type { TaggerConfig } from './tagger.js';

/** Every switch setting, resolved to base units (bytes, ps, ratios). */
/** One pool of the shared buffer: its priorities, its bytes of the shared space, its α (null: the switch's). */
export interface BufferPool {
  name: string;
  priorities: number[];
  sizeBytes: number;
  alpha: number | null;
}

/**
 * RED parameters of the egress ports whose link runs at `rateBps` (HPCC ns-3 sets them per port
 * from its rate: third.cc `main` `ConfigEcn(j, rate2kmin[rate], …)`, from KMIN_MAP/KMAX_MAP/PMAX_MAP).
 */
export interface EcnAtRate {
  rateBps: number;
  kminBytes: number;
  kmaxBytes: number;
  pmax: number;
}

/** The dynamic-threshold α of the ingress ports whose link runs at `rateBps` (HPCC third.cc `pfc_a_shift[j]`). */
export interface AlphaAtRate {
  rateBps: number;
  alpha: number;
}

export interface SwitchSettings {
  bufferBytes: number;
  alpha: number;
  /**
   * α per ingress port by the port's link rate (`alphaByRate`); a port at a rate not listed takes
   * `alpha`. Empty (every profile): one α for the switch.
   */
  alphaByRate: AlphaAtRate[];
  reserveBytes: number;
  /** Headroom model: the mlx5 formula over cable + latency (`vendor`) or 3·rate·delay/8 (`hpcc-ns3`). */
  headroomModel: 'mlx5' | 'hpcc';
  cableMeters: number;
  /** A fixed headroom per lossless group instead of the formula; null = formula. */
  headroomBytes: number | null;
  losslessPriorities: number[];
  dscpMap: DscpMap;
  /** Fixed XOFF/XON (bytes of a group above its reserve); null = the dynamic threshold. */
  xoffBytes: number | null;
  xonBytes: number | null;
  /** Dynamic XON hysteresis; null = one maximum-size frame of the port (`vendor`). */
  xonOffsetBytes: number | null;
  /** Reserves and headrooms count in the pool per (port, priority) (`vendor`) or per port (`hpcc-ns3`). */
  budget: 'perPriority' | 'perPort';
  /**
   * The shared buffer split into named pools, each for a set of priorities with its own size and
   * α (issue 14: RDMA and TCP classes that do not share buffer); null = one pool for all, as today.
   */
  pools: BufferPool[] | null;
  egressLossyAlpha: number;
  pauseQuanta: number;
  /** Refresh of a standing pause: half the pause time, a fixed period, or none (pause until resume). */
  pauseRefresh: 'half' | 'none' | number;
  /**
   * RED marking at dequeue. `enabled: false` or a queue outside `priorities` never marks and
   * never draws from the `ecn` stream.
   */
  ecn: { enabled: boolean; priorities: number[]; kminBytes: number; kmaxBytes: number; pmax: number; markNonEct: boolean };
  /**
   * `ecn.byRate`: Kmin/Kmax/Pmax per egress port by the port's link rate; a port at a rate not
   * listed takes those of `ecn`. Empty (every profile): one set for the switch.
   */
  ecnByRate: EcnAtRate[];
  /** ECMP hash (rocelab's or HPCC ns-3's) and its seed; null = that hash's default (`defaultEcmpSeed`). */
  ecmpHash: EcmpHashKind;
  ecmpSeed: number | null;
  /** Next-hop order the hash indexes: port names, or HPCC's route BFS (`hpcc-bfs`); `port` in every profile. */
  ecmpOrder: EcmpOrder;
  strictPriorities: number[];
  weights: number[];
  losslessFlood: 'flood' | 'drop';
  macAgeingPs: number;
  arpAgeingPs: number;
  /**
   * `ports`: which ports' lossless queues are watched — all (SONiC `pfcwd start_default`) or only
   * those facing hosts (`pfcwd start … PORTS` on server ports, the ToR watchdog of Guo et al.).
   */
  watchdog: { enabled: boolean; ports: 'all' | 'hostFacing'; action: WatchdogAction; detectionPs: number; restorationPs: number; pollPs: number };
  /**
   * Tagger (Hu et al., CoNEXT 2017; `tagger.ts`): a packet's tag k is carried as the DSCP of
   * priority `losslessByTag[k-1]`; a bounce against up-down moves it to the next tag, and past the
   * last to `beyond`. null = off (the default: nothing is re-tagged, the old dataplane bit for bit).
   */
  tagger: TaggerConfig | null;
}

export function profileSettings(profile: Profile, timing: Timing, rateBps: number): SwitchSettings {
  const vendor: SwitchSettings = {
    bufferBytes: SHARED_BUFFER_BYTES,
    alpha: DYNAMIC_ALPHA,
    alphaByRate: [],
    reserveBytes: RESERVE_BYTES,
    headroomModel: 'mlx5',
    cableMeters: CABLE_METERS,
    headroomBytes: null,
    losslessPriorities: [...LOSSLESS_PRIORITIES],
    dscpMap: dscpMap(DSCP_PRIORITY),
    xoffBytes: null,
    xonBytes: null,
    xonOffsetBytes: null,
    budget: 'perPriority',
    pools: null,
    egressLossyAlpha: EGRESS_LOSSY_ALPHA,
    pauseQuanta: PAUSE_QUANTA,
    pauseRefresh: 'half',
    ecn: { enabled: true, priorities: [...ECN_PRIORITIES], ...ECN_VENDOR, markNonEct: false },
    ecnByRate: [],
    ecmpHash: 'rocelab',
    ecmpSeed: null,
    ecmpOrder: 'port',
    strictPriorities: [...STRICT_PRIORITIES],
    weights: [1, 1, 1, 1, 1, 1, 1, 1],
    losslessFlood: 'flood',
    macAgeingPs: MAC_AGEING_PS,
    arpAgeingPs: ARP_AGEING_PS,
    watchdog: { enabled: true, ports: 'all', ...(timing === 'drill' ? WATCHDOG_DRILL : WATCHDOG_VENDOR) },
    tagger: null,
  };
  switch (profile) {
    case 'vendor':
      return vendor;
    case 'paper':
      return { ...vendor, ecn: { ...vendor.ecn, ...ECN_PAPER } };
    case 'sonic':
      return { ...vendor, losslessPriorities: [...SONIC_LOSSLESS_PRIORITIES], dscpMap: dscpMap(SONIC_DSCP_PRIORITY) };
    case 'hpcc-ns3': {
      // HPCC run.py: Kmin/Kmax scale with the link rate in Gb/s; every packet may be marked; one
      // reserve and one headroom per port in the pool; resume 3072 B below the threshold; pauses
      // hold until resumed; the buffer of its shipped config; its own ECMP hash, seeded per switch.
      const gbps = rateBps / 1e9;
      return {
        ...vendor,
        bufferBytes: HPCC_BUFFER_BYTES,
        ecmpHash: 'hpcc-ns3',
        headroomModel: 'hpcc',
        budget: 'perPort',
        xonOffsetBytes: HPCC_RESUME_OFFSET_BYTES,
        pauseRefresh: 'none',
        ecn: { ...vendor.ecn, ...hpccEcn(gbps), markNonEct: true },
      };
    }
  }
}
