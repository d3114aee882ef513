/**
 * NIC defaults, each with its source (STYLE §7). Profiles (DESIGN §9) bundle them; the topology
 * file overrides any field per pod (`defaults.nic`) or per host (`nic:`). DCQCN's own
 * parameters are in dcqcn-params.ts.
 */
import { PS_PER_MS, PS_PER_US } from '@rocelab/sim';
import { CNP_DSCP, ROCE_DSCP } from '@rocelab/wire';

/** Receive buffer of the `vendor` NIC: 256 KiB (DESIGN §9). */
export const RX_BUFFER_BYTES = 256 * 1024;

/**
 * Host memory drains the receive buffer faster than the link delivers (DESIGN §9: "default
 * faster than the link"): rocelab's choice is twice the link rate (PCIe Gen3 x16 ≈ 126 Gb/s
 * against a 40–100 Gb/s port).
 */
export const DRAIN_RATE_FACTOR = 2;

/** Local ACK timeout 4.096 µs × 2^14 ≈ 67 ms; `timing: drill` 2^8 ≈ 1 ms (DESIGN §9, PHYSICS §5.3). */
export const ACK_TIMEOUT_EXPONENT = 14;
export const ACK_TIMEOUT_EXPONENT_DRILL = 8;

/** retry_cnt 7 (DESIGN §9); rnr_retry 7 means retry forever (IBTA, PHYSICS §5.3). */
export const RETRY_COUNT = 7;
export const RNR_RETRY = 7;

/** What an RNR NAK asks the requester to wait: code 1 = 10 µs (IBTA Table 45; rocelab's choice of a short timer). */
export const RNR_TIMER_CODE = 1;

/**
 * ACK coalescing: one ACK every 4 in-order packets and always on the last of a message —
 * rocelab's choice (hardware coalesces adaptively; PHYSICS §5.2 leaves `ackEvery` open);
 * `hpcc-ns3` ACKs every packet (`L2_ACK_INTERVAL 1`, PHYSICS §1.6).
 */
export const ACK_EVERY = 4;
export const ACK_EVERY_HPCC = 1;

/** hpcc-ns3 NACKs at most once per 500 µs per expected PSN (`NACK Generation Interval`, PHYSICS §5.2). */
export const HPCC_NAK_INTERVAL_PS = 500 * PS_PER_US;

/** Data rides DSCP 26 (priority 3, lossless), CNPs DSCP 48 (priority 6) (DESIGN §9). */
export const DATA_DSCP = ROCE_DSCP;
export const CNP_PACKET_DSCP = CNP_DSCP;

/**
 * mlx5 stall prevention: critical 8 s (firmware default), minor max(80 ms, 85 % of critical)
 * (PHYSICS §4.6); `timing: drill`: critical 2 ms, minor 85 % of it (DESIGN §9).
 */
export const NIC_WATCHDOG_VENDOR = { criticalPs: 8_000 * PS_PER_MS, minorPs: Math.max(80 * PS_PER_MS, 0.85 * 8_000 * PS_PER_MS) } as const;
export const NIC_WATCHDOG_DRILL = { criticalPs: 2 * PS_PER_MS, minorPs: 0.85 * 2 * PS_PER_MS } as const;

/**
 * Selective repeat (IRN: Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018,
 * §3.1 and §4.1): RTO_low 100 µs while at most N = 3 packets are in flight, RTO_high 320 µs
 * otherwise (the paper's values for its 40 Gb/s fabric). The BDP cap is the QP's own
 * bandwidth-delay product by default: its line rate times the base RTT of its path, in MTUs.
 */
export const SR_RTO_LOW_PS = 100 * PS_PER_US;
export const SR_RTO_HIGH_PS = 320 * PS_PER_US;
export const SR_LOW_RTO_BELOW_PACKETS = 3;

/**
 * The host's TCP-like stack (issue 14). Its fixed costs come from the RDMA lecture's latency
 * breakdown that the issue quotes: the OS costs ≈ 3.75 µs per server crossing (a send, a
 * receive) plus 2–3 µs of scheduling (2.5 µs here, once per write: the application thread must
 * run to issue it). Initial window 10 segments (RFC 6928); RTO before a sample 1 s (RFC 6298
 * §2.1), at least 200 ms (Linux `TCP_RTO_MIN`), at most 120 s (`TCP_RTO_MAX`); DCTCP's gain
 * 1/16 (RFC 8257 §4.2). `timing: drill` shortens both RTO floors to 1 ms, as a datacenter
 * tunes `rto_min` per route, so a loss recovers within a drill's few milliseconds.
 */
export const TCP_SEND_LATENCY_PS = 3_750_000;
export const TCP_RECEIVE_LATENCY_PS = 3_750_000;
export const TCP_SCHEDULING_PS = 2_500_000;
export const TCP_INITIAL_WINDOW_SEGMENTS = 10;
export const TCP_INITIAL_RTO_PS = 1_000 * PS_PER_MS;
export const TCP_MIN_RTO_PS = 200 * PS_PER_MS;
export const TCP_MAX_RTO_PS = 120_000 * PS_PER_MS;
export const TCP_RTO_DRILL_PS = PS_PER_MS;
export const DCTCP_GAIN = 1 / 16;
/** The receive window: Linux's `tcp_rmem` maximum, 6 MiB (`net.ipv4.tcp_rmem = 4096 131072 6291456`). */
export const TCP_RECEIVE_WINDOW_BYTES = 6 * 1024 * 1024;

/** Probes and completion-time histograms: buckets from 1 µs, ×2 up to ~1 s (virtual seconds). */
export const LATENCY_BUCKETS_START_S = 1e-6;
export const LATENCY_BUCKETS_FACTOR = 2;
export const LATENCY_BUCKETS = 21;
