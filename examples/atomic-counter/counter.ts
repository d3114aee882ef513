// 16 hosts each FETCH_AND_ADD one shared 64-bit counter 1,000 times, over a link that loses
// 1 packet in 256 each way. A lost request or a lost Atomic ACK is recovered by go-back-N: the
// atomic is sent again, and the counter's host answers the duplicate from its cache of replies
// instead of adding twice. So the counter ends at exactly 16,000. With the cache switched off
// (pod-no-cache.yaml, a test-only NIC setting) every retried atomic whose ACK was lost adds again.
// Written in TypeScript: `rocelab run` type-checks it against rocelab/app before it runs.
import type { Rdma, Regions } from 'rocelab/app';

/** The app's args in the topology. */
interface Args {
  counterHost: string;
  adds: number;
}

export const regions: Regions = ({ node, args }) => {
  if (node === (args as unknown as Args).counterHost) return { counter: { bytes: 8, access: ['remoteAtomic'] }, inbox: { bytes: 64 } };
  return { old: { bytes: 8 }, note: { bytes: 8 } };
};

export default async function atomicCounter(rdma: Rdma): Promise<void> {
  const { counterHost, adds } = rdma.args as unknown as Args;
  const clients = rdma.hosts.filter((h) => h !== counterHost);
  if (rdma.node === counterHost) {
    // Each client says it is done with a zero-byte SEND; then the counter is final.
    const inbox = rdma.region('inbox');
    await Promise.all(clients.map((c) => rdma.connect(c).recv(inbox.slice(0, 0))));
    const value = new DataView(rdma.region('counter').bytes.buffer).getBigUint64(0, true);
    rdma.report('counter', Number(value));
    rdma.report('expected', clients.length * adds);
    return;
  }
  const qp = rdma.connect(counterHost);
  const counter = rdma.remote(counterHost, 'counter').at(0);
  const old = rdma.region('old').slice(0, 8);
  const latency = rdma.histogram('fetch_add_seconds', 'FETCH_AND_ADD round trips');
  for (let i = 0; i < adds; i++) {
    const wc = await qp.fetchAdd(old, counter, 1n);
    latency.observe((wc.completedPs - wc.postedPs) / 1e12);
  }
  await qp.send(rdma.region('note').slice(0, 0));
  rdma.report('adds', adds);
}
