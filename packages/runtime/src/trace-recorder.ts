/**
 * `rocelab run --trace DIR`: each hosted node's rows of rates.csv (per sending QP on a grid),
 * queue.csv (per switch egress queue on a grid), pfc.csv (every PAUSE and RESUME arriving at a
 * transmitter), qp-events.csv (per QP: work requests posted and completed, data packets sent and
 * retransmitted, ACK/NAK/CNP arriving), packet-events.csv (the packets `packetEvent` faults hit)
 * and, at the end, fct.csv (per message, with its ideal FCT). The recorder only
 * reads — engine samplers and an observer — so tracing never changes the trace hash; rows are
 * formatted by @rocelab/results and go to a sink per node and file (part files, merged once
 * the run is over), so the merged CSVs are the same bytes in every mode.
 */
import { FrameKind, Opcode, PFC_PRIORITIES, PFC_QUANTUM_BITS, type Frame } from '@rocelab/wire';
import { serializationPs, type NodeNote, type PacketAction } from '@rocelab/sim';
import type { MessageResult, QpEnd, WorkOpcode } from '@rocelab/rnic';
import { dcqcnOf } from '@rocelab/rnic';
import { fixed6, formatUs, partLine, type TraceFileName } from '@rocelab/results';
import type { PodContext } from './pod-context.js';
import { idealFctOf } from './ideal-paths.js';
import type { PodEngine } from './pod-model.js';

export interface TraceSettings {
  /** Grid of rates.csv and of queue.csv, ps. */
  ratesIntervalPs: number;
  queueIntervalPs: number;
}

export const DEFAULT_TRACE_SETTINGS: Readonly<TraceSettings> = { ratesIntervalPs: 10_000_000, queueIntervalPs: 1_000_000 };

/** Where a node's rows go: appended in order, one text per (node, file). */
export interface TraceSink {
  append(node: string, file: TraceFileName, text: string): void;
}

/** Rows a node buffers before handing them to the sink. */
const FLUSH_BYTES = 1 << 20;

export class TraceRecorder {
  private readonly buffers = new Map<string, string>();
  private buffered = 0;
  /** Per sending QP: acknowledged bytes at the previous grid point, and whether it was busy then. */
  private readonly qpState = new Map<string, { acked: number; busy: boolean }>();
  /** Switch queues (node·8·ports + port·8 + priority) that have carried traffic. */
  private readonly seenQueues = new Set<number>();
  /** Hosted hosts by node index. */
  private readonly hosts = new Set<number>();
  /** Per (host, QP): the PSN after the highest data packet sent, for telling retransmissions. */
  private readonly nextPsn = new Map<number, number>();

  constructor(
    private readonly engine: PodEngine,
    private readonly pc: PodContext,
    private readonly hosted: readonly number[],
    private readonly settings: TraceSettings,
    private readonly sink: TraceSink,
  ) {
    const start = pc.startPs;
    engine.addSampler({ startPs: start, periodPs: settings.ratesIntervalPs, sample: (t) => this.sampleRates(t) });
    engine.addSampler({ startPs: start, periodPs: settings.queueIntervalPs, sample: (t) => this.sampleQueues(t) });
    for (const index of hosted) {
      const host = engine.model(index);
      if (host?.kind !== 'host') continue;
      const name = pc.pod.nodes[index]!.name;
      this.hosts.add(index);
      host.traffic.onMessagePosted = (m) => this.qpRow(name, m.postedPs, m.qpn, 'wr_posted', '', m.sizeBytes, m.opcode);
      host.traffic.onMessageDone = (m, probe) => {
        if (probe) this.probeRow(name, m);
        this.qpRow(name, m.completedPs ?? m.postedPs, m.qpn, 'completion', '', m.sizeBytes, m.status);
      };
      host.nic.onAppPosted = (qpn, work) => this.qpRow(name, this.engine.context(index).nowPs, qpn, 'wr_posted', '', work.sizeBytes, work.opcode);
      host.onAppCompletionSeen = (qpn, c) => this.qpRow(name, c.completedPs, qpn, 'completion', '', c.sizeBytes, c.status);
    }
  }

  /** The engine observer's note hook: a model's notable event. */
  onNote(node: number, timePs: number, note: NodeNote): void {
    const ctx = this.engine.context(node);
    const port = note.port < 0 ? '' : ctx.ports[note.port]!.name;
    this.row(ctx.name, 'events.csv', timePs, [this.us(timePs), ctx.name, port, note.priority < 0 ? '' : note.priority, note.event, note.detail]);
  }

  /** A probe as it completes (or, at the end, as it is still out): its round trip, empty when it did not come back. */
  private probeRow(host: string, m: MessageResult): void {
    const rtt = m.status === 'success' && m.completedPs !== null ? formatUs(m.completedPs - m.postedPs, 0) : '';
    this.row(host, 'probes.csv', m.postedPs, [this.us(m.postedPs), host, m.to, rtt]);
  }

