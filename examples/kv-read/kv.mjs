// A key-value lookup by one-sided READ: the server's CPU takes no part in a lookup. The server
// registers a table of fixed-size slots (an 8-byte key, then the value) and fills it at start;
// each client hashes a key to its slot itself, READs the slot, and checks that the key and the
// value are the ones the server stored. Reports, per client, the lookups, the mismatches (0
// expected) and the P50/P99 lookup latency.
const SLOT_BYTES = 64;
const KEY_BYTES = 8;

export const regions = ({ node, args }) =>
  node === args.server
    ? { table: { bytes: args.slots * SLOT_BYTES, access: ['remoteRead'] } }
    : { slot: { bytes: SLOT_BYTES } };

// Multiplying by an odd constant modulo a power of two is a bijection, so with `slots` (a power
// of two) keys 0..slots-1 each get a slot of their own: no collisions, hence no probing.
const hash = (key, slots) => Number((BigInt(key) * 0x9e3779b97f4a7c15n) & BigInt(slots - 1));

// The value stored under a key: any pattern that differs between keys and between bytes.
const valueByte = (key, i) => (key * 131 + i * 29 + 7) & 0xff;

export default async function kvRead(rdma) {
  const { server, slots, lookups } = rdma.args;
  if (!(Number.isInteger(slots) && slots > 0 && (slots & (slots - 1)) === 0)) throw new Error(`slots must be a power of two, got ${slots}`);
  if (rdma.node === server) {
    // Filled in the app's first step, at time 0; clients wait 1 µs before their first READ.
    const table = rdma.region('table').bytes;
    const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
    for (let key = 0; key < slots; key++) {
      const at = hash(key, slots) * SLOT_BYTES;
      view.setBigUint64(at, BigInt(key), true);
      for (let i = KEY_BYTES; i < SLOT_BYTES; i++) table[at + i] = valueByte(key, i);
    }
    rdma.report('slots', slots);
    return;
  }

  const qp = rdma.connect(server);
  const table = rdma.remote(server, 'table');
  const slot = rdma.region('slot');
  const buf = slot.slice(0, SLOT_BYTES);
  const view = new DataView(slot.bytes.buffer, slot.bytes.byteOffset, SLOT_BYTES);
  const histogram = rdma.histogram('lookup_seconds', 'one-sided READ lookups, post to completion');
  const latenciesPs = [];
  let mismatches = 0;
  await rdma.sleep(rdma.us(1)); // let the server's table be filled first, whatever the start order
  for (let n = 0; n < lookups; n++) {
    const key = Math.floor(rdma.random() * slots);
    buf.fill(0); // a READ that wrote nothing must not pass for a hit
    const wc = await qp.read(buf, table.at(hash(key, slots) * SLOT_BYTES));
    let ok = view.getBigUint64(0, true) === BigInt(key);
    for (let i = KEY_BYTES; ok && i < SLOT_BYTES; i++) ok = buf[i] === valueByte(key, i);
    if (!ok) mismatches++;
    latenciesPs.push(wc.completedPs - wc.postedPs);
    histogram.observe((wc.completedPs - wc.postedPs) / 1e12);
  }
  latenciesPs.sort((a, b) => a - b);
  // Nearest-rank percentile: the smallest latency with at least q of the lookups at or below it.
  const percentileUs = (q) => latenciesPs[Math.ceil(q * latenciesPs.length) - 1] / 1e6;
  rdma.report('lookups', lookups);
  rdma.report('mismatches', mismatches);
  rdma.report('p50Us', percentileUs(0.5));
  rdma.report('p99Us', percentileUs(0.99));
  rdma.report('maxUs', latenciesPs[latenciesPs.length - 1] / 1e6);
}
