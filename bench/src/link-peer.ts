/**
 * The far end of the link benchmark, run as its own process by link.ts (`fork`, so the two
 * ends never share an event loop or a core's JIT state). It accepts one authenticated
 * link on an ephemeral port, tells the parent the port over IPC, decodes every batch
 * (Connection does) and counts frames; it answers as the lane asks (see traffic.ts).
 */
import type { AddressInfo } from 'node:net';
import { CloseCode, Connection, podKey, WS_OPTIONS, type Identity } from '@rocelab/runtime';
import type { Envelope } from '@rocelab/wire';
import { WebSocketServer } from 'ws';
import { stderrLog } from './log.js';
import { ACK_EVERY, Lane, LINK_NAME, Traffic } from './traffic.js';

const log = stderrLog('bench-link-peer');
const token = process.env.ROCELAB_BENCH_TOKEN;
if (token === undefined || process.send === undefined) {
  process.stderr.write('link-peer: run me through link.ts (needs ROCELAB_BENCH_TOKEN and an IPC channel)\n');
  process.exit(2);
}
const key = podKey(token);
const self: Identity = { node: 'b', role: 'member', link: '', nodes: [], linkUrl: '', metricsUrls: [] };

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, ...WS_OPTIONS });
server.on('listening', () => process.send!({ port: (server.address() as AddressInfo).port }));
server.on('connection', (ws) => {
  Connection.accept(ws, key, self, (hello) => (hello.link === LINK_NAME ? null : { code: CloseCode.unknownPeer, reason: `unknown link ${hello.link}` }), log).then(
    serve,
    () => undefined, // refused: accept logged why and closed the socket
  );
});
// The parent going away (finished or crashed) ends the peer: never leave an orphan behind.
process.on('disconnect', () => process.exit(0));

function serve(conn: Connection): void {
  let frames = 0;
  let batches = 0;
  const replies = new Traffic(Lane.ping);
  conn.listen(
    (envelope: Envelope) => {
      if (envelope.type !== 'batch') return;
      const batch = envelope.batch;
      frames += batch.frames.length;
      batches++;
      if (batch.lease === Lane.ping) conn.send({ type: 'batch', batch: replies.next() });
      else if (batch.lease === Lane.stream && batches % ACK_EVERY === 0) {
        conn.send({ type: 'batch', batch: { lease: Lane.ack, window: frames, frames: [], arrivalPs: [], originSeq: [], fcsBad: [] } });
      }
    },
    () => {
      server.close();
      process.send!({ frames, batches }, () => process.disconnect());
    },
  );
}
