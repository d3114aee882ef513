/**
 * Switch defaults, each with its source (STYLE §7).
 */

/** Shared buffer of one switch: the SONiC Force10-S6000 ingress lossless pool, 12,766,208 B (DESIGN §9, PHYSICS §3.2). */
export const SHARED_BUFFER_BYTES = 12_766_208;
