/**
 * The first-cut switch (rocelab issue 2): forwards by destination IP to the right port, one
 * FIFO per port over a shared buffer, TTL and MAC rewrite on each hop. Every frame it takes
 * in is forwarded, held, or dropped with a reason (`ttl`, `no_route`, `buffer`).
 */
import { DEFAULT_DSCP_MAP, frameBytes, type ByteAccounting, type DscpMap, type Frame } from '@rocelab/wire';
import type { NodeContext, NodeModel } from '@rocelab/sim';
import { SHARED_BUFFER_BYTES } from './defaults.js';
import { Forwarding, NO_ROUTE, type Route } from './forwarding.js';
import { PortFifo } from './port-fifo.js';

export interface SwitchConfig {
  mac: number;
  /** MAC of the node behind each port (the next hop's address after rewrite). */
  peerMacs: readonly number[];
  routes: readonly Route[];
  accounting: ByteAccounting;
  bufferBytes?: number;
  dscpMap?: DscpMap;
}

export class Switch implements NodeModel {
  private readonly forwarding: Forwarding;
  private readonly queues: PortFifo[];
  private readonly bufferBytes: number;
  private readonly dscpMap: DscpMap;
  private usedBytes = 0;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: SwitchConfig,
  ) {
    this.forwarding = new Forwarding(config.routes);
    this.queues = ctx.ports.map(() => new PortFifo());
    this.bufferBytes = config.bufferBytes ?? SHARED_BUFFER_BYTES;
    this.dscpMap = config.dscpMap ?? DEFAULT_DSCP_MAP;
  }

  onFrame(_nowPs: number, inPort: number, frame: Frame): void {
    if (frame.ttl <= 1) return this.ctx.drop(frame, 'ttl', inPort);
    const out = this.forwarding.egressPort(frame.srcIp, frame.dstIp, frame.udpSrcPort);
    if (out === NO_ROUTE) return this.ctx.drop(frame, 'no_route', inPort);
    const size = frameBytes(frame, this.config.accounting);
    if (this.usedBytes + size > this.bufferBytes) return this.ctx.drop(frame, 'buffer', out);
    frame.ttl--;
    frame.srcMac = this.config.mac;
    frame.dstMac = this.config.peerMacs[out]!;
    this.usedBytes += size;
    this.queues[out]!.push(frame, size);
    this.ctx.kick(out);
  }

  nextFrame(port: number, _nowPs: number, pausedMask: number): Frame | null {
    const queue = this.queues[port]!;
    const head = queue.peek();
    if (head === null || (pausedMask & (1 << this.dscpMap[head.dscp]!)) !== 0) return null;
    this.usedBytes -= queue.shift();
    return head;
  }

  onTimer(): void {}

  heldFrames(): number {
    return this.queues.reduce((n, q) => n + q.length, 0);
  }

  /** Bytes queued for `port`. */
  queueBytes(port: number): number {
    return this.queues[port]!.bytes;
  }
}
