// The smallest complete RDMA program: register memory, connect, WRITE, wait for the completion.
// (The ibverbs equivalent is some 600 lines: device, PD, CQ, QP, state transitions, rdma_cm.)
export const regions = () => ({ buf: { bytes: 64, access: ['remoteWrite'] } });

export default async function hello(rdma) {
  if (rdma.node !== 'h1') return; // h2 only lends its memory
  const buf = rdma.region('buf');
  const text = 'hello, RDMA';
  for (let i = 0; i < text.length; i++) buf.bytes[i] = text.charCodeAt(i);
  const wc = await rdma.connect('h2').write(buf.slice(0, text.length), rdma.remote('h2', 'buf').at(0));
  rdma.report('latencyUs', (wc.completedPs - wc.postedPs) / 1e6);
}
