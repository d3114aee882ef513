/**
 * `linkFramesPerSec`: frames per second across ONE real WebSocket link between two processes,
 * with everything a link message costs in a pod: building the batch, protobuf encoding,
 * `ws` framing, the kernel's loopback, decoding and validation at the far end. Each message
 * is one window's batch of a loaded 40 Gb/s link (FRAMES_PER_BATCH frames), never one frame.
 *
 * Two measures:
 * - stream: pipelined batches, the link's throughput. Bounded by credit: at most
 *   MAX_IN_FLIGHT batches not yet acknowledged by the peer (it acks every ACK_EVERY), so
 *   nothing buffers without bound and the count is of frames the peer really decoded.
 * - round trip: lockstep ping-pong, one batch each way and wait for the peer's before the
 *   next, which is the pattern of the window protocol's neighbour lockstep.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Connection, podKey, type Identity } from '@rocelab/runtime';
import { encodeEnvelope, type Envelope } from '@rocelab/wire';
import { stderrLog } from './log.js';
import { ACK_EVERY, FRAMES_PER_BATCH, Lane, LINK_NAME, Traffic } from './traffic.js';
import { note } from './util.js';

export interface LinkFigures {
  framesPerSec: number;
  framesPerBatch: number;
  /** Encoded size of one batch envelope. */
  bytesPerBatch: number;
  batchesRoundTripPerSec: number;
}

export interface LinkOptions {
  warmupMs: number;
  streamMs: number;
  roundTripMs: number;
}

/**
 * Batches sent but not acknowledged: 1024 × ~280 B ≈ 290 kB in the socket buffers. Each end
 * writes what one tick produces in one write (Connection corks per tick), so the peer's acks
 * for a chunk leave together when it is done; the window must hold about two such chunks for
 * the two ends to work at the same time instead of taking turns (256 left both ~40 % idle).
 */
const MAX_IN_FLIGHT = 64 * ACK_EVERY;

export async function measureLink(options: LinkOptions): Promise<LinkFigures> {
  const token = randomBytes(24).toString('hex');
  // stdout of the peer goes to our stderr: our stdout carries only the result line.
  const peer = fork(fileURLToPath(new URL('./link-peer.js', import.meta.url)), [], {
    stdio: ['ignore', 2, 2, 'ipc'],
    env: { ...process.env, ROCELAB_BENCH_TOKEN: token },
  });
  // 'close', not 'exit': it comes after the IPC channel has delivered the peer's last message.
  const exited = new Promise<never>((_, reject) => peer.once('close', (code, signal) => reject(new Error(`link peer exited early (code ${code}, signal ${signal})`))));
  exited.catch(() => undefined); // raced below; unobserved otherwise once we are done
  try {
    const port = await Promise.race([message<{ port: number }>(peer, 'port'), exited]);
    const self: Identity = { node: 'a', role: 'link', link: LINK_NAME, nodes: [], linkUrl: '', metricsUrls: [] };
    const conn = await Connection.connect(`ws://127.0.0.1:${port.port}/link`, podKey(token), self, stderrLog('bench-link'));
    const link = new Driver(conn);
    const stream = await Promise.race([link.stream(options.warmupMs, options.streamMs), link.lost, exited]);
    const roundTrip = await Promise.race([link.pingPong(options.warmupMs, options.roundTripMs), link.lost, exited]);
    const counted = message<{ frames: number; batches: number }>(peer, 'frames');
    link.close();
    const peerCount = await Promise.race([counted, exited]);
    await exitOf(peer, 2000);
    // The peer decoded every frame we sent: a mismatch means the link lost or invented some.
    if (peerCount.frames !== link.framesSent) throw new Error(`link peer decoded ${peerCount.frames} frames, ${link.framesSent} were sent`);
    note(`link: stream ${stream} frames/s, ${roundTrip} round trips/s, ${peerCount.batches} batches (${peerCount.frames} frames) decoded by the peer`);
    return {
      framesPerSec: stream,
      framesPerBatch: FRAMES_PER_BATCH,
      bytesPerBatch: encodeEnvelope({ type: 'batch', batch: new Traffic(Lane.stream).next() }).length,
      batchesRoundTripPerSec: roundTrip,
    };
  } finally {
    if (peer.exitCode === null && peer.signalCode === null) peer.kill();
  }
}

