/**
 * The `nic:` keys of the topology file (pod-wide under `defaults.nic`, per host under a node's
 * `nic:`): their JSON Schema, the profile bundles, and the resolution into `NicSettings` with
 * every bad value reported as a problem naming the field and its valid range.
 *
 * ```yaml
 * defaults:
 *   nic: {recovery: goBack0, dcqcn: {enabled: true, rateIncreaseTimer: 55us}, drainRate: 20G}
 * nodes:
 *   - {name: h4, role: host, ip: 10.0.0.4, nic: {dcqcn: {enabled: false}}}
 * ```
 */
import { PFC_MAX_QUANTA, PFC_QUANTUM_BITS, RETH_BYTES, ROCE_HEADER_BYTES } from '@rocelab/wire';
import { pauseLoopLatencyPs, readField, serializationPs, vendorHeadroomBytes, type FieldProblem, type Profile, type Timing, type UnitParsers } from '@rocelab/sim';
import { localAckTimeoutPs } from './aeth.js';
import type { CcKind } from './cc.js';
import { HPCC_DEFAULTS, type HpccParams } from './hpcc.js';
import { TIMELY_DEFAULTS, TIMELY_KEYS, checkTimelyParams, type TimelyParams } from './timely.js';
import { DCTCP_DEFAULTS, DCTCP_KEYS, checkDctcpParams, type DctcpParams } from './dctcp.js';
import { checkDcqcnParams, dcqcnDefaults, type DcqcnParams, type DcqcnVariant } from './dcqcn-params.js';
import {
  ACK_EVERY,
  ACK_EVERY_HPCC,
  ACK_TIMEOUT_EXPONENT,
  ACK_TIMEOUT_EXPONENT_DRILL,
  CNP_PACKET_DSCP,
  DATA_DSCP,
  DRAIN_RATE_FACTOR,
  HPCC_NAK_INTERVAL_PS,
  NIC_WATCHDOG_DRILL,
  NIC_WATCHDOG_VENDOR,
  RETRY_COUNT,
  RNR_RETRY,
  RNR_TIMER_CODE,
  RX_BUFFER_BYTES,
  SR_LOW_RTO_BELOW_PACKETS,
  SR_RTO_HIGH_PS,
  SR_RTO_LOW_PS,
  DCTCP_GAIN,
  TCP_INITIAL_RTO_PS,
  TCP_INITIAL_WINDOW_SEGMENTS,
  TCP_MAX_RTO_PS,
  TCP_MIN_RTO_PS,
  TCP_RECEIVE_LATENCY_PS,
  TCP_RECEIVE_WINDOW_BYTES,
  TCP_RTO_DRILL_PS,
  TCP_SCHEDULING_PS,
  TCP_SEND_LATENCY_PS,
} from './defaults.js';
import type { NicWatchdogConfig } from './nic-pfc.js';
import type { Recovery } from './rc-requester.js';

