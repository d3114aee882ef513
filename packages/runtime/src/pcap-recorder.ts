/**
 * `--pcap DIR`: one classic pcap file per captured port (`DIR/<node>-<port>.pcap`), frames as
 * the real bytes they stand for (`encodeFrame` of @rocelab/wire), stamped with virtual time in
 * ns: a frame leaving the port when its first bit goes out, a frame arriving when its last bit
 * is in (and only if it arrived intact: a corrupted frame fails its FCS before any capture
 * point). Each port's file is written by the process hosting its node, so no merge is needed.
 */
import { encodeFrame, pcapFileHeader, pcapRecord, type Frame } from '@rocelab/wire';
import type { PodSpec } from '@rocelab/topology';

export interface PcapSettings {
  /** Ports to capture as `node:port`; null = every host port. */
  ports: readonly string[] | null;
  /** Bytes kept of each frame (the rest is counted in the record's original length). */
  snaplen: number;
}

/** Whole frames: the largest rocelab frame (9 KB MTU + headers) fits well within it. */
export const DEFAULT_PCAP_SNAPLEN = 65_535;

export interface PcapSink {
  /** Append bytes to the capture file of `node:port` (created by the first call). */
  append(node: string, port: string, bytes: Uint8Array): void;
}

/** The `node:port` names `settings` captures in `pod` (all host ports when it names none). */
export function capturedPorts(pod: PodSpec, settings: PcapSettings): string[] {
  if (settings.ports !== null) return [...settings.ports];
  return pod.nodes.filter((n) => n.role === 'host').flatMap((n) => n.ports.map((p) => `${n.name}:${p.name}`));
}

const FLUSH_BYTES = 1 << 20;

export class PcapRecorder {
  /** Per hosted node index: per port index, the pending bytes of a captured port (null: not captured). */
  private readonly captured = new Map<number, Array<{ node: string; port: string; chunks: Uint8Array[] } | null>>();
  private buffered = 0;

  constructor(
    pod: PodSpec,
    hosted: readonly number[],
    private readonly settings: PcapSettings,
    private readonly sink: PcapSink,
  ) {
    const wanted = new Set(capturedPorts(pod, settings));
    for (const index of hosted) {
      const node = pod.nodes[index]!;
      const ports = node.ports.map((p) => (wanted.has(`${node.name}:${p.name}`) ? { node: node.name, port: p.name, chunks: [pcapFileHeader(settings.snaplen)] } : null));
      if (ports.some((p) => p !== null)) this.captured.set(index, ports);
    }
    this.flush();
  }

  onTransmit(node: number, port: number, timePs: number, frame: Frame, srcMac: number): void {
    this.capture(node, port, timePs, frame, srcMac);
  }

  onArrive(node: number, port: number, timePs: number, frame: Frame, peerMac: number): void {
    this.capture(node, port, timePs, frame, peerMac);
  }

  flush(): void {
    for (const ports of this.captured.values()) {
      for (const p of ports) {
        if (p === null || p.chunks.length === 0) continue;
        this.sink.append(p.node, p.port, concat(p.chunks));
        p.chunks = [];
      }
    }
    this.buffered = 0;
  }

  /** `macForPfc`: the sending port's MAC, which PFC frames (built without addresses) carry as source. */
  private capture(node: number, port: number, timePs: number, frame: Frame, macForPfc: number): void {
    const p = this.captured.get(node)?.[port];
    if (p == null) return;
    const record = pcapRecord(timePs, encodeFrame(frame, { srcMacForPfc: macForPfc }), this.settings.snaplen);
    p.chunks.push(record);
    this.buffered += record.length;
    if (this.buffered >= FLUSH_BYTES) this.flush();
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
