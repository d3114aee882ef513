/**
 * Switch defaults, each with its source (STYLE §7). Profiles (DESIGN §9) are bundles of these;
 * the topology file overrides any field per pod (`defaults.switch`) or per switch (`switch:`).
 */
import { PS_PER_MS } from '@rocelab/sim';

/** Shared buffer: the SONiC Force10-S6000 ingress lossless pool (PHYSICS §3.2, `buffers_defaults_t1.j2`). */
export const SHARED_BUFFER_BYTES = 12_766_208;

/**
 * `hpcc-ns3` switch buffer: 32 MiB, what HPCC's `third.cc` gives every switch when run as its
 * README says, `./waf --run 'scratch/third mix/config.txt'`, with the shipped config:
 * `BUFFER_SIZE 32` (mix/config.txt line 55 at 7813df4d; "buffer size per switch" in
 * config_doc.txt), applied in `main` by `sw->m_mmu->ConfigBufferSize(buffer_size* 1024 * 1024)`.
 * Not the `SwitchMmu` constructor's 12 MiB (switch-mmu.cc line 25 at 78c386c), which third.cc
 * always overrides, nor third.cc's fallback `buffer_size = 16` (line 79 at d6f94002) for a
 * config without the key; run.py writes `16 * bw / 50` MiB, also 32 at its README's `--bw 100`.
 */
export const HPCC_BUFFER_BYTES = 32 * 1024 * 1024;

/** Dynamic-threshold α = 1/8: SONiC `dynamic_th` −3, HPCC `pfc_a_shift` 3 (PHYSICS §3.1). */
export const DYNAMIC_ALPHA = 1 / 8;

/** Guaranteed bytes per ingress (port, priority) before the shared pool (DESIGN §9; HPCC `reserve` 4096). */
export const RESERVE_BYTES = 4_096;

/** Cable length of the mlx5 headroom formula: see `CABLE_METERS` in @rocelab/sim (headroom.ts). */
export { CABLE_METERS } from '@rocelab/sim';

/** HPCC ns-3's XON hysteresis: resume when shared use + 3072 B ≤ threshold (`resume_offset`, PHYSICS §2.4). */
export const HPCC_RESUME_OFFSET_BYTES = 3_072;

/** Egress lossy queues may use α = 8 of the free pool (SONiC `egress_lossy_profile` dynamic_th 3, PHYSICS §3.2). */
export const EGRESS_LOSSY_ALPHA = 8;

/** Lossless priorities: {3} (DESIGN §9); the `sonic` profile adds 4 (AZURE `pfc_enable: "3,4"`, PHYSICS §2.6). */
export const LOSSLESS_PRIORITIES = [3] as const;
export const SONIC_LOSSLESS_PRIORITIES = [3, 4] as const;

/** DSCP → priority: RoCE 26 → 3, CNP 48 → 6, else 0 (DESIGN §9). */
export const DSCP_PRIORITY = { 26: 3, 48: 6 } as const;
/** SONiC "AZURE" map of the Force10-S6000 `qos.json`: 3→3, 4→4, 8→1, others 0 (PHYSICS §2.6). */
export const SONIC_DSCP_PRIORITY = { 3: 3, 4: 4, 8: 1 } as const;

/** Pauses carry the largest quanta, 0xFFFF (PHYSICS §2.2; DESIGN §9). */
export const PAUSE_QUANTA = 0xffff;

/**
 * ECN on the vendor profile: Kmin 104,000 B, Kmax 312,000 B (S6000 AZURE_LOSSLESS, PHYSICS §1.7);
 * Pmax 0.1 is rocelab's choice (the source leaves the drop probability unset; DESIGN §9).
 */
export const ECN_VENDOR = { kminBytes: 104_000, kmaxBytes: 312_000, pmax: 0.1 } as const;
/** The DCQCN paper at 40G: 5 KB / 200 KB / 1 % (PHYSICS §1.2, [2nd]). */
export const ECN_PAPER = { kminBytes: 5_000, kmaxBytes: 200_000, pmax: 0.01 } as const;
/**
 * Egress queues that may mark: all eight, so the packet alone decides (ECT, or any packet with
 * `markNonEct`), as before the setting existed. `ecn.priorities` narrows it, e.g. to the lossless
 * queues as SONiC's AZURE map puts WRED/ECN on queues 3–4 only (PHYSICS §2.6).
 */
export const ECN_PRIORITIES = [0, 1, 2, 3, 4, 5, 6, 7] as const;
/** HPCC `run.py`: Kmin 100·bw/25 KB, Kmax 400·bw/25 KB (units of 1000 B, bw in Gb/s), Pmax 0.2 (PHYSICS §1.7). */
export const hpccEcn = (rateGbps: number) => ({ kminBytes: (100 * rateGbps * 1000) / 25, kmaxBytes: (400 * rateGbps * 1000) / 25, pmax: 0.2 });

/** The CNP class is served strictly first (DESIGN §5; NVIDIA CNP on priority 6, strict, PHYSICS §2.6). */
export const STRICT_PRIORITIES = [6] as const;

/** SONiC `pfcwd start_default`: detection, restoration and poll 200 ms, action drop (PHYSICS §4.1). */
export const WATCHDOG_VENDOR = { detectionPs: 200 * PS_PER_MS, restorationPs: 200 * PS_PER_MS, pollPs: 200 * PS_PER_MS, action: 'drop' } as const;
/** `timing: drill`: detection 2 ms, restoration 4 ms, poll 1 ms (DESIGN §9, ratios of PHYSICS §7). */
export const WATCHDOG_DRILL = { detectionPs: 2 * PS_PER_MS, restorationPs: 4 * PS_PER_MS, pollPs: 1 * PS_PER_MS, action: 'drop' } as const;

/** ARP entries live 4 h and MAC entries 5 min (DESIGN §5; the mismatch behind Guo et al.'s deadlock). */
export const ARP_AGEING_PS = 4 * 3600 * 1000 * PS_PER_MS;
export const MAC_AGEING_PS = 5 * 60 * 1000 * PS_PER_MS;

/**
 * Tagger: where a packet goes past its last lossless tag when `beyond` is not given — the lossy
 * best-effort class. Hu et al., "Tagger: Practical PFC Deadlock Prevention in Data Center
 * Networks", CoNEXT 2017, §4: a packet whose tag exceeds the lossless queues "is put into a
 * lossy queue", so a bounce that breaks up-down more often than planned loses packets instead of
 * closing a cyclic buffer dependency. Priority 0 is the class DSCP 0 (unmarked traffic) maps to.
 */
export const TAGGER_BEYOND_LOSSY_PRIORITY = 0;