export interface NicSettings {
  recovery: Recovery;
  /**
   * Selective repeat (IRN): the cap on packets in flight (null: the QP's own bandwidth-delay
   * product, from its path), the two timeouts, and whether it may run on a lossless priority.
   */
  selectiveRepeat: { bdpCapPackets: number | null; rtoLowPs: number; rtoHighPs: number; lowRtoBelowPackets: number; onLossless: boolean };
  /**
   * The host's TCP-like stack (connections with `transport: tcp|dctcp`): the kernel's send and
   * receive costs and the scheduling of the writing thread, the window and timer parameters,
   * DCTCP's gain, and the MSS (null: the port's MTU, the payload an RDMA packet carries).
   */
  tcp: { sendLatencyPs: number; receiveLatencyPs: number; schedulingPs: number; initialWindowSegments: number; initialRtoPs: number; minRtoPs: number; maxRtoPs: number; dctcpGain: number; mssBytes: number | null; receiveWindowBytes: number };
  /** Local ACK timeout; null = none (hpcc-ns3). */
  ackTimeoutPs: number | null;
  retryCount: number;
  rnrRetry: number;
  rnrTimerCode: number;
  ackEvery: number;
  /**
   * UDP ports of the QPs this host opens without a flow's own `udpPorts` (issue 26): `roce`
   * (49152 + QPN → 4791) or `hpcc-ns3` (HPCC third.cc: source port from 10000 per destination
   * host in workload order, destination port 100; PHYSICS §8).
   */
  udpPorts: 'roce' | 'hpcc-ns3';
  nakPolicy: 'oncePerGap' | 'hpcc';
  nakIntervalPs: number;
  /** Receives each responder QP has posted for SENDs. */
  postedReceives: number;
  dcqcn: { enabled: boolean; variant: DcqcnVariant; params: DcqcnParams };
  cnpIntervalPs: number;
  dataDscp: number;
  cnpDscp: number;
  pfc: {
    bufferBytes: number;
    xoffBytes: number;
    xonBytes: number;
    drainBps: number;
    lossless: number[];
    watchdog: NicWatchdogConfig;
  };
  /** A standing pause is renewed every half pause time at the link rate. */
  pfcRefreshPs: number;
  /**
   * ACKs and NAKs leave even while PAUSE holds their priority at this NIC (issue 26): hpcc-ns3's
   * `ACK_HIGH_PRIO 1`, whose hosts send them from a queue PAUSE does not stop (HPCC third.cc
   * main, qbb-net-device.cc `GetNextQindex`) while its switches still count them in the lossless
   * queue (switch-node.cc `SendToDev`). False: they wait for the resume, as data does.
   */
  ackIgnoresPause: boolean;
  /** Export per-QP DCQCN rate, target and α (bounded to the first 16 QPs). */
  qpMetrics: boolean;
  /** A rate increase shortens a pacing gap already running (hardware limiters); false in hpcc-ns3. */
  repace: boolean;
  /**
   * Responders answer a duplicate atomic from their cache of replies (IB requires it). Test
   * only: false applies a retried atomic again, to show what the cache prevents (atomic-counter).
   */
  atomicReplyCache: boolean;
  /**
   * The QPs' congestion control (issue 26; HPCC ns-3 CC_MODE): `dcqcn` (the default, with
   * `dcqcn:` above), `hpcc`, `timely` or `dctcp`. Other than DCQCN, a receiver sends no CNP
   * packets: the ACK of a CE-marked packet carries the flag (HPCC rdma-hw.cc `ReceiveUdp`).
   */
  cc: CcKind;
  /**
   * HPCC's parameters (`hpcc:`; mix/config.txt defaults). `wai` is a rate (HPCC ns-3's RATE_AI,
   * `aiBps`) or, written in bytes, the paper's W_AI (`waiBytes`), which a QP turns into the rate
   * W_AI·8/T with the pod's base RTT T (the paper's window and rate are one: W = R·T).
   */
  hpcc: HpccParams & { waiBytes: number | null };
  /** TIMELY's parameters (`timely:`; HPCC ns-3's rdma-hw.cc attribute defaults, PHYSICS §10). */
  timely: TimelyParams;
  /** DCTCP over RoCE's parameters (`dctcp:`; mix/config.txt EWMA_GAIN, DCTCP_RATE_AI, MIN_RATE; PHYSICS §11). */
  dctcp: DctcpParams;
  /**
   * HAS_WIN: a QP may have at most `bytes` in flight (null: the pod's largest bandwidth-delay
   * product, third.cc `maxBdp` under GLOBAL_T 1), scaled by rate / line rate with `varWin`
   * (VAR_WIN). Off unless written, except under `cc: hpcc` (mix/config.txt HAS_WIN 1).
   */
  window: { enabled: boolean; bytes: number | null; varWin: boolean };
}

/** The port a NIC sizes its buffer for: what arrives from its ToR. */
export interface NicPort {
  in: { rateBps: number; latencyPs: number; mtu: number };
  /** The NIC's own direction, which its pauses take (without one: as long as `in`). */
  out?: { latencyPs: number };
}

/** A bad value in a `nic:` object (the shared FieldProblem of @rocelab/sim). */
export type NicProblem = FieldProblem;

const DURATION = { type: 'string', description: 'a duration like 1ms, 300us or 55us' } as const;
const RATE = { type: ['string', 'integer'], description: 'a rate like 40G, 100M or 5M' } as const;
const BYTES = { type: ['integer', 'string'], description: 'a size in bytes: an integer or a string like 256KiB' } as const;

