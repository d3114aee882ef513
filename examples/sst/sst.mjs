// A Derecho-style shared state table (SST): every host holds a full copy of a table with one row
// per host, and writes only its own row. It changes the row in its local copy, then pushes it
// with a one-sided WRITE to the same place in every peer's copy; a host learns about the others
// by reading its own memory, never by a message it must receive.
//
// Two phases on the same table:
// 1. A barrier, `rounds` times: set my row's counter to r, push, poll my copy until every row
//    is ≥ r. Reports the rounds per virtual second and the barrier latency P50/P99.
// 2. A stream of `updates` increments of my row, one every `updateNs` (the app's own work per
//    update), pushed every `batch` increments. Batching trades latency for throughput: a push
//    costs a WRITE per peer, so fewer pushes let more updates through, but an update is not
//    pushed until its batch is full. Reports updates per virtual second, pushes, and how old an
//    update is when a peer first sees it (P50/P99); and rows seen to go backwards (0 expected).
//
// Row layout (64 bytes, a cache line): the counter, then the time the oldest update of the
// latest batch was made (both u64, little-endian), then padding.
const ROW_BYTES = 64;
const COUNTER = 0;
const OLDEST_PS = 8;

export const regions = ({ hosts }) => ({ table: { bytes: hosts.length * ROW_BYTES, access: ['remoteWrite'] } });

export default async function sst(rdma) {
  const { rounds, updates, batch, updateNs = 20, signalEvery = 16, pollNs = 100, maxPolls = 100_000 } = rdma.args;
  const n = rdma.hosts.length;
  const me = rdma.hosts.indexOf(rdma.node);
  const others = [...Array(n).keys()].filter((i) => i !== me);
  const table = rdma.region('table');
  const view = new DataView(table.bytes.buffer, table.bytes.byteOffset, table.bytes.byteLength);
  const get = (i, field) => Number(view.getBigUint64(i * ROW_BYTES + field, true));
  const set = (field, value) => view.setBigUint64(me * ROW_BYTES + field, BigInt(value), true);
  const myRow = table.slice(me * ROW_BYTES, ROW_BYTES);
  const targets = others.map((i) => ({ qp: rdma.connect(rdma.hosts[i]), at: rdma.remote(rdma.hosts[i], 'table').at(me * ROW_BYTES) }));

  // Selective signaling, as SST does: most pushes are unsignaled WRITEs; every signalEvery-th
  // is signaled on each QP, and its completion also retires the unsignaled ones before it. The
  // previous signaled push must have completed before the next is posted, which bounds what is
  // outstanding per QP to 2·signalEvery WRs (a send queue's depth, on hardware).
  let pushes = 0;
  let signaledPush = null;
  async function push(last = false) {
    pushes++;
    if (!last && pushes % signalEvery !== 0) {
      for (const t of targets) t.qp.write(myRow, t.at, { signaled: false });
      return;
    }
    if (signaledPush !== null) await signaledPush;
    signaledPush = Promise.all(targets.map((t) => t.qp.write(myRow, t.at)));
    if (last) await signaledPush;
  }

  // Poll my own copy of the table: a peer's WRITE changes it without telling me.
  async function until(ready, what) {
    for (let polls = 0; !ready(); polls++) {
      if (polls === maxPolls) throw new Error(`${what}: not reached after ${maxPolls} polls of ${pollNs} ns`);
      await rdma.sleep(rdma.ns(pollNs));
    }
  }

  // Phase 1: the barrier.
  const barrierPs = [];
  const barrierStart = rdma.now();
  for (let r = 1; r <= rounds; r++) {
    const start = rdma.now();
    set(COUNTER, r);
    await push();
    await until(() => others.every((i) => get(i, COUNTER) >= r), `barrier round ${r}`);
    barrierPs.push(rdma.now() - start);
  }
  const barrierEnd = rdma.now();

  // Phase 2: the update stream. Every counter starts from `rounds`, where the barrier left it.
  const final = rounds + updates;
  async function produce() {
    const start = rdma.now();
    let oldestPs = 0;
    for (let k = 1; k <= updates; k++) {
      await rdma.sleep(rdma.ns(updateNs));
      if ((k - 1) % batch === 0) oldestPs = rdma.now();
      if (k % batch !== 0 && k !== updates) continue;
      // The batch goes into the row only now, whole: the NIC reads the row as each packet
      // leaves (as a DMA would), so a batch still being made must not be in it.
      set(OLDEST_PS, oldestPs);
      set(COUNTER, rounds + k);
      await push(k === updates);
    }
    return rdma.now() - start;
  }
  // How old the oldest update of a peer's batch is when I first see the batch: the update that
  // waited longest, in its batch and on the way. Sampled at every poll that finds a row changed.
  const seenPs = [];
  let regressions = 0;
  async function observe() {
    const seen = others.map(() => rounds);
    await until(() => {
      others.forEach((i, j) => {
        const c = get(i, COUNTER);
        if (c < seen[j]) regressions++; // a peer's WRITEs land in order (RC), so never
        if (c > seen[j]) {
          seenPs.push(rdma.now() - get(i, OLDEST_PS));
          seen[j] = c;
        }
      });
      return seen.every((c) => c === final);
    }, 'every peer\'s last update');
  }
  const [streamPs] = await Promise.all([produce(), observe()]);

  barrierPs.sort((a, b) => a - b);
  seenPs.sort((a, b) => a - b);
  // Nearest-rank percentile: the smallest value with at least q of the samples at or below it.
  const percentileUs = (sorted, q) => sorted[Math.ceil(q * sorted.length) - 1] / 1e6;
  rdma.report('rounds', rounds);
  rdma.report('roundsPerSec', Math.round(rounds / ((barrierEnd - barrierStart) / 1e12)));
  rdma.report('barrierP50Us', percentileUs(barrierPs, 0.5));
  rdma.report('barrierP99Us', percentileUs(barrierPs, 0.99));
  rdma.report('batch', batch);
  rdma.report('updates', updates);
  rdma.report('pushes', pushes - rounds); // those of the update stream
  rdma.report('updatesPerSec', Math.round(updates / (streamPs / 1e12)));
  rdma.report('seenP50Us', percentileUs(seenPs, 0.5));
  rdma.report('seenP99Us', percentileUs(seenPs, 0.99));
  rdma.report('regressions', regressions);
}
