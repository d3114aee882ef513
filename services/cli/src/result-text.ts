/**
 * The run's result as text for a terminal (`rocelab run` without --json, the audit `rocelab up`
 * prints when stopped): the audit first, the nodes lost during the run, then what happened in the fabric — paused ports,
 * transport trouble per host, flows (stalled ones flagged) and probe latency percentiles — and last the apps and the
 * native programs, a program's output in full (program-text.ts).
 */
import type { RunResult } from '@rocelab/runtime';
import { programSection } from './program-text.js';

export function resultText(r: RunResult): string {
  const drops = Object.entries(r.droppedByReason)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const lines = [
    `${r.mode}${r.mode === 'workers' ? ` ×${r.workers}` : ''}: ${(r.virtualNs / 1e6).toFixed(3)} ms virtual in ${r.wallMs} ms wall, ${r.events} events, ${r.windows} windows`,
    ...(r.placement === undefined ? [] : [`placement: ${r.placement.members} members, ${r.placement.crossLinks} of ${r.placement.links} links between them, window ${r.placement.windowNs >= 1000 ? `${r.placement.windowNs / 1000} us` : `${r.placement.windowNs} ns`} (the shortest crossing link's lookahead)`]),
    `profile ${r.profile}, timing ${r.timing}, seed ${r.seed}`,
    `packets: sent ${r.packets.sent}, delivered ${r.packets.delivered}, dropped ${r.packets.dropped}${drops ? ` (${drops})` : ''}, queued ${r.packets.queued}`,
    `conservation ${r.conservation ? 'holds' : 'FAILS'}, causality violations ${r.causalityViolations}`,
    `trace hash ${r.traceHash}`,
  ];
  return [...lines, ...lostSection(r), ...pfcSection(r), ...hostSection(r), ...flowSection(r), ...slowdownSection(r), ...probeSection(r), ...appSection(r), ...programSection(r), ''].join('\n');
}

/** One line per node lost during the run: when, why, and when it came back. */
function lostSection(r: RunResult): string[] {
  // A result from an older rocelab has no lostNodes.
  return (r.lostNodes ?? []).map(
    (n) => `node ${n.node} ${n.cause === 'fault' ? 'killed' : 'lost'} at ${ms(n.atNs)} ms${n.restartedAtNs === null ? ', not restarted' : `, restarted at ${ms(n.restartedAtNs)} ms`}`,
  );
}

const ms = (ns: number | null) => (ns === null ? '–' : (ns / 1e6).toFixed(3));
const us = (ns: number | null) => (ns === null ? '–' : (ns / 1e3).toFixed(2));
const count = (n: number) => String(n);

/**
 * Columns padded to their widest cell: text left-aligned, numbers right-aligned. `text`: how
 * many leading columns are text, or which ones.
 */
