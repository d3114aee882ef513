/**
 * @rocelab/switch — the switch dataplane as a pure model driven by the virtual clock.
 * First cut: L3 forwarding with ECMP, one FIFO per port over a shared buffer, TTL.
 */
export * from './defaults.js';
export * from './forwarding.js';
export * from './port-fifo.js';
export * from './switch.js';
