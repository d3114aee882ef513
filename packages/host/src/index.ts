/**
 * @rocelab/host — a host as a pure model driven by the virtual clock: its RDMA NIC
 * (@rocelab/rnic) and, beside it, the host's own software — the traffic that posts its messages
 * and keeps their results, its TCP stack (NewReno, DCTCP), its programs' byte streams, and the scheduler that hands its
 * application what the NIC tells it. Composed in host.ts.
 */
export * from './host.js';
export * from './traffic.js';
export * from './tcp-stack.js';
export * from './tcp.js';
export * from './tcp-requester.js';
export * from './app-scheduler.js';
export * from './host-cpu.js';
export * from './stream.js';
export * from './streams.js';