/** Waits for the peer to exit by itself (it does once the link closes), else ends it. */
function exitOf(peer: ReturnType<typeof fork>, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (peer.exitCode !== null || peer.signalCode !== null) return resolve();
    const timer = setTimeout(() => peer.kill(), timeoutMs);
    peer.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The next IPC message from the peer that has `field`. */
function message<T>(peer: ReturnType<typeof fork>, field: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && field in m) {
        peer.off('message', on);
        resolve(m as T);
      }
    };
    peer.on('message', on);
  });
}

/** Our end of the link: sends the traffic and watches the peer's answers. */
class Driver {
  framesSent = 0;
  /** Rejects if the link closes before `close()`: the measures race it. */
  readonly lost: Promise<never>;
  private done = false;
  private onReply: (envelope: Envelope) => void = () => undefined;

  constructor(private readonly conn: Connection) {
    this.lost = new Promise((_, reject) =>
      conn.listen(
        (envelope) => this.onReply(envelope),
        (code, reason) => {
          if (!this.done) reject(new Error(`link closed mid-benchmark: ${code} ${reason}`));
        },
      ),
    );
    this.lost.catch(() => undefined); // observed through the races below
  }

  close(): void {
    this.done = true;
    this.conn.close(1000, 'bench done');
  }

  private send(traffic: Traffic): void {
    const batch = traffic.next();
    this.framesSent += batch.frames.length;
    this.conn.send({ type: 'batch', batch });
  }

  /** Pipelined: frames/s the peer decoded over `measureMs` after `warmupMs` of the same. */
  stream(warmupMs: number, measureMs: number): Promise<number> {
    const traffic = new Traffic(Lane.stream);
    return new Promise((resolve) => {
      let sent = 0; // batches
      let acked = 0; // batches, from the peer's frame count
      let t0 = 0;
      let f0 = 0;
      const start = performance.now();
      const pump = () => {
        for (; sent - acked < MAX_IN_FLIGHT; sent++) this.send(traffic);
      };
      this.onReply = (envelope) => {
        if (envelope.type !== 'batch' || envelope.batch.lease !== Lane.ack) return;
        const decoded = envelope.batch.window;
        acked = decoded / FRAMES_PER_BATCH;
        const now = performance.now();
        if (t0 === 0 && now - start >= warmupMs) {
          t0 = now;
          f0 = decoded;
        } else if (t0 !== 0 && now - t0 >= measureMs) {
          this.onReply = () => undefined;
          resolve(Math.round((decoded - f0) / ((now - t0) / 1000)));
          return; // stop sending; the ping that follows drains what is in flight
        }
        pump();
      };
      pump();
    });
  }

  /** Lockstep: one batch each way per round; round trips/s over `measureMs` after `warmupMs`. */
  pingPong(warmupMs: number, measureMs: number): Promise<number> {
    const traffic = new Traffic(Lane.ping);
    return new Promise((resolve) => {
      let rounds = 0;
      let t0 = 0;
      let r0 = 0;
      const start = performance.now();
      this.onReply = (envelope) => {
        if (envelope.type !== 'batch' || envelope.batch.lease !== Lane.ping) return; // late stream acks
        rounds++;
        // Reading the clock every round costs ~0.1 µs against a round trip of tens of µs.
        const now = performance.now();
        if (t0 === 0 && now - start >= warmupMs) {
          t0 = now;
          r0 = rounds;
        } else if (t0 !== 0 && now - t0 >= measureMs) {
          this.onReply = () => undefined;
          resolve(Math.round((rounds - r0) / ((now - t0) / 1000)));
          return;
        }
        this.send(traffic);
      };
      this.send(traffic);
    });
  }
}
