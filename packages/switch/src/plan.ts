/**
 * One switch's buffer plan from its settings and its ports: headroom per port, what the pool
 * sets aside, XON hysteresis, pause refresh periods — and the checks that the thresholds fit
 * the buffer at all (reported by the topology loader before anything starts).
 */
import { PFC_PRIORITIES, PFC_QUANTUM_BITS, RETH_BYTES, ROCE_HEADER_BYTES } from '@rocelab/wire';
import { CREDIT_BLOCK_BYTES, hpccHeadroomBytes, pauseLoopLatencyPs, serializationPs, vendorHeadroomBytes } from '@rocelab/sim';
import type { SwitchProblem } from './config.js';
import type { MmuConfig } from './mmu.js';
import type { SwitchSettings } from './profiles.js';

/** What the plan needs to know of each port: the direction arriving on it (the upstream's). */
export interface PortLink {
  in: { rateBps: number; latencyPs: number; mtu: number; credit?: { bufferBlocks: number } };
  /** This port's own direction, which its pauses take (without one: as long as `in`), and its rate (without one: `in`'s). */
  out?: { latencyPs: number; rateBps?: number };
}

/** The RED thresholds of one egress port (`ecn.byRate`). */
export interface PortEcn {
  kminBytes: number;
  kmaxBytes: number;
  pmax: number;
}

export interface SwitchPlan {
  mmu: MmuConfig;
  /** Refresh period of a standing pause per port; null = none. */
  refreshPs: Array<number | null>;
  /** The largest frame a port carries (a full WRITE FIRST), for DWRR quanta and hysteresis. */
  maxFrameBytes: number;
  /** Per egress port: its rate's `ecn.byRate` entry, null for the switch's `ecn`; absent without `ecn.byRate`. */
  ecnByPort?: Array<PortEcn | null>;
}

/**
 * A port's link rate as HPCC ns-3 reads it for ECN and α: the rate its own device sends at
 * (third.cc `main`: `dev->GetDataRate()` of the switch's device j).
 */
const portRateBps = (p: PortLink): number => p.out?.rateBps ?? p.in.rateBps;

export function planSwitch(s: SwitchSettings, ports: readonly PortLink[], problems: SwitchProblem[]): SwitchPlan | null {
  const maxFrameBytes = Math.max(...ports.map((p) => p.in.mtu + ROCE_HEADER_BYTES + RETH_BYTES), 64);
  // A credit port has no pauses, so no headroom: its lanes' buffers are reserved whole instead (issue 14).
  const creditPorts = ports.map((p) => p.in.credit !== undefined);
  const creditReserveBytes = ports.reduce((n, p) => n + (p.in.credit === undefined ? 0 : PFC_PRIORITIES * p.in.credit.bufferBlocks * CREDIT_BLOCK_BYTES), 0);
  const headroomBytes = ports.map((p) => {
    if (p.in.credit !== undefined) return 0;
    const latencyPs = pauseLoopLatencyPs(p);
    return s.headroomBytes ?? (s.headroomModel === 'hpcc' ? hpccHeadroomBytes(p.in.rateBps, latencyPs) : vendorHeadroomBytes(p.in.rateBps, latencyPs, p.in.mtu + ROCE_HEADER_BYTES + RETH_BYTES, s.cableMeters));
  });
  const lossless = Array.from({ length: 8 }, (_, p) => s.losslessPriorities.includes(p));
  const losslessCount = s.losslessPriorities.length;
  const perPriority = s.budget === 'perPriority';
  const totalReserveBytes = s.reserveBytes * ports.length * (perPriority ? 8 : 1) + creditReserveBytes;
  const totalHeadroomBytes = headroomBytes.reduce((a, b) => a + b, 0) * (perPriority ? losslessCount : 1);
  const poolBytes = s.bufferBytes - totalReserveBytes - totalHeadroomBytes;
  if (poolBytes <= 0) {
    problems.push({
      field: 'bufferBytes',
      expected: `a buffer larger than its reserves and headrooms (${totalReserveBytes} + ${totalHeadroomBytes} B on ${ports.length} ports${creditReserveBytes > 0 ? `, ${creditReserveBytes} B of it for credit lanes` : ''})`,
      actual: s.bufferBytes,
    });
    return null;
  }
  const pooled = s.pools === null ? 0 : s.pools.reduce((n, pool) => n + pool.sizeBytes, 0);
  if (pooled > poolBytes) {
    problems.push({ field: 'pools', expected: `pool sizes that fit the shared buffer (≤ ${poolBytes} B after reserves and headrooms in all)`, actual: pooled });
    return null;
  }
  if (s.xoffBytes !== null && s.xoffBytes > poolBytes) {
    problems.push({ field: 'xoffBytes', expected: `an XOFF threshold that fits the shared pool (≤ ${poolBytes} B after reserves and headrooms)`, actual: s.xoffBytes });
    return null;
  }
  const refreshPs = ports.map((p) => {
    if (s.pauseRefresh === 'none') return null;
    if (s.pauseRefresh !== 'half') return s.pauseRefresh;
    // The upstream holds a pause for quanta × 512 bit times at its own rate: refresh halfway.
    return Math.floor((s.pauseQuanta * serializationPs(PFC_QUANTUM_BITS / 8, p.in.rateBps)) / 2);
  });
  const alphaByPort = s.alphaByRate.length === 0 ? null : ports.map((p) => s.alphaByRate.find((e) => e.rateBps === portRateBps(p))?.alpha ?? s.alpha);
  const ecnByPort =
    s.ecnByRate.length === 0
      ? null
      : ports.map((p) => {
          const e = s.ecnByRate.find((x) => x.rateBps === portRateBps(p));
          return e === undefined ? null : { kminBytes: e.kminBytes, kmaxBytes: e.kmaxBytes, pmax: e.pmax };
        });
  return {
    mmu: {
      bufferBytes: s.bufferBytes,
      alpha: s.alpha,
      reserveBytes: s.reserveBytes,
      headroomBytes,
      lossless,
      totalReserveBytes,
      totalHeadroomBytes,
      xonOffsetBytes: s.xonOffsetBytes ?? maxFrameBytes,
      staticThresholds: s.xoffBytes === null ? null : { xoffBytes: s.xoffBytes, xonBytes: s.xonBytes! },
      egressLossyAlpha: s.egressLossyAlpha,
      pools: s.pools === null ? null : s.pools.map((pool) => ({ priorities: pool.priorities, bytes: pool.sizeBytes, alpha: pool.alpha ?? s.alpha })),
      ...(creditReserveBytes > 0 ? { creditPorts } : {}),
      ...(alphaByPort === null ? {} : { alphaByPort }),
    },
    refreshPs,
    maxFrameBytes,
    ...(ecnByPort === null ? {} : { ecnByPort }),
  };
}