/** DCQCN parameters in file units: `…Ps` as durations, `…Bps` as rates, `…Bytes` as sizes. */
const DCQCN_KEYS: Record<string, { param: keyof DcqcnParams; unit: 'duration' | 'rate' | 'bytes' | 'number' | 'integer' | 'boolean' }> = {
  g: { param: 'g', unit: 'number' },
  gFixed: { param: 'gFixed', unit: 'integer' },
  initialAlpha: { param: 'initialAlpha', unit: 'number' },
  alphaPeriod: { param: 'alphaPeriodPs', unit: 'duration' },
  rateDecreasePeriod: { param: 'rateDecreasePeriodPs', unit: 'duration' },
  rateIncreaseTimer: { param: 'rateIncreaseTimerPs', unit: 'duration' },
  byteCounter: { param: 'byteCounterBytes', unit: 'bytes' },
  fastRecoverySteps: { param: 'fastRecoverySteps', unit: 'integer' },
  aiRate: { param: 'aiRateBps', unit: 'rate' },
  haiRate: { param: 'haiRateBps', unit: 'rate' },
  minRate: { param: 'minRateBps', unit: 'rate' },
  clampTargetRate: { param: 'clampTargetRate', unit: 'boolean' },
  clampTargetAfterTimeIncrease: { param: 'clampTargetAfterTimeIncrease', unit: 'boolean' },
  rateOnFirstCnp: { param: 'rateOnFirstCnp', unit: 'number' },
  rpgGd: { param: 'rpgGd', unit: 'integer' },
  minDecFactorPercent: { param: 'minDecFactorPercent', unit: 'integer' },
  cnpInterval: { param: 'cnpIntervalPs', unit: 'duration' },
};
const SCHEMA_OF = { duration: DURATION, rate: RATE, bytes: BYTES, number: { type: 'number' }, integer: { type: 'integer' }, boolean: { type: 'boolean' } } as const;

/** One `nic:` object; every key optional (the profile fills the rest). */
export const nicConfigSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'NIC settings',
  properties: {
    recovery: { enum: ['goBackN', 'goBack0', 'selectiveRepeat'], description: 'goBackN, goBack0 or selectiveRepeat' },
    selectiveRepeat: {
      type: 'object',
      additionalProperties: false,
      description: 'selective repeat (IRN) {bdpCap, rtoLow, rtoHigh, lowRtoBelow, onLossless}',
      properties: {
        bdpCap: { type: ['integer', 'string'], description: 'packets in flight at most (an integer ≥ 1), or auto: the QP\'s bandwidth-delay product' },
        rtoLow: DURATION,
        rtoHigh: DURATION,
        lowRtoBelow: { type: 'integer', description: 'packets in flight up to which rtoLow applies, ≥ 0' },
        onLossless: { type: 'boolean', description: 'true to run selective repeat on a priority PFC protects (it does not need it)' },
      },
    },
    tcp: {
      type: 'object',
      additionalProperties: false,
      description: 'the host TCP stack {sendLatency, receiveLatency, scheduling, initialWindow, initialRto, minRto, dctcpGain, mss, receiveWindow}',
      properties: {
        sendLatency: DURATION,
        receiveLatency: DURATION,
        scheduling: DURATION,
        initialWindow: { type: 'integer', description: 'the initial window in segments, ≥ 1' },
        initialRto: DURATION,
        minRto: DURATION,
        dctcpGain: { type: 'number', description: "DCTCP's gain g, 0 < g ≤ 1" },
        mss: BYTES,
        receiveWindow: BYTES,
      },
    },
    losslessPriorities: { type: 'array', items: { type: 'integer' }, description: 'the priorities the NIC pauses with PFC, 0..7 each ([] = no PFC)' },
    ackTimeout: { type: 'string', description: 'a duration like 67ms, or none' },
    retryCount: { type: 'integer', description: 'a retry count 0..7' },
    rnrRetry: { type: 'integer', description: 'an RNR retry count 0..7 (7 = forever)' },
    rnrTimerCode: { type: 'integer', description: 'an IBTA RNR timer code 0..31' },
    ackEvery: { type: 'integer', description: 'ACK every n packets, n ≥ 1' },
    udpPorts: { enum: ['roce', 'hpcc-ns3'], description: 'roce (49152 + QPN to 4791) or hpcc-ns3 (from 10000 per destination host, to port 100)' },
    postedReceives: { type: 'integer', description: 'receives posted per QP, ≥ 0' },
    dataDscp: { type: 'integer', description: 'a DSCP 0..63' },
    rxBufferBytes: BYTES,
    xoffBytes: BYTES,
    xonBytes: BYTES,
    drainRate: RATE,
    ackIgnoresPause: { type: 'boolean', description: "true (ACKs and NAKs leave while their priority is paused: hpcc-ns3's ACK_HIGH_PRIO 1) or false (they wait, as data does)" },
    watchdog: {
      type: 'object',
      additionalProperties: false,
      description: 'NIC stall prevention {enabled, critical, minor}',
      properties: { enabled: { type: 'boolean' }, critical: DURATION, minor: DURATION },
    },
    qpMetrics: { type: 'boolean' },
    atomicReplyCache: { type: 'boolean', description: 'true (IB), or false to show what the cache of atomic replies prevents (test only)' },
    cc: { enum: ['dcqcn', 'hpcc', 'timely', 'dctcp'], description: 'the congestion control: dcqcn, hpcc, timely or dctcp' },
    hpcc: {
      type: 'object',
      additionalProperties: false,
      description: 'HPCC {eta, maxStage, wai, fastReact, multiRate, sampleFeedback, minRate}',
      properties: {
        eta: { type: 'number', description: 'the target utilisation η, 0 < η ≤ 1' },
        maxStage: { type: 'integer', description: 'additive steps before a multiplicative one, ≥ 0' },
        wai: RATE,
        fastReact: { type: 'boolean' },
        multiRate: { type: 'boolean' },
        sampleFeedback: { type: 'boolean' },
        minRate: RATE,
      },
    },
    window: {
      type: 'object',
      additionalProperties: false,
      description: 'a window of bytes in flight per QP {enabled, bytes, varWin}',
      properties: {
        enabled: { type: 'boolean' },
        bytes: { type: ['integer', 'string'], description: 'a size in bytes, or auto: the largest bandwidth-delay product between two hosts' },
        varWin: { type: 'boolean', description: 'scale the window with the rate (HPCC VAR_WIN)' },
      },
    },
    timely: {
      type: 'object',
      additionalProperties: false,
      description: `TIMELY {${Object.keys(TIMELY_KEYS).join(', ')}}`,
      properties: Object.fromEntries(Object.entries(TIMELY_KEYS).map(([key, d]) => [key, SCHEMA_OF[d.unit]])),
    },
    dctcp: {
      type: 'object',
      additionalProperties: false,
      description: `DCTCP over RoCE {${Object.keys(DCTCP_KEYS).join(', ')}}`,
      properties: Object.fromEntries(Object.entries(DCTCP_KEYS).map(([key, d]) => [key, SCHEMA_OF[d.unit]])),
    },
    dcqcn: {
      type: 'object',
      additionalProperties: false,
      description: 'DCQCN {enabled, and any parameter of the profile}',
      properties: { enabled: { type: 'boolean' }, ...Object.fromEntries(Object.entries(DCQCN_KEYS).map(([key, d]) => [key, SCHEMA_OF[d.unit]])) },
    },
  },
} as const;

