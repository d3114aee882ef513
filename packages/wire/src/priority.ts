/**
 * DSCP → priority (traffic class) mapping shared by NICs and switches (DESIGN §9): RoCE data
 * DSCP 26 → priority 3 (lossless), CNP DSCP 48 → priority 6 (strict, lossy), everything else
 * → 0. Profiles may replace the map (the `sonic` AZURE map); ACKs ride their QP's DSCP.
 */
export const ROCE_DSCP = 26;
export const CNP_DSCP = 48;

/** A DSCP → priority table: 64 entries, each 0..7. */
export type DscpMap = readonly number[];

export function dscpMap(overrides: Readonly<Record<number, number>>, fallback = 0): DscpMap {
  return Array.from({ length: 64 }, (_, dscp) => overrides[dscp] ?? fallback);
}

export const DEFAULT_DSCP_MAP: DscpMap = dscpMap({ [ROCE_DSCP]: 3, [CNP_DSCP]: 6 });
