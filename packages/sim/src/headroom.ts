/**
 * How much headroom a lossless receiver needs: the bytes its upstream still sends after it
 * decides to pause (PHYSICS §2.3). Pure formulas; the switch MMU and the NIC's receive buffer
 * size their XOFF points from them.
 */
/** Cable length the mlx5 headroom formula assumes by default (`MLX5E_DEFAULT_CABLE_LEN 7`, PHYSICS §2.3). */
export const CABLE_METERS = 7;

/** Light in fibre: ~5 ns per metre; a link's latency counts as that much extra cable. */
export const PS_PER_CABLE_METER = 5_000;

/**
 * The mlx5 driver's `calculate_xoff` (drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c),
 * in its integer arithmetic: `(301 + 216·cable/100)·speedMbps/1000 + 272·mtu/100`, speed floored
 * at 40 Gb/s. 40G, 7 m, MTU 1500 → 16,720 B; 100G → 35,680 B.
 */
export function mlx5XoffBytes(rateBps: number, cableMeters: number, mtuBytes: number): number {
  const speedMbps = Math.max(40_000, Math.floor(rateBps / 1e6));
  return Math.floor(((301 + Math.floor((216 * cableMeters) / 100)) * speedMbps) / 1000) + Math.floor((272 * mtuBytes) / 100);
}

/**
 * rocelab's `vendor` headroom: the mlx5 formula with the cable extended by the link's latency
 * (≈ 5 ns per metre of fibre), so a 1 µs link is sized as ~200 m more cable, not as 7 m.
 */
export function vendorHeadroomBytes(rateBps: number, latencyPs: number, maxFrameBytes: number, cableMeters = CABLE_METERS): number {
  return mlx5XoffBytes(rateBps, cableMeters + Math.ceil(latencyPs / PS_PER_CABLE_METER), maxFrameBytes);
}

/**
 * The one-way latency a headroom formula should size for at a port: half the loop a pause
 * closes, out to the upstream (this port's direction) and the upstream's frames back (`in`).
 * The two differ only by the nodes' pipeline latencies, and without those this is `in`'s.
 */
export function pauseLoopLatencyPs(port: { in: { latencyPs: number }; out?: { latencyPs: number } }): number {
  return port.out === undefined ? port.in.latencyPs : Math.ceil((port.in.latencyPs + port.out.latencyPs) / 2);
}

/** HPCC ns-3 (`scratch/third.cc`): `rate · delay / 8 × 3` — 15,000 B at 40G and 1 µs. */
export function hpccHeadroomBytes(rateBps: number, latencyPs: number): number {
  return Math.floor(((rateBps * latencyPs) / 1e12 / 8) * 3);
}