/** The profile's NIC, sized for its port. */
export function nicProfileSettings(profile: Profile, timing: Timing, port: NicPort): NicSettings {
  const hpcc = profile === 'hpcc-ns3';
  const variant: DcqcnVariant = hpcc ? 'hpcc-ns3' : profile === 'paper' ? 'paper' : 'vendor';
  const params = dcqcnDefaults(variant, port.in.rateBps);
  const maxFrame = port.in.mtu + ROCE_HEADER_BYTES + RETH_BYTES;
  const xoff = RX_BUFFER_BYTES - vendorHeadroomBytes(port.in.rateBps, pauseLoopLatencyPs(port), maxFrame);
  return {
    recovery: 'goBackN',
    tcp: {
      sendLatencyPs: TCP_SEND_LATENCY_PS,
      receiveLatencyPs: TCP_RECEIVE_LATENCY_PS,
      schedulingPs: TCP_SCHEDULING_PS,
      initialWindowSegments: TCP_INITIAL_WINDOW_SEGMENTS,
      initialRtoPs: timing === 'drill' ? TCP_RTO_DRILL_PS : TCP_INITIAL_RTO_PS,
      minRtoPs: timing === 'drill' ? TCP_RTO_DRILL_PS : TCP_MIN_RTO_PS,
      maxRtoPs: TCP_MAX_RTO_PS,
      dctcpGain: DCTCP_GAIN,
      mssBytes: null,
      receiveWindowBytes: TCP_RECEIVE_WINDOW_BYTES,
    },
    selectiveRepeat: { bdpCapPackets: null, rtoLowPs: SR_RTO_LOW_PS, rtoHighPs: SR_RTO_HIGH_PS, lowRtoBelowPackets: SR_LOW_RTO_BELOW_PACKETS, onLossless: false },
    ackTimeoutPs: hpcc ? null : localAckTimeoutPs(timing === 'drill' ? ACK_TIMEOUT_EXPONENT_DRILL : ACK_TIMEOUT_EXPONENT),
    retryCount: RETRY_COUNT,
    rnrRetry: RNR_RETRY,
    rnrTimerCode: RNR_TIMER_CODE,
    ackEvery: hpcc ? ACK_EVERY_HPCC : ACK_EVERY,
    udpPorts: 'roce',
    nakPolicy: hpcc ? 'hpcc' : 'oncePerGap',
    nakIntervalPs: HPCC_NAK_INTERVAL_PS,
    postedReceives: Number.MAX_SAFE_INTEGER,
    dcqcn: { enabled: true, variant, params },
    cnpIntervalPs: params.cnpIntervalPs ?? 0,
    dataDscp: DATA_DSCP,
    ackIgnoresPause: false,
    cnpDscp: CNP_PACKET_DSCP,
    pfc: {
      bufferBytes: RX_BUFFER_BYTES,
      xoffBytes: xoff,
      xonBytes: xoff - maxFrame,
      drainBps: DRAIN_RATE_FACTOR * port.in.rateBps,
      lossless: profile === 'sonic' ? [3, 4] : [3],
      watchdog: { enabled: true, ...(timing === 'drill' ? NIC_WATCHDOG_DRILL : NIC_WATCHDOG_VENDOR) },
    },
    pfcRefreshPs: Math.floor((PFC_MAX_QUANTA * serializationPs(PFC_QUANTUM_BITS / 8, port.in.rateBps)) / 2),
    qpMetrics: false,
    repace: !hpcc,
    atomicReplyCache: true,
    cc: 'dcqcn',
    hpcc: { ...HPCC_DEFAULTS, waiBytes: null },
    timely: { ...TIMELY_DEFAULTS },
    dctcp: { ...DCTCP_DEFAULTS },
    window: { enabled: false, bytes: null, varWin: true },
  };
}

