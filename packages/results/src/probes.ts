/**
 * Pingmesh probe summary: how many probes went out, came back, failed or are still out, and the
 * round-trip percentiles (nearest rank) overall and per ToR pair — Pingmesh's own view of a
 * fabric (Guo et al., SIGCOMM 2015): latency between racks, not between hosts.
 */
import type { ProbeResults } from '@rocelab/rnic';
import { nearestRank } from './percentile.js';

export interface RttStats {
  count: number;
  p50Ns: number | null;
  p90Ns: number | null;
  p99Ns: number | null;
  p999Ns: number | null;
  maxNs: number | null;
  meanNs: number | null;
}

export interface TorPairRtt extends RttStats {
  fromTor: string;
  toTor: string;
}

export interface ProbeSummary extends RttStats {
  sent: number;
  completed: number;
  /** Completed with an error (the QP failed). */
  failed: number;
  /** Still out when the run ended. */
  pending: number;
  /** Did not come back by the end of the run: failed or still out. */
  lost: number;
  /** Kept for readers of earlier results: the same as meanNs and maxNs. */
  meanRttNs: number | null;
  maxRttNs: number | null;
  /** Worst pairs first (by p99), at most `MAX_TOR_PAIRS`. */
  perTorPair: TorPairRtt[];
  torPairsOmitted: number;
  /** Round trips hosts counted but did not keep (beyond their per-host cap); percentiles exclude them. */
  rttSamplesOmitted: number;
}

export const MAX_TOR_PAIRS = 64;

/** Round-trip statistics of `rttPs` (any order), reported in ns. */
export function rttStats(rttPs: number[]): RttStats {
  const sorted = Float64Array.from(rttPs).sort();
  const values = Array.from(sorted);
  const ns = (ps: number | null) => (ps === null ? null : ps / 1000);
  return {
    count: values.length,
    p50Ns: ns(nearestRank(values, 50)),
    p90Ns: ns(nearestRank(values, 90)),
    p99Ns: ns(nearestRank(values, 99)),
    p999Ns: ns(nearestRank(values, 99.9)),
    maxNs: ns(values.length === 0 ? null : values[values.length - 1]!),
    meanNs: values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length / 1000,
  };
}

/** `probes` by sending host; `torOf` maps a host to its ToR. */
export function probeSummary(probes: ReadonlyArray<{ host: string; probes: ProbeResults }>, torOf: (host: string) => string): ProbeSummary {
  const all: number[] = [];
  const pairs = new Map<string, { fromTor: string; toTor: string; rtt: number[] }>();
  let sent = 0;
  let failed = 0;
  let pending = 0;
  let omitted = 0;
  for (const { host, probes: p } of probes) {
    sent += p.sent;
    failed += p.failed;
    pending += p.pending;
    omitted += p.rttOmitted;
    for (const peer of Object.keys(p.rttPs).sort()) {
      const rtts = p.rttPs[peer]!;
      const fromTor = torOf(host);
      const toTor = torOf(peer);
      const key = `${fromTor}>${toTor}`;
      let pair = pairs.get(key);
      if (pair === undefined) pairs.set(key, (pair = { fromTor, toTor, rtt: [] }));
      for (const r of rtts) {
        pair.rtt.push(r);
        all.push(r);
      }
    }
  }
  const overall = rttStats(all);
  const perPair = [...pairs.values()]
    .map(({ fromTor, toTor, rtt }) => ({ fromTor, toTor, ...rttStats(rtt) }))
    .sort((a, b) => (b.p99Ns ?? 0) - (a.p99Ns ?? 0) || (a.fromTor < b.fromTor ? -1 : a.fromTor > b.fromTor ? 1 : a.toTor < b.toTor ? -1 : a.toTor > b.toTor ? 1 : 0));
  const completed = all.length + omitted;
  return {
    sent,
    completed,
    failed,
    pending,
    lost: failed + pending,
    ...overall,
    meanRttNs: overall.meanNs,
    maxRttNs: overall.maxNs,
    perTorPair: perPair.slice(0, MAX_TOR_PAIRS),
    torPairsOmitted: Math.max(0, perPair.length - MAX_TOR_PAIRS),
    rttSamplesOmitted: omitted,
  };
}