  /** The engine observer's transmit hook: a host's data packet leaving, new or a retransmission (a PSN not past the highest sent). */
  onTransmit(node: number, _port: number, timePs: number, frame: Frame): void {
    if (frame.kind !== FrameKind.data || !this.hosts.has(node)) return;
    const key = node * 2 ** 24 + frame.destQp;
    const next = this.nextPsn.get(key);
    // 24-bit PSNs wrap: a PSN less than 2^23 behind the next one is behind it.
    const behind = next !== undefined && ((next - frame.psn) & 0xffffff) !== 0 && ((next - frame.psn) & 0xffffff) < 0x800000;
    if (!behind) this.nextPsn.set(key, (frame.psn + 1) & 0xffffff);
    this.qpRow(this.engine.context(node).name, timePs, frame.destQp, behind ? 'retransmission' : 'psn_sent', frame.psn, frame.payloadBytes, '');
  }

  /** The engine observer's packet-event hook: a `packetEvent` fault hit a data packet leaving `node:port`. */
  onPacketEvent(node: number, port: number, timePs: number, frame: Frame, index: number, action: PacketAction): void {
    const ctx = this.engine.context(node);
    this.row(ctx.name, 'packet-events.csv', timePs, [this.us(timePs), ctx.name, ctx.ports[port]!.name, frame.destQp, index, frame.psn, action]);
  }

  /** The engine observer's arrival hook: a PFC frame reaching a transmitter; an ACK, NAK or CNP reaching a host. */
  onArrive(node: number, port: number, timePs: number, frame: Frame): void {
    if ((frame.kind === FrameKind.ack || frame.kind === FrameKind.cnp) && this.hosts.has(node)) {
      const name = this.engine.context(node).name;
      if (frame.kind === FrameKind.cnp) return this.qpRow(name, timePs, frame.destQp, 'cnp', '', '', '');
      // AETH syndrome bits 6–5: 00 ACK, 01 RNR NAK, 11 NAK (an Atomic ACK is an ACK).
      const type = frame.opcode === Opcode.atomicAcknowledge ? 0 : (frame.syndrome >> 5) & 3;
      const syndrome = `0x${frame.syndrome.toString(16).padStart(2, '0')}`;
      return this.qpRow(name, timePs, frame.destQp, type === 0 ? 'ack' : type === 1 ? 'rnr_nak' : 'nak', frame.psn, '', syndrome);
    }
    if (frame.kind !== FrameKind.pfc) return;
    const ctx = this.engine.context(node);
    const rate = ctx.ports[port]!.out.rateBps;
    for (let p = 0; p < PFC_PRIORITIES; p++) {
      if ((frame.pfcEnable & (1 << p)) === 0) continue;
      const quanta = frame.pfcQuanta[p] ?? 0;
      const pausePs = quanta * serializationPs(PFC_QUANTUM_BITS / 8, rate);
      this.row(ctx.name, 'pfc.csv', timePs, [this.us(timePs), ctx.name, ctx.ports[port]!.name, p, quanta === 0 ? 'resume' : 'pause', quanta, formatUs(pausePs, 0)]);
    }
  }

  /** The run is over: every host's messages into fct.csv, probes still out into probes.csv, then every buffered row to the sink. */
  finish(): void {
    // Every life of a host that was killed and restarted: a dead one's messages still pending are `lost`.
    const lives = this.hosted.flatMap((index) => {
      const current = this.engine.model(index);
      return [...this.engine.retiredModels(index), current].flatMap((model) => (model?.kind === 'host' ? [{ index, model, dead: model !== current }] : []));
    });
    for (const { index, model, dead } of lives) {
      const name = this.pc.pod.nodes[index]!.name;
      for (const q of model.senderQps) if (q.probe) for (const m of q.messages.values()) this.probeRow(name, m);
      const qps = this.pc.qps.get(name)!.requesters;
      for (const sent of model.results().sent) {
        const m = dead && sent.status === 'pending' ? { ...sent, status: 'lost' as const } : sent;
        const done = m.status === 'success' && m.completedPs !== null;
        const fctPs = done ? m.completedPs! - m.postedPs : null;
        const end = qps.find((q) => q.qpn === m.qpn)!;
        const idealPs = this.ideal(name, end, m.sizeBytes, m.opcode);
        this.row(name, 'fct.csv', m.postedPs, [
          m.flow,
          name,
          m.to,
          m.sizeBytes,
          this.us(m.postedPs),
          done ? this.us(m.completedPs!) : '',
          fctPs === null ? '' : formatUs(fctPs, 0),
          idealPs === null ? '' : formatUs(idealPs, 0),
          fctPs === null || idealPs === null ? '' : fixed6(fctPs / idealPs),
          m.status,
        ]);
      }
    }
    this.flush();
  }