type Raw = Record<string, unknown>;
/** `applyLayer`'s field reader: the parsed value, or undefined with a problem recorded. */
type ParseField = (field: string, value: unknown, fn: (v: never) => unknown) => unknown;

/** Profile, then `defaults.nic`, then the host's `nic:` — each field overrides. */
export function resolveNicSettings(
  profile: Profile,
  timing: Timing,
  port: NicPort,
  layers: ReadonlyArray<Raw | undefined>,
  units: UnitParsers,
  problems: NicProblem[],
): NicSettings {
  const s = nicProfileSettings(profile, timing, port);
  const written: Record<string, unknown> = {};
  for (const raw of layers) if (raw !== undefined) applyLayer(s, raw, units, problems, written);
  checkTogether(s, port, problems, written);
  return s;
}

/** `written` collects the DCQCN values as the file spells them (`80G`), for error messages. */
function applyLayer(s: NicSettings, raw: Raw, units: UnitParsers, problems: NicProblem[], written: Record<string, unknown>): void {
  const parse = <T>(field: string, value: unknown, fn: (v: never) => T, ok: (v: T) => boolean = () => true, expected = '') =>
    readField(problems, field, value, fn, (v: T) => (ok(v) ? null : expected));
  const int = (lo: number, hi: number) => (v: number) => Number.isInteger(v) && v >= lo && v <= hi;
  const set = <K extends keyof NicSettings>(key: K, value: NicSettings[K] | undefined) => {
    if (value !== undefined) s[key] = value;
  };
  set('recovery', raw.recovery as Recovery | undefined);
  const sr = raw.selectiveRepeat as Raw | undefined;
  if (sr !== undefined) {
    const cur = s.selectiveRepeat;
    s.selectiveRepeat = {
      bdpCapPackets: sr.bdpCap === 'auto' ? null : (parse('selectiveRepeat.bdpCap', sr.bdpCap, Number, int(1, 1 << 20), 'packets in flight at most, an integer ≥ 1, or auto') ?? cur.bdpCapPackets),
      rtoLowPs: parse('selectiveRepeat.rtoLow', sr.rtoLow, units.duration, (v) => v > 0, 'a duration > 0') ?? cur.rtoLowPs,
      rtoHighPs: parse('selectiveRepeat.rtoHigh', sr.rtoHigh, units.duration, (v) => v > 0, 'a duration > 0') ?? cur.rtoHighPs,
      lowRtoBelowPackets: parse('selectiveRepeat.lowRtoBelow', sr.lowRtoBelow, Number, int(0, 1 << 20), 'packets in flight, ≥ 0') ?? cur.lowRtoBelowPackets,
      onLossless: (sr.onLossless as boolean | undefined) ?? cur.onLossless,
    };
  }
  const tcp = raw.tcp as Raw | undefined;
  if (tcp !== undefined) {
    const t = s.tcp;
    const latency = (key: string, value: unknown, current: number) => parse(`tcp.${key}`, value, units.duration, (v) => v >= 0, 'a duration ≥ 0') ?? current;
    const timeout = (key: string, value: unknown, current: number) => parse(`tcp.${key}`, value, units.duration, (v) => v > 0, 'a duration > 0') ?? current;
    s.tcp = {
      ...t,
      sendLatencyPs: latency('sendLatency', tcp.sendLatency, t.sendLatencyPs),
      receiveLatencyPs: latency('receiveLatency', tcp.receiveLatency, t.receiveLatencyPs),
      schedulingPs: latency('scheduling', tcp.scheduling, t.schedulingPs),
      initialWindowSegments: parse('tcp.initialWindow', tcp.initialWindow, Number, int(1, 1 << 16), 'the initial window in segments, ≥ 1') ?? t.initialWindowSegments,
      initialRtoPs: timeout('initialRto', tcp.initialRto, t.initialRtoPs),
      minRtoPs: timeout('minRto', tcp.minRto, t.minRtoPs),
      dctcpGain: parse('tcp.dctcpGain', tcp.dctcpGain, Number, (v) => v > 0 && v <= 1, "DCTCP's gain g, 0 < g ≤ 1") ?? t.dctcpGain,
      mssBytes: parse('tcp.mss', tcp.mss, units.bytes, (v) => v >= 1 && v <= 65_000, 'an MSS in bytes, 1..65000') ?? t.mssBytes,
      receiveWindowBytes: parse('tcp.receiveWindow', tcp.receiveWindow, units.bytes, (v) => v >= 1, 'a receive window in bytes ≥ 1') ?? t.receiveWindowBytes,
    };
  }
  const lossless = parse('losslessPriorities', raw.losslessPriorities, (v: unknown[]) => v as number[], (v) => v.every(int(0, 7)) && new Set(v).size === v.length, 'a list of distinct priorities 0..7');
  if (lossless !== undefined) s.pfc.lossless = lossless;
  set('ackIgnoresPause', raw.ackIgnoresPause as boolean | undefined);
  set('ackTimeoutPs', parse('ackTimeout', raw.ackTimeout, (v: string) => (v === 'none' ? null : units.duration(v)), (v) => v === null || v > 0, 'a duration > 0, or none'));
  set('retryCount', parse('retryCount', raw.retryCount, Number, int(0, 7), 'a retry count 0..7'));
  set('rnrRetry', parse('rnrRetry', raw.rnrRetry, Number, int(0, 7), 'an RNR retry count 0..7 (7 = forever)'));
  set('rnrTimerCode', parse('rnrTimerCode', raw.rnrTimerCode, Number, int(0, 31), 'an IBTA RNR timer code 0..31'));
  set('ackEvery', parse('ackEvery', raw.ackEvery, Number, int(1, 1 << 20), 'ACK every n packets, n ≥ 1'));
  set('udpPorts', raw.udpPorts as NicSettings['udpPorts'] | undefined);
  if (raw.ackEvery !== undefined) written.ackEvery = raw.ackEvery;
  set('postedReceives', parse('postedReceives', raw.postedReceives, Number, int(0, Number.MAX_SAFE_INTEGER), 'receives posted per QP, ≥ 0'));
  set('dataDscp', parse('dataDscp', raw.dataDscp, Number, int(0, 63), 'a DSCP 0..63'));
  set('qpMetrics', raw.qpMetrics as boolean | undefined);
  set('atomicReplyCache', raw.atomicReplyCache as boolean | undefined);
  const pfc = s.pfc;
  pfc.bufferBytes = parse('rxBufferBytes', raw.rxBufferBytes, units.bytes, (v) => v > 0, 'a receive buffer in bytes > 0') ?? pfc.bufferBytes;
  pfc.xoffBytes = parse('xoffBytes', raw.xoffBytes, units.bytes) ?? pfc.xoffBytes;
  pfc.xonBytes = parse('xonBytes', raw.xonBytes, units.bytes) ?? pfc.xonBytes;
  pfc.drainBps = parse('drainRate', raw.drainRate, units.rate) ?? pfc.drainBps;
  const wd = raw.watchdog as Raw | undefined;
  if (wd !== undefined) {
    pfc.watchdog = {
      enabled: (wd.enabled as boolean | undefined) ?? pfc.watchdog.enabled,
      criticalPs: parse('watchdog.critical', wd.critical, units.duration, (v) => v > 0, 'a critical timeout > 0') ?? pfc.watchdog.criticalPs,
      minorPs: parse('watchdog.minor', wd.minor, units.duration, (v) => v > 0, 'a minor timeout > 0') ?? pfc.watchdog.minorPs,
    };
  }
  set('cc', raw.cc as CcKind | undefined);
  const hp = raw.hpcc as Raw | undefined;
  if (hp !== undefined) {
    const h = s.hpcc;
    // A size (`64B`, `1KB`, `1KiB`) is the paper's W_AI in bytes; anything else a rate (RATE_AI).
    const waiOf = (v: unknown, cur: typeof h): { aiBps: number; waiBytes: number | null } => {
      if (v === undefined) return { aiBps: cur.aiBps, waiBytes: cur.waiBytes };
      if (typeof v === 'string' && /^\d+(\.\d+)?(B|KB|MB|GB|KiB|MiB|GiB)$/.test(v)) {
        const bytes = parse('hpcc.wai', v, units.bytes, (b) => Number.isInteger(b) && b >= 1, 'an additive increase W_AI ≥ 1 byte');
        return { aiBps: cur.aiBps, waiBytes: bytes ?? cur.waiBytes };
      }
      const bps = parse('hpcc.wai', v, units.rate, (r) => r > 0, 'an additive increase W_AI: a rate > 0 like 50M (RATE_AI), or a size like 80B');
      return { aiBps: bps ?? cur.aiBps, waiBytes: bps === undefined ? cur.waiBytes : null };
    };
    s.hpcc = {
      eta: parse('hpcc.eta', hp.eta, Number, (v) => v > 0 && v <= 1, 'a target utilisation η, 0 < η ≤ 1') ?? h.eta,
      maxStage: parse('hpcc.maxStage', hp.maxStage, Number, int(0, 1 << 20), 'additive steps before a multiplicative one, an integer ≥ 0') ?? h.maxStage,
      ...waiOf(hp.wai, h),
      fastReact: (hp.fastReact as boolean | undefined) ?? h.fastReact,
      multiRate: (hp.multiRate as boolean | undefined) ?? h.multiRate,
      sampleFeedback: (hp.sampleFeedback as boolean | undefined) ?? h.sampleFeedback,
      minRateBps: parse('hpcc.minRate', hp.minRate, units.rate, (v) => v > 0, 'a rate > 0, like 100M') ?? h.minRateBps,
    };
  }
  const win = raw.window as Raw | undefined;
  if (win !== undefined) {
    const w = s.window;
    if (win.enabled !== undefined) written['window.enabled'] = win.enabled;
    s.window = {
      enabled: (win.enabled as boolean | undefined) ?? w.enabled,
      bytes: win.bytes === 'auto' ? null : (parse('window.bytes', win.bytes, units.bytes, (v) => Number.isInteger(v) && v >= 1, 'a window in bytes ≥ 1, or auto') ?? w.bytes),
      varWin: (win.varWin as boolean | undefined) ?? w.varWin,
    };
  }
  s.timely = paramsOf('timely', raw.timely as Raw | undefined, TIMELY_KEYS, s.timely, units, parse, written);
  s.dctcp = paramsOf('dctcp', raw.dctcp as Raw | undefined, DCTCP_KEYS, s.dctcp, units, parse, written);
  const dcqcn = raw.dcqcn as Raw | undefined;
  if (dcqcn !== undefined) {
    s.dcqcn.enabled = (dcqcn.enabled as boolean | undefined) ?? s.dcqcn.enabled;
    s.dcqcn.params = paramsOf('dcqcn', dcqcn, DCQCN_KEYS, s.dcqcn.params, units, parse, written);
    if (s.dcqcn.params.cnpIntervalPs !== null) s.cnpIntervalPs = s.dcqcn.params.cnpIntervalPs;
  }
}

