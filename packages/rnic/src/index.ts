/**
 * @rocelab/rnic — the host's RDMA NIC as a pure model driven by the virtual clock.
 * First cut: WRITE segmentation, paced flow senders, and a receiver that counts.
 */
export * from './segmentation.js';
export * from './flow-sender.js';
export * from './host.js';