  flush(): void {
    for (const [key, text] of this.buffers) {
      const cut = key.lastIndexOf('/');
      this.sink.append(key.slice(0, cut), key.slice(cut + 1) as TraceFileName, text);
    }
    this.buffers.clear();
    this.buffered = 0;
  }

  private sampleRates(timePs: number): void {
    for (const index of this.hosted) {
      const host = this.engine.model(index);
      if (host?.kind !== 'host') continue;
      const name = this.engine.context(index).name;
      for (const q of host.senderQps) {
        // A native program's QP (issue 25) has no workload flow: it shows under its key, `native:<qpn>`.
        const native = 'app' in q && q.end.key.startsWith('native:') ? q.app : null;
        if (q.probe || (q.firstFlow === null && native === null)) continue;
        const key = `${index}/${q.end.qpn}`;
        const state = this.qpState.get(key) ?? { acked: 0, busy: false };
        const busy = q.messages.size > 0 || (native?.size ?? 0) > 0;
        // A QP shows from its first message until the grid point after its last completed.
        if (!busy && !state.busy) continue;
        const head = q.req.headWrId;
        // Never less than before: a message that fails (retries exceeded) leaves the count, but its acknowledged bytes were acknowledged.
        const acked = Math.max(state.acked, q.req.stats.completedBytes + (head === null ? 0 : q.req.ackedBytes(head)));
        const rateBps = q.rp?.rateBps(timePs) ?? Math.min(host.nic.lineRateBps, q.end.rateCapBps ?? Infinity);
        const targetBps = dcqcnOf(q.rp)?.targetRateBps(timePs) ?? rateBps;
        const throughput = ((acked - state.acked) * 8) / (this.settings.ratesIntervalPs / 1e12) / 1e9;
        this.row(name, 'rates.csv', timePs, [
          this.us(timePs),
          name,
          q.end.qpn,
          q.firstFlow ?? q.end.key,
          q.end.peer.name,
          fixed6(rateBps / 1e9),
          fixed6(targetBps / 1e9),
          fixed6(dcqcnOf(q.rp)?.alpha(timePs) ?? null),
          acked,
          q.cnps,
          fixed6(throughput),
        ]);
        this.qpState.set(key, { acked, busy });
      }
    }
  }

  private sampleQueues(timePs: number): void {
    for (const index of this.hosted) {
      const sw = this.engine.model(index);
      if (sw?.kind !== 'switch') continue;
      const ctx = this.engine.context(index);

      for (let port = 0; port < ctx.ports.length; port++) {
        const paused = ctx.transmitters[port]!.pausedMask(timePs);
        for (let p = 0; p < PFC_PRIORITIES; p++) {
          const slot = port * PFC_PRIORITIES + p;
          const queueBytes = sw.queueBytes(port, p);
          const ingress = sw.mmu.ingressBytes(port, p);
          const key = index * 65_536 + slot;
          if (!this.seenQueues.has(key)) {
            if (queueBytes === 0 && ingress === 0 && sw.txPackets[slot] === 0) continue;
            this.seenQueues.add(key);
          }
          this.row(ctx.name, 'queue.csv', timePs, [
            this.us(timePs),
            ctx.name,
            ctx.ports[port]!.name,
            p,
            queueBytes,
            sw.mmu.groupLimit(p, port),
            ingress,
            sw.mmu.headroomBytes(port, p),
            (paused >> p) & 1,
            sw.pfc.pausing(port, p) ? 1 : 0,
            sw.ecnMarked[slot]!,
            sw.txPackets[slot]!,
          ]);
        }
      }
    }
  }

  /** Ideal FCTs by (host, QP, size, operation): a flow of many equal messages computes one. */
  private readonly ideals = new Map<string, number | null>();
  private ideal(host: string, end: QpEnd, sizeBytes: number, opcode: WorkOpcode): number | null {
    const key = `${host}/${end.qpn}/${sizeBytes}/${opcode}`;
    if (!this.ideals.has(key)) this.ideals.set(key, idealFctOf(this.pc, host, end, sizeBytes, opcode));
    return this.ideals.get(key)!;
  }

  private qpRow(node: string, timePs: number, qpn: number, event: string, psn: number | '', bytes: number | '', detail: string): void {
    this.row(node, 'qp-events.csv', timePs, [this.us(timePs), node, qpn, event, psn, bytes, detail]);
  }

  private us(timePs: number): string {
    return formatUs(timePs, this.pc.startPs);
  }

  private row(node: string, file: TraceFileName, keyPs: number, fields: ReadonlyArray<string | number>): void {
    const line = partLine(keyPs, fields);
    const key = `${node}/${file}`;
    this.buffers.set(key, (this.buffers.get(key) ?? '') + line);
    this.buffered += line.length;
    if (this.buffered >= FLUSH_BYTES) this.flush();
  }
}