function checkTogether(s: NicSettings, port: NicPort, problems: NicProblem[], written: Record<string, unknown>): void {
  // A parameter problem names the file's key (`dcqcn.aiRate`) and the value as written.
  const paramProblems = (name: string, keys: Readonly<Record<string, { param: string | number | symbol }>>, found: readonly FieldProblem[]): void => {
    const userKey = new Map(Object.entries(keys).map(([key, d]) => [String(d.param), key]));
    for (const p of found) problems.push({ field: `${name}.${userKey.get(p.field) ?? p.field}`, expected: p.expected, actual: written[`${name}.${p.field}`] ?? p.actual });
  };
  paramProblems('dcqcn', DCQCN_KEYS, checkDcqcnParams(s.dcqcn.params, port.in.rateBps));
  // mix/config.txt runs HPCC with HAS_WIN 1: the window is on unless a layer said otherwise.
  if (s.cc === 'hpcc' && written['window.enabled'] === undefined) s.window.enabled = true;
  // HPCC reads INT from every ACK (mix/config.txt L2_ACK_INTERVAL 1); coalesced ACKs would also
  // hold a window smaller than the coalescing back until the ACK timeout.
  if (s.cc === 'hpcc' && written.ackEvery === undefined) s.ackEvery = 1;
  if (s.hpcc.waiBytes === null && s.hpcc.aiBps > port.in.rateBps) problems.push({ field: 'hpcc.wai', expected: `an additive increase no faster than the port (${port.in.rateBps / 1e9} Gb/s)`, actual: s.hpcc.aiBps });
  if (s.hpcc.minRateBps > port.in.rateBps) problems.push({ field: 'hpcc.minRate', expected: `a minimum rate no faster than the port (${port.in.rateBps / 1e9} Gb/s)`, actual: s.hpcc.minRateBps });
  // TIMELY and DCTCP react to every ACK (mix/config.txt L2_ACK_INTERVAL 1); DCTCP's α is the
  // fraction of ACKs that echo a mark, which coalescing would skew.
  if ((s.cc === 'timely' || s.cc === 'dctcp') && written.ackEvery === undefined) s.ackEvery = 1;
  paramProblems('timely', TIMELY_KEYS, checkTimelyParams(s.timely, port.in.rateBps));
  paramProblems('dctcp', DCTCP_KEYS, checkDctcpParams(s.dctcp, port.in.rateBps));
  const pfc = s.pfc;
  if (pfc.xoffBytes > pfc.bufferBytes) problems.push({ field: 'xoffBytes', expected: `an XOFF threshold within the receive buffer (≤ ${pfc.bufferBytes} B)`, actual: pfc.xoffBytes });
  else if (pfc.xonBytes >= pfc.xoffBytes) problems.push({ field: 'xonBytes', expected: `an XON threshold below XOFF (< ${pfc.xoffBytes} B)`, actual: pfc.xonBytes });
  if (!(pfc.drainBps > 0)) problems.push({ field: 'drainRate', expected: 'a drain rate > 0', actual: pfc.drainBps });
  if (s.selectiveRepeat.rtoLowPs > s.selectiveRepeat.rtoHighPs) problems.push({ field: 'selectiveRepeat.rtoLow', expected: `a low timeout no longer than rtoHigh (${s.selectiveRepeat.rtoHighPs / 1e6} us)`, actual: s.selectiveRepeat.rtoLowPs });
  if (pfc.watchdog.minorPs > pfc.watchdog.criticalPs) problems.push({ field: 'watchdog.minor', expected: 'a minor timeout no longer than the critical one', actual: pfc.watchdog.minorPs });
}

/** A `dcqcn:`, `timely:` or `dctcp:` object over the profile's parameters: each key in file units, parsed by its unit. */
function paramsOf<P extends object>(name: string, raw: Raw | undefined, keys: Readonly<Record<string, { param: keyof P; unit: string }>>, current: P, units: UnitParsers, parse: ParseField, written: Record<string, unknown>): P {
  if (raw === undefined) return current;
  const params: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, { param, unit }] of Object.entries(keys)) {
    const value = raw[key];
    if (value === undefined) continue;
    const parser = unit === 'duration' ? units.duration : unit === 'rate' ? units.rate : unit === 'bytes' ? units.bytes : (v: unknown) => v;
    const parsed = parse(`${name}.${key}`, value, parser as (v: never) => unknown);
    if (parsed !== undefined) params[param as string] = parsed;
    written[`${name}.${String(param)}`] = value;
  }
  return params as P;
}
