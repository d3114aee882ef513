/**
 * The names of the pod-wide profiles (DESIGN §9) and timings, in the one package every model
 * depends on: the topology file chooses one (`profile:`, `timing:`), and the switch and the NIC
 * each resolve their own bundle of defaults by it, so all three spell the names from this list.
 */
export const PROFILES = ['vendor', 'paper', 'hpcc-ns3', 'sonic'] as const;
export type Profile = (typeof PROFILES)[number];

/** `drill` scales the watchdog and stall-prevention timers down for short runs. */
export const TIMINGS = ['default', 'drill'] as const;
export type Timing = (typeof TIMINGS)[number];
