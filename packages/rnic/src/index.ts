/**
 * @rocelab/rnic — a host's RDMA NIC as a pure model driven by the virtual clock (DESIGN §5):
 * RC queue pairs (go-back-N / go-back-0 / selective repeat, RTO, RNR, READ, atomics), DCQCN
 * reaction and notification points in three variants, pacing, the receive buffer with NIC-side
 * PFC and stall prevention, composed in nic.ts. The host around it (its traffic, TCP stack and
 * application) is @rocelab/host.
 */
export * from './defaults.js';
export * from './psn.js';
export * from './aeth.js';
export * from './rc-requester.js';
export * from './rc-responder.js';
export * from './dcqcn-params.js';
export * from './dcqcn-rate.js';
export * from './dcqcn-rp.js';
export * from './dcqcn-np.js';
export * from './cc.js';
export * from './hpcc.js';
export * from './nic-pfc.js';
export * from './nic-settings.js';
export * from './nic.js';
export * from './completion-trace.js';
export * from './nic-types.js';
export * from './nic-frames.js';
export * from './pacing.js';
export * from './segmentation.js';
export * from './selective-repeat.js';
export * from './memory-region.js';
export type { QpOverrides } from './qp-setup.js';
export type * from './cc.js';
export * from './timely.js';
export * from './dctcp.js';