export function table(header: string[], rows: string[][], text: number | readonly number[] = 1): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const isText = (i: number) => (typeof text === 'number' ? i < text : text.includes(i));
  const line = (cells: string[]) => cells.map((c, i) => (isText(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `  ${l}`);
}

function pfcSection(r: RunResult): string[] {
  const s = r.summary;
  const t = s.portTotals;
  const head = `PFC: ${t.pauseFramesSent} pause frames sent, ${t.pauseFramesReceived} received; ${t.pausedPorts} ports paused, ${t.pausingPorts} pausing; ${s.portTotals.ecnMarked} ECN marks; peak queue ${t.peakQueueBytes} B`;
  if (s.ports.length === 0) return ['', head];
  const rows = s.ports.flatMap((p) => {
    const drops = Object.entries(p.droppedByReason)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(' ');
    const pfc = p.pfc.length > 0 ? p.pfc : [null];
    return pfc.map((q) => [
      p.port,
      q === null ? '' : String(q.priority),
      q === null ? '0' : count(q.pauseFramesReceived),
      q === null ? '0' : count(q.pauseFramesSent),
      q === null ? '0.000' : ms(q.pausedNs),
      q === null ? '0.000' : ms(q.pausingNs),
      ms(p.firstPauseReceivedNs ?? p.firstPauseSentNs),
      ms(p.lastPauseReceivedNs ?? p.lastPauseSentNs),
      count(p.ecnMarked),
      count(p.peakQueueBytes),
      drops,
    ]);
  });
  const more = s.portsOmitted > 0 ? [`  … and ${s.portsOmitted} more ports with activity (the trace has them all)`] : [];
  return ['', head, ...table(['port', 'prio', 'pauses rx', 'tx', 'paused ms', 'pausing ms', 'first ms', 'last ms', 'ECN', 'peak B', 'drops'], rows), ...more];
}

function hostSection(r: RunResult): string[] {
  const t = r.summary.hostTotals;
  const head = `hosts: ${t.cnpsSent} CNPs sent, ${t.cnpsReceived} received; ${t.retransmittedPackets} packets retransmitted; NAKs received ${t.naksReceived.seq} seq, ${t.naksReceived.rnr} RNR; ${t.rtoExpirations} timeouts; storm events ${t.stormEvents.warning} warning, ${t.stormEvents.error} error`;
  const tcp = t.tcp === undefined ? [] : [`TCP: ${t.tcp.segmentsSent} segments sent, ${t.tcp.retransmittedSegments} sent again (${t.tcp.fastRetransmits} fast retransmits, ${t.tcp.rtoExpirations} timeouts), ${t.tcp.cwndCuts} DCTCP window cuts; ${t.tcp.outOfOrder} segments received out of order, ${t.tcp.duplicates} duplicates`];
  if (r.summary.hosts.length === 0) return ['', head, ...tcp];
  const rows = r.summary.hosts.map((h) => [
    h.host,
    count(h.cnpsSent),
    count(h.cnpsReceived),
    count(h.retransmittedPackets),
    `${h.naksReceived.seq}/${h.naksReceived.rnr}`,
    count(h.rtoExpirations),
    count(h.rnrWaits),
    `${h.stormEvents.warning}/${h.stormEvents.error}`,
    count(h.goodputBytes),
  ]);
  return ['', head, ...tcp, ...table(['host', 'CNP tx', 'CNP rx', 'retx', 'NAK seq/RNR', 'RTO', 'RNR waits', 'storm w/e', 'goodput B'], rows)];
}

/** Each app's outcome and its own figures (`rdma.report`); a failed one's error in full. */
function appSection(r: RunResult): string[] {
  if (r.apps.length === 0) return [];
  const counts = { finished: 0, running: 0, failed: 0 };
  for (const a of r.apps) counts[a.status]++;
  const lines = ['', `apps: ${r.apps.length} (${r.apps[0]!.module}${new Set(r.apps.map((a) => a.module)).size > 1 ? ' and others' : ''}): ${counts.finished} finished, ${counts.running} running, ${counts.failed} failed`];
  for (const a of r.apps) {
    const figures = Object.entries(a.reports).map(([k, v]) => `${k}=${typeof v === 'number' ? formatFigure(v) : String(v)}`);
    const wr = `${a.workRequests.posted} WRs (${a.workRequests.completed} ok, ${a.workRequests.failed} failed)`;
    lines.push(`  ${a.node}: ${a.status}${a.finishedPs === null ? '' : ` at ${(a.finishedPs / 1e6).toFixed(3)} us`}, ${wr}${figures.length === 0 ? '' : `; ${figures.join(' ')}`}`);
    if (a.error !== null) lines.push(`    error: ${a.error}`);
  }
  return lines;
}

/** A figure as an app reported it: integers with thousands separators, others to 4 significant digits. */
function formatFigure(v: number): string {
  return Number.isInteger(v) ? v.toLocaleString('en-US') : String(Number(v.toPrecision(4)));
}

function flowSection(r: RunResult): string[] {
  const t = r.flowTotals;
  if (t.total === 0) return [];
  const head = `flows: ${t.total} messages, ${t.completed} completed, ${t.pending} pending (${t.stalled} stalled), ${t.failed} failed; ${t.deliveredBytes} B delivered`;
  const shown = r.flows.slice(0, 20);
  const rows = shown.map((f) => [
    String(f.flow),
    (f.opcode === 'read' ? `${f.from}⇠${f.to}` : `${f.from}→${f.to}`) + (f.transport === undefined ? '' : ` ${f.transport}`),
    count(f.sizeBytes),
    f.stalled ? 'STALLED' : f.status,
    f.fctNs === null ? '–' : us(f.fctNs),
    f.goodputGbps === null ? '–' : f.goodputGbps.toFixed(2),
    count(f.deliveredBytes),
    count(f.retransmittedPackets),
    count(f.cnps),
  ]);
  const more = r.flows.length + r.flowsOmitted > shown.length ? [`  … ${r.flows.length + r.flowsOmitted - shown.length} more (--json lists ${r.flows.length}; --trace writes fct.csv with all)`] : [];
  return ['', head, ...table(['flow', 'path', 'bytes', 'status', 'FCT us', 'goodput Gb/s', 'delivered B', 'retx', 'CNPs'], rows), ...more];
}

/** FCT slowdown by size group (HPCC's figures): one row per group of messages by size. */
function slowdownSection(r: RunResult): string[] {
  const s = r.slowdown;
  if (s.buckets.length === 0) return [];
  const head = `FCT slowdown by size (${s.measured} completed messages in groups of ${s.stepPercent} % by size${s.notMeasured === 0 ? '' : `; ${s.notMeasured} not measured`})`;
  const x = (v: number) => v.toFixed(2);
  const rows = s.buckets.map((b) => [`${b.fromPercent}-${b.toPercent} %`, count(b.upToBytes), count(b.count), x(b.p50), x(b.p95), x(b.p99)]);
  return ['', head, ...table(['size group', 'up to B', 'messages', 'p50', 'p95', 'p99'], rows)];
}

function probeSection(r: RunResult): string[] {
  const p = r.probes;
  if (p.sent === 0) return [];
  const head = `probes: ${p.sent} sent, ${p.completed} back, ${p.lost} lost (${p.failed} failed, ${p.pending} still out); RTT us p50 ${us(p.p50Ns)} p90 ${us(p.p90Ns)} p99 ${us(p.p99Ns)} p99.9 ${us(p.p999Ns)} max ${us(p.maxNs)}`;
  const rows = p.perTorPair.slice(0, 10).map((q) => [`${q.fromTor}→${q.toTor}`, count(q.count), us(q.p50Ns), us(q.p90Ns), us(q.p99Ns), us(q.p999Ns), us(q.maxNs)]);
  return ['', head, ...table(['ToR pair', 'probes', 'p50', 'p90', 'p99', 'p99.9', 'max'], rows)];
}
