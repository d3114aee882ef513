/**
 * @rocelab/switch — the switch dataplane as a pure model driven by the virtual clock
 * (DESIGN §5): classifier, shared-buffer MMU, PFC generation, ECN marking, egress scheduling
 * (strict CNP class + DWRR), L3 forwarding with ECMP (rocelab's hash or HPCC ns-3's), ARP/MAC
 * tables and flooding, and the SONiC PFC watchdog — each in its own module, composed in
 * `switch.ts`.
 */
export * from './defaults.js';
export * from './problem.js';
export * from './classifier.js';
export * from './mmu.js';
export * from './pfc.js';
export * from './ecn.js';
export * from './scheduler.js';
export * from './forwarding.js';
export * from './ecmp-hash-hpcc.js';
export * from './mac-table.js';
export * from './pfc-watchdog.js';
export * from './profiles.js';
export * from './config.js';
export * from './plan.js';
export * from './switch.js';
export * from './tagger.js';
export * from './egress-faults.js';
export * from './int-stamp.js';
